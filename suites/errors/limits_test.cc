// Running into limits: a create past what the device declares is refused and leaves what
// exists working; registering memory past RLIMIT_MEMLOCK is refused with ENOMEM.
#include <infiniband/verbs.h>

#include <cerrno>
#include <climits>
#include <string>
#include <vector>

#include "harness/status.h"
#include "testing/completion_matchers.h"
#include "testing/device_test.h"
#include "testing/memlock_limit.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// One declared maximum and a create that asks for one more.
struct OverLimit {
  const char* name;
  Cap needs;
  int (*declared)(const ibv_device_attr_ex&);
  // Creates the object with `value` in place of the limited field; returns the errno of a
  // refusal, kRefusedWithoutErrno, or 0 (the object, if created, is released at once).
  int (*create)(ibv_context* context, ibv_pd* pd, ibv_cq* cq, int value);
};
std::string OverLimitName(const ::testing::TestParamInfo<OverLimit>& info) { return info.param.name; }

// A create that returned NULL and left errno 0: the man pages promise errno on failure.
constexpr int kRefusedWithoutErrno = -1;

int RefusalErrno(bool created) {
  if (created) return 0;
  return errno != 0 ? errno : kRefusedWithoutErrno;
}

std::string DescribeCreate(int err) {
  if (err == 0) return "created";
  if (err == kRefusedWithoutErrno) return "refused, but errno is 0";
  return ErrnoName(err);
}

int CreateCqErrno(ibv_context* context, ibv_pd*, ibv_cq*, int cqe) {
  errno = 0;
  CqPtr cq(ibv_create_cq(context, cqe, nullptr, nullptr, 0));
  return RefusalErrno(cq != nullptr);
}

// An RC QP whose `field` of the capabilities is `value`, the others small.
int CreateQpErrno(ibv_pd* pd, ibv_cq* cq, uint32_t ibv_qp_cap::*field, int value) {
  ibv_qp_init_attr attr = QpInitAttr(IBV_QPT_RC, cq);
  attr.cap.*field = static_cast<uint32_t>(value);
  errno = 0;
  QpPtr qp(ibv_create_qp(pd, &attr));
  return RefusalErrno(qp != nullptr);
}

int CreateSrqErrno(ibv_pd* pd, ibv_srq_init_attr attr) {
  errno = 0;
  SrqPtr srq(ibv_create_srq(pd, &attr));
  return RefusalErrno(srq != nullptr);
}

std::vector<OverLimit> AllOverLimits() {
  return {
      {"CqCqe", Cap::kRcQp, [](const ibv_device_attr_ex& a) { return a.orig_attr.max_cqe; },
       [](ibv_context* c, ibv_pd* pd, ibv_cq* cq, int v) { return CreateCqErrno(c, pd, cq, v); }},
      {"QpSendWr", Cap::kRcQp, [](const ibv_device_attr_ex& a) { return a.orig_attr.max_qp_wr; },
       [](ibv_context*, ibv_pd* pd, ibv_cq* cq, int v) { return CreateQpErrno(pd, cq, &ibv_qp_cap::max_send_wr, v); }},
      {"QpRecvWr", Cap::kRcQp, [](const ibv_device_attr_ex& a) { return a.orig_attr.max_qp_wr; },
       [](ibv_context*, ibv_pd* pd, ibv_cq* cq, int v) { return CreateQpErrno(pd, cq, &ibv_qp_cap::max_recv_wr, v); }},
      {"QpSendSge", Cap::kRcQp, [](const ibv_device_attr_ex& a) { return a.orig_attr.max_sge; },
       [](ibv_context*, ibv_pd* pd, ibv_cq* cq, int v) { return CreateQpErrno(pd, cq, &ibv_qp_cap::max_send_sge, v); }},
      {"QpRecvSge", Cap::kRcQp, [](const ibv_device_attr_ex& a) { return a.orig_attr.max_sge; },
       [](ibv_context*, ibv_pd* pd, ibv_cq* cq, int v) { return CreateQpErrno(pd, cq, &ibv_qp_cap::max_recv_sge, v); }},
      {"SrqWr", Cap::kSrq, [](const ibv_device_attr_ex& a) { return a.orig_attr.max_srq_wr; },
       [](ibv_context*, ibv_pd* pd, ibv_cq*, int v) {
         ibv_srq_init_attr attr{};
         attr.attr.max_wr = static_cast<uint32_t>(v);
         attr.attr.max_sge = 1;
         return CreateSrqErrno(pd, attr);
       }},
      {"SrqSge", Cap::kSrq, [](const ibv_device_attr_ex& a) { return a.orig_attr.max_srq_sge; },
       [](ibv_context*, ibv_pd* pd, ibv_cq*, int v) {
         ibv_srq_init_attr attr{};
         attr.attr.max_wr = 4;
         attr.attr.max_sge = static_cast<uint32_t>(v);
         return CreateSrqErrno(pd, attr);
       }},
  };
}

