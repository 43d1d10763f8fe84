// What a QP can be created with: queue depths and SGE counts at the device's declared limit
// (created, with at least what was asked) and one beyond it (refused with EINVAL); zero-sized
// queues; an unknown QP type. The inline size has no declared limit (ibv_device_attr has none):
// the probe measures the largest one create accepts and inline_test.cc sends that much, so a
// create test here against the probe's own number would only repeat the probe.
#include <cerrno>
#include <map>

#include "absl/strings/str_cat.h"
#include "harness/verbs/factories.h"
#include "suites/qp_state/qp_state_test_base.h"

namespace rdmacheck {
namespace {

enum class Limit { kSendWr, kRecvWr, kSendSge, kRecvSge };

const char* LimitName(Limit limit) {
  switch (limit) {
    case Limit::kSendWr: return "max_send_wr";
    case Limit::kRecvWr: return "max_recv_wr";
    case Limit::kSendSge: return "max_send_sge";
    case Limit::kRecvSge: return "max_recv_sge";
  }
  return "?";
}

uint32_t& Field(ibv_qp_cap& cap, Limit limit) {
  switch (limit) {
    case Limit::kSendWr: return cap.max_send_wr;
    case Limit::kRecvWr: return cap.max_recv_wr;
    case Limit::kSendSge: return cap.max_send_sge;
    case Limit::kRecvSge: return cap.max_recv_sge;
  }
  return cap.max_send_wr;
}

struct LimitCase {
  Limit limit;
  bool beyond;  // one more than the limit
};

class QpCreateLimitTest : public QpStateTest, public ::testing::WithParamInterface<LimitCase> {
 protected:
  void SetUp() override {
    QpStateTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
    ASSERT_OK_AND_ASSIGN(cq_, CreateCq(context(), 16));
  }

  // The device's declared limit for `limit` (ibv_query_device), and its name.
  std::pair<uint32_t, std::string> LimitOf(Limit limit) {
    const ibv_device_attr& d = device_attr().orig_attr;
    switch (limit) {
      case Limit::kSendWr:
      case Limit::kRecvWr: return {static_cast<uint32_t>(d.max_qp_wr), "max_qp_wr"};
      case Limit::kSendSge:
      case Limit::kRecvSge: return {static_cast<uint32_t>(d.max_sge), "max_sge"};
    }
    return {0, "?"};
  }

