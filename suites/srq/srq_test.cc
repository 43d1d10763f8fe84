// Shared receive queues as objects: the sizes they accept, what they report, arming the
// limit, resizing, and the rule that an SRQ outlives its QPs. Needs capability srq.
#include <infiniband/verbs.h>

#include <cerrno>
#include <string>

#include "testing/device_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// IBTA Vol 1 ch. 11 (Create SRQ) refuses sizes beyond the CI's limits; Linux: EINVAL.
constexpr int kInvalidSrqAttrErrno = EINVAL;

struct SrqShape {
  const char* name;
  uint32_t (*max_wr)(const ibv_device_attr& attr);
  uint32_t (*max_sge)(const ibv_device_attr& attr);
};

std::string ShapeName(const ::testing::TestParamInfo<SrqShape>& info) { return info.param.name; }

ibv_srq_init_attr SrqAttr(uint32_t max_wr, uint32_t max_sge, uint32_t limit = 0) {
  ibv_srq_init_attr attr{};
  attr.attr.max_wr = max_wr;
  attr.attr.max_sge = max_sge;
  attr.attr.srq_limit = limit;
  return attr;
}

class SrqShapeTest : public DeviceTest, public ::testing::WithParamInterface<SrqShape> {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
  }
  PdPtr pd_;
};

RDMACHECK_ABOUT(SrqShapeTest, CreateWithinLimits,
                "ibv_create_srq succeeds for 1 WR x 1 SGE, max_srq_wr x 1 SGE and 16 WRs x max_srq_sge, and the "
                "attributes it hands back are at least what was asked",
                "ibv_create_srq(3) (srq_init_attr is updated to the actual values); ibv_query_device(3) max_srq_wr, "
                "max_srq_sge",
                Cap::kSrq);
TEST_P(SrqShapeTest, CreateWithinLimits) {
  const uint32_t max_wr = GetParam().max_wr(device_attr().orig_attr);
  const uint32_t max_sge = GetParam().max_sge(device_attr().orig_attr);
  ibv_srq_init_attr attr = SrqAttr(max_wr, max_sge);
  SrqPtr srq(ibv_create_srq(pd_.get(), &attr));
  ASSERT_NE(srq, nullptr) << ErrnoName(errno);
  EXPECT_GE(attr.attr.max_wr, max_wr);
  EXPECT_GE(attr.attr.max_sge, max_sge);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, SrqShapeTest,
    ::testing::Values(
        SrqShape{"OneWrOneSge", [](const ibv_device_attr&) { return 1u; }, [](const ibv_device_attr&) { return 1u; }},
        SrqShape{"MaxWr", [](const ibv_device_attr& a) { return static_cast<uint32_t>(a.max_srq_wr); },
                 [](const ibv_device_attr&) { return 1u; }},
        SrqShape{"MaxSge", [](const ibv_device_attr&) { return 16u; },
                 [](const ibv_device_attr& a) { return static_cast<uint32_t>(a.max_srq_sge); }}),
    ShapeName);

class SrqBeyondLimitTest : public SrqShapeTest {};

RDMACHECK_ABOUT(SrqBeyondLimitTest, CreateFailsEinval,
                "ibv_create_srq with max_srq_wr+1 WRs or max_srq_sge+1 SGEs returns NULL with errno EINVAL",
                "ibv_create_srq(3); IBTA Vol 1 ch. 11 (Create SRQ)", Cap::kSrq);
TEST_P(SrqBeyondLimitTest, CreateFailsEinval) {
  ibv_srq_init_attr attr = SrqAttr(GetParam().max_wr(device_attr().orig_attr),
                                   GetParam().max_sge(device_attr().orig_attr));
  errno = 0;
  SrqPtr srq(ibv_create_srq(pd_.get(), &attr));
  EXPECT_EQ(srq, nullptr) << "an SRQ beyond the device's limits was created";
  if (!srq) {
    EXPECT_THAT(errno, ErrnoIs(kInvalidSrqAttrErrno));
  }
}