class OverLimitTest : public DeviceTest, public ::testing::WithParamInterface<OverLimit> {};

RDMACHECK_ABOUT(OverLimitTest, CreateIsRefusedAndExistingObjectsWork,
                "creating a CQ / QP / SRQ with one more entry or SGE than ibv_query_device declares fails (EINVAL or "
                "ENOMEM), and a connected pair made before still carries a SEND afterwards",
                "ibv_create_cq(3), ibv_create_qp(3), ibv_create_srq(3) (limits from ibv_query_device(3)); IBTA Vol "
                "1 11.2.1.2 (device attributes are the limits)",
                Cap::kRcQp);
TEST_P(OverLimitTest, CreateIsRefusedAndExistingObjectsWork) {
  RDMACHECK_REQUIRE(GetParam().needs);
  const int declared = GetParam().declared(device_attr());
  RecordProperty("declared", declared);
  if (declared >= INT_MAX) GTEST_SKIP() << "the device declares " << GetParam().name << " = INT_MAX: nothing is larger";
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair());
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 4));

  const int err = GetParam().create(context(), pd.get(), cq.get(), declared + 1);
  RecordProperty("outcome", DescribeCreate(err));
  EXPECT_TRUE(err == EINVAL || err == ENOMEM) << GetParam().name << " = declared + 1 (" << declared + 1
                                               << "): " << DescribeCreate(err);

  ASSERT_OK(pair.remote().PostRecv(2, 0, 64));
  ASSERT_OK(pair.local().Post(SendRequest::Send(1, {{0, 64}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.remote().PollRecv());
  EXPECT_THAT(wc, CompletionIs(RecvCompletion(2, pair.remote().qp_num(), 64)));
}

INSTANTIATE_TEST_SUITE_P(Limits, OverLimitTest, ::testing::ValuesIn(AllOverLimits()), OverLimitName);

// ---- RLIMIT_MEMLOCK. Pinning memory is charged to the process's locked memory unless the
// caller has CAP_IPC_LOCK (the lab runs as root): testing/memlock_limit.h.
class MemlockTest : public DeviceTest {};

RDMACHECK_ABOUT(MemlockTest, RegisteringPastTheLimitFailsEnomem,
                "with RLIMIT_MEMLOCK at 64 KiB and no CAP_IPC_LOCK, ibv_reg_mr of 1 MiB fails with ENOMEM; with the "
                "limit restored the same registration succeeds",
                "ibv_reg_mr(3) (ENOMEM: not enough resources); setrlimit(2) RLIMIT_MEMLOCK; "
                "drivers/infiniband/core/umem.c ib_umem_get (pinned pages are charged to RLIMIT_MEMLOCK)");
TEST_F(MemlockTest, RegisteringPastTheLimitFailsEnomem) {
  constexpr size_t kBytes = 1 << 20;
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  std::vector<uint8_t> buffer(kBytes, 1);
  absl::Status refused = absl::UnknownError("not tried");
  ASSERT_OK(RunUnderMemlockLimit(64 * 1024, [&] {
    refused = RegMr(pd.get(), absl::MakeSpan(buffer), IBV_ACCESS_LOCAL_WRITE).status();
  }));
  EXPECT_THAT(refused, HasErrno(ENOMEM)) << "ibv_reg_mr of 1 MiB over a 64 KiB RLIMIT_MEMLOCK";
  EXPECT_OK(RegMr(pd.get(), absl::MakeSpan(buffer), IBV_ACCESS_LOCAL_WRITE)) << "with the limit restored";
}

}  // namespace
}  // namespace rdmacheck