  PdPtr pd_;
  CqPtr cq_;
};

RDMACHECK_ABOUT(QpCreateLimitTest, AtLimitCreatedBeyondRefused,
                "an RC QP asking for a queue depth or SGE count equal to the device's declared limit is "
                "created with at least that much; one more is refused with EINVAL",
                "IBTA Vol 1 11.2.4.1 (Create QP: requested resources beyond the CA's capability are an error); "
                "ibv_create_qp(3), ibv_query_device(3)",
                Cap::kRcQp);
RDMACHECK_RUNS_ALONE(QpCreateLimitTest, AtLimitCreatedBeyondRefused,
                    "a queue at the declared limit takes the most the device can give: what tests beside it hold could make a "
                    "legal create fail");
TEST_P(QpCreateLimitTest, AtLimitCreatedBeyondRefused) {
  const LimitCase& c = GetParam();
  auto limit = LimitOf(c.limit);
  ibv_qp_init_attr attr = QpInitAttr(IBV_QPT_RC, cq_.get(), /*depth=*/1, /*sge=*/1);
  const uint32_t asked = limit.first + (c.beyond ? 1 : 0);
  Field(attr.cap, c.limit) = asked;
  const std::string what = absl::StrCat(LimitName(c.limit), " = ", asked, " (limit ", limit.first, ", ",
                                        limit.second, ")");

  errno = 0;
  QpPtr qp(ibv_create_qp(pd_.get(), &attr));
  if (c.beyond) {
    EXPECT_EQ(qp, nullptr) << what << " was created, with " << LimitName(c.limit) << " = "
                           << Field(attr.cap, c.limit);
    if (!qp) {
      EXPECT_THAT(errno, ErrnoIs(EINVAL)) << what;
    }
  } else {
    ASSERT_NE(qp, nullptr) << what << ": " << ErrnoName(errno);
    EXPECT_GE(Field(attr.cap, c.limit), asked) << "ibv_create_qp reports less than was asked for";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Limits, QpCreateLimitTest,
    ::testing::ValuesIn(std::vector<LimitCase>{
        {Limit::kSendWr, false}, {Limit::kSendWr, true}, {Limit::kRecvWr, false}, {Limit::kRecvWr, true},
        {Limit::kSendSge, false}, {Limit::kSendSge, true}, {Limit::kRecvSge, false}, {Limit::kRecvSge, true}}),
    [](const ::testing::TestParamInfo<LimitCase>& info) {
      return absl::StrCat(LimitName(info.param.limit), info.param.beyond ? "_BeyondLimit" : "_AtLimit");
    });

class QpCreateTest : public QpStateTest {
 protected:
  void SetUp() override {
    QpStateTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
    ASSERT_OK_AND_ASSIGN(cq_, CreateCq(context(), 16));
  }

  // Creates an RC QP with `attr`; the spec leaves a zero-sized queue to the device, so what
  // happened is recorded and its form is checked: created, with the queue sizes create
  // granted being the ones ibv_query_qp reports, or refused with EINVAL.
  void CreateAndRecord(ibv_qp_init_attr attr, const std::string& what) {
    errno = 0;
    QpPtr qp(ibv_create_qp(pd_.get(), &attr));
    if (qp) {
      Observe(absl::StrCat(what, ": created (max_send_wr ", attr.cap.max_send_wr, ", max_recv_wr ",
                           attr.cap.max_recv_wr, ")"));
      ExpectQueryAgreesWithCreate(qp.get(), attr, what);
    } else {
      Observe(absl::StrCat(what, ": refused, ", ErrnoName(errno)));
      EXPECT_THAT(errno, ErrnoIs(EINVAL)) << what;
    }
  }

  // The queue sizes create wrote back into `attr` are the QP's: ibv_query_qp says the same.
  static void ExpectQueryAgreesWithCreate(ibv_qp* qp, const ibv_qp_init_attr& attr, const std::string& what) {
    ASSERT_OK_AND_ASSIGN(ibv_qp_attr queried, QueryQp(qp, IBV_QP_CAP));
    EXPECT_EQ(queried.cap.max_send_wr, attr.cap.max_send_wr) << what << ": ibv_query_qp and create disagree";
    EXPECT_EQ(queried.cap.max_recv_wr, attr.cap.max_recv_wr) << what << ": ibv_query_qp and create disagree";
  }

  PdPtr pd_;
  CqPtr cq_;
};

RDMACHECK_ABOUT(QpCreateTest, GrantedCapsAreWhatQueryReports,
                "an RC QP created with the harness's usual queue sizes: the sizes ibv_create_qp writes back (what "
                "it granted) are the ones ibv_query_qp reports",
                "ibv_create_qp(3) (cap: the actual sizes granted), ibv_query_qp(3); IBTA Vol 1 11.2.4.1",
                Cap::kRcQp);
TEST_F(QpCreateTest, GrantedCapsAreWhatQueryReports) {
  ibv_qp_init_attr attr = QpInitAttr(IBV_QPT_RC, cq_.get());
  errno = 0;
  QpPtr qp(ibv_create_qp(pd_.get(), &attr));
  ASSERT_NE(qp, nullptr) << "ibv_create_qp: " << ErrnoName(errno);
  ExpectQueryAgreesWithCreate(qp.get(), attr, "RC QP");
}

class QpZeroQueueTest : public QpCreateTest, public ::testing::WithParamInterface<Limit> {};

RDMACHECK_ABOUT(QpZeroQueueTest, CreatedOrRefusedWithEinval,
                "an RC QP with max_send_wr 0 (receive-only) or with max_recv_wr 0 and no SRQ (send-only) is either "
                "created, with ibv_query_qp reporting the queue sizes create granted, or refused with EINVAL; which "
                "one is recorded (the spec leaves it to the device)",
                "IBTA Vol 1 11.2.4.1 (Create QP); ibv_create_qp(3), ibv_query_qp(3)", Cap::kRcQp);
TEST_P(QpZeroQueueTest, CreatedOrRefusedWithEinval) {
  ibv_qp_init_attr attr = QpInitAttr(IBV_QPT_RC, cq_.get());
  Field(attr.cap, GetParam()) = 0;
  CreateAndRecord(attr, absl::StrCat(LimitName(GetParam()), " 0"));
}

INSTANTIATE_TEST_SUITE_P(Queues, QpZeroQueueTest, ::testing::Values(Limit::kSendWr, Limit::kRecvWr),
                         [](const ::testing::TestParamInfo<Limit>& info) { return std::string(LimitName(info.param)); });

RDMACHECK_ABOUT(QpCreateTest, ZeroRecvQueueWithSrqIsCreated,
                "an RC QP on an SRQ with max_recv_wr and max_recv_sge 0 is created: with an SRQ the receive "
                "queue sizes are ignored",
                "ibv_create_qp(3) (srq: max_recv_wr and max_recv_sge are ignored)",
                Cap::kRcQp, Cap::kSrq);
TEST_F(QpCreateTest, ZeroRecvQueueWithSrqIsCreated) {
  ibv_srq_init_attr srq_attr{};
  srq_attr.attr.max_wr = 16;
  srq_attr.attr.max_sge = 1;
  ASSERT_OK_AND_ASSIGN(SrqPtr srq, CreateSrq(pd_.get(), srq_attr));
  ibv_qp_init_attr attr = QpInitAttr(IBV_QPT_RC, cq_.get());
  attr.srq = srq.get();
  attr.cap.max_recv_wr = 0;
  attr.cap.max_recv_sge = 0;
  EXPECT_OK(CreateQp(pd_.get(), attr));
}

RDMACHECK_ABOUT(QpCreateTest, CreateExBeyondTheWrLimitFailsEinval,
                "ibv_create_qp_ex for an RC QP with the ibv_wr_* SEND op (comp_mask PD | SEND_OPS_FLAGS) and "
                "max_send_wr = max_qp_wr + 1 returns NULL with errno EINVAL, as ibv_create_qp does. Fails when the QP "
                "is created, or refused with another errno",
                "ibv_create_qp_ex(3) (\"returns a pointer to the created QP, or NULL if the request fails\"); IBTA "
                "Vol 1 11.2.4.1 (Create QP: requested resources beyond the CA's capability are an error)",
                Cap::kRcQp, Cap::kQpEx);
TEST_F(QpCreateTest, CreateExBeyondTheWrLimitFailsEinval) {
  const uint32_t asked = static_cast<uint32_t>(device_attr().orig_attr.max_qp_wr) + 1;
  ibv_qp_init_attr_ex attr{};
  attr.qp_type = IBV_QPT_RC;
  attr.send_cq = attr.recv_cq = cq_.get();
  attr.cap = {asked, 1, 1, 1, 0};
  attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  attr.pd = pd_.get();
  attr.send_ops_flags = IBV_QP_EX_WITH_SEND;
  errno = 0;
  QpPtr qp(ibv_create_qp_ex(context(), &attr));
  EXPECT_EQ(qp, nullptr) << "max_send_wr = " << asked << " (max_qp_wr + 1) was created, with max_send_wr "
                         << attr.cap.max_send_wr;
  if (!qp) {
    EXPECT_THAT(errno, ErrnoIs(EINVAL));
  }
}

RDMACHECK_ABOUT(QpCreateTest, UnknownTypeFails,
                "ibv_create_qp with a QP type that does not exist fails (NULL, errno set); the errno is recorded",
                "IBTA Vol 1 11.2.4.1 (Create QP: invalid service type); ibv_create_qp(3)");
TEST_F(QpCreateTest, UnknownTypeFails) {
  ibv_qp_init_attr attr = QpInitAttr(static_cast<ibv_qp_type>(0x7f), cq_.get());
  errno = 0;
  QpPtr qp(ibv_create_qp(pd_.get(), &attr));
  EXPECT_EQ(qp, nullptr) << "a QP of type 0x7f was created";
  if (!qp) {
    EXPECT_NE(errno, 0) << "ibv_create_qp returned NULL without errno";
    Observe(absl::StrCat("type 0x7f: refused, ", ErrnoName(errno)));
  }
}

}  // namespace
}  // namespace rdmacheck