RDMACHECK_ABOUT(SrqBeyondLimitTest, CreateExFailsEinval,
                "ibv_create_srq_ex for a basic SRQ (comp_mask TYPE | PD) with max_srq_wr+1 WRs or max_srq_sge+1 SGEs "
                "returns NULL with errno EINVAL, as ibv_create_srq does. Fails when the SRQ is created, or refused "
                "with another errno",
                "ibv_create_srq_ex(3) (\"returns a pointer to the created SRQ, or NULL if the request fails\"); "
                "IBTA Vol 1 ch. 11 (Create SRQ)",
                Cap::kSrq);
TEST_P(SrqBeyondLimitTest, CreateExFailsEinval) {
  ibv_srq_init_attr_ex attr{};
  attr.attr = SrqAttr(GetParam().max_wr(device_attr().orig_attr), GetParam().max_sge(device_attr().orig_attr)).attr;
  attr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD;
  attr.srq_type = IBV_SRQT_BASIC;
  attr.pd = pd_.get();
  errno = 0;
  SrqPtr srq(ibv_create_srq_ex(context(), &attr));
  EXPECT_EQ(srq, nullptr) << "an SRQ beyond the device's limits was created through ibv_create_srq_ex";
  if (!srq) {
    EXPECT_THAT(errno, ErrnoIs(kInvalidSrqAttrErrno));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, SrqBeyondLimitTest,
    ::testing::Values(
        SrqShape{"MaxWrPlusOne", [](const ibv_device_attr& a) { return static_cast<uint32_t>(a.max_srq_wr) + 1; },
                 [](const ibv_device_attr&) { return 1u; }},
        SrqShape{"MaxSgePlusOne", [](const ibv_device_attr&) { return 16u; },
                 [](const ibv_device_attr& a) { return static_cast<uint32_t>(a.max_srq_sge) + 1; }}),
    ShapeName);

class SrqTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
    granted_ = SrqAttr(16, 1);
    srq_.reset(ibv_create_srq(pd_.get(), &granted_));  // granted_ now holds the actual sizes
    ASSERT_NE(srq_, nullptr) << ErrnoName(errno);
  }
  // The SRQ's real size: what ibv_query_srq reports, or, where the query is unsupported,
  // what ibv_create_srq handed back.
  uint32_t ActualMaxWr() {
    ibv_srq_attr attr{};
    return ibv_query_srq(srq_.get(), &attr) == 0 ? attr.max_wr : granted_.attr.max_wr;
  }
  void ArmAt(uint32_t limit) {
    ibv_srq_attr attr{};
    attr.srq_limit = limit;
    ASSERT_THAT(ibv_modify_srq(srq_.get(), &attr, IBV_SRQ_LIMIT), ErrnoIs(0));
  }
  PdPtr pd_;
  ibv_srq_init_attr granted_{};
  SrqPtr srq_;
};

RDMACHECK_ABOUT(SrqTest, QueryReportsSizeAndUnarmedLimit,
                "ibv_query_srq on a new SRQ (16 WRs, 1 SGE, srq_limit 0) returns 0 and reports at least 16 WRs, at "
                "least 1 SGE and srq_limit 0 (not armed)",
                "ibv_query_srq(3): \"srq_limit 0: the limit event is not armed\"; IBTA Vol 1 ch. 11 (Query SRQ)",
                Cap::kSrq);
TEST_F(SrqTest, QueryReportsSizeAndUnarmedLimit) {
  ibv_srq_attr attr{};
  ASSERT_THAT(ibv_query_srq(srq_.get(), &attr), ErrnoIs(0));
  EXPECT_GE(attr.max_wr, 16u);
  EXPECT_GE(attr.max_sge, 1u);
  EXPECT_EQ(attr.srq_limit, 0u);
}

RDMACHECK_ABOUT(SrqTest, CreateReportsActualSize,
                "the sizes ibv_create_srq writes back into srq_init_attr are the SRQ's actual ones: ibv_query_srq "
                "reports the same max_wr and max_sge",
                "ibv_create_srq(3): \"update the srq_init_attr struct on return to the actual values of the SRQ\"",
                Cap::kSrq);
TEST_F(SrqTest, CreateReportsActualSize) {
  ibv_srq_attr attr{};
  ASSERT_THAT(ibv_query_srq(srq_.get(), &attr), ErrnoIs(0));
  EXPECT_EQ(granted_.attr.max_wr, attr.max_wr) << "ibv_create_srq reported another size than the SRQ has";
  EXPECT_EQ(granted_.attr.max_sge, attr.max_sge);
}

RDMACHECK_ABOUT(SrqTest, ArmLimit, "ibv_modify_srq(IBV_SRQ_LIMIT = 4) on an SRQ of 16 WRs returns 0",
                "ibv_modify_srq(3); IBTA Vol 1 ch. 11 (Modify SRQ: arm the limit)", Cap::kSrq);
TEST_F(SrqTest, ArmLimit) { ArmAt(4); }

RDMACHECK_ABOUT(SrqTest, QueryReportsArmedLimit, "after arming the limit at 4, ibv_query_srq reports srq_limit 4",
                "ibv_query_srq(3), ibv_modify_srq(3)", Cap::kSrq);
TEST_F(SrqTest, QueryReportsArmedLimit) {
  ArmAt(4);
  ibv_srq_attr attr{};
  ASSERT_THAT(ibv_query_srq(srq_.get(), &attr), ErrnoIs(0));
  EXPECT_EQ(attr.srq_limit, 4u);
}

RDMACHECK_ABOUT(SrqTest, ArmLimitBeyondSizeFailsEinval,
                "ibv_modify_srq with srq_limit larger than the SRQ (its actual max_wr + 1) fails with EINVAL",
                "ibv_modify_srq(3); IBTA Vol 1 ch. 11 (Modify SRQ)", Cap::kSrq);
TEST_F(SrqTest, ArmLimitBeyondSizeFailsEinval) {
  ibv_srq_attr attr{};
  attr.srq_limit = ActualMaxWr() + 1;
  EXPECT_THAT(ibv_modify_srq(srq_.get(), &attr, IBV_SRQ_LIMIT), ErrnoIs(kInvalidSrqAttrErrno));
}

RDMACHECK_ABOUT(SrqTest, Resize, "ibv_modify_srq(IBV_SRQ_MAX_WR = 64) grows the SRQ: ibv_query_srq reports >= 64",
                "ibv_modify_srq(3); IBTA Vol 1 ch. 11 (resize)", Cap::kSrq, Cap::kSrqResize);
TEST_F(SrqTest, Resize) {
  ibv_srq_attr attr{};
  attr.max_wr = 64;
  ASSERT_THAT(ibv_modify_srq(srq_.get(), &attr, IBV_SRQ_MAX_WR), ErrnoIs(0));
  attr = {};
  ASSERT_THAT(ibv_query_srq(srq_.get(), &attr), ErrnoIs(0));
  EXPECT_GE(attr.max_wr, 64u);
}

RDMACHECK_ABOUT(SrqTest, DestroyWithQpAttachedFailsBusy,
                "ibv_destroy_srq refuses with EBUSY while a QP receives through the SRQ, and succeeds once the QP is "
                "gone",
                "ibv_create_srq(3) ibv_destroy_srq; IBTA Vol 1 ch. 11 (Destroy SRQ)", Cap::kSrq, Cap::kRcQp);
TEST_F(SrqTest, DestroyWithQpAttachedFailsBusy) {
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16));
  ibv_qp_init_attr init = QpInitAttr(IBV_QPT_RC, cq.get());
  init.srq = srq_.get();
  init.cap.max_recv_wr = init.cap.max_recv_sge = 0;
  ASSERT_OK_AND_ASSIGN(QpPtr qp, CreateQp(pd_.get(), init));
  const int rc = ibv_destroy_srq(srq_.get());
  if (rc == 0) srq_.release();  // destroyed after all
  EXPECT_THAT(rc, ErrnoIs(EBUSY));
  qp.reset();
  if (srq_) {
    EXPECT_THAT(ibv_destroy_srq(srq_.release()), ErrnoIs(0));
  }
}

}  // namespace
}  // namespace rdmacheck
