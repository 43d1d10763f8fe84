// Creating and destroying completion queues: the sizes a device must accept and refuse,
// completion channels, completion vectors, and the rule that a CQ outlives its QPs.
#include <infiniband/verbs.h>

#include <algorithm>
#include <cerrno>
#include <string>

#include "testing/device_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// IBTA Vol 1 ch. 11 (Create CQ) fails a size the CI cannot provide with "invalid CQ size";
// Linux reports that as EINVAL (uverbs and every driver's create_cq check).
constexpr int kInvalidCqSizeErrno = EINVAL;

// A CQ size computed from the device's attributes, with a readable name.
struct CqSize {
  const char* name;
  int (*cqe)(const ibv_device_attr& attr);
};

std::string SizeName(const ::testing::TestParamInfo<CqSize>& info) { return info.param.name; }

class CqSizeTest : public DeviceTest, public ::testing::WithParamInterface<CqSize> {};

RDMACHECK_ABOUT(CqSizeTest, CreateAccepts,
                "ibv_create_cq succeeds for 1, a typical 256 and max_cqe entries, and the CQ holds at least the "
                "requested number (cq->cqe >= cqe)",
                "IBTA Vol 1 ch. 11 (Create CQ: the CI may round the size up); ibv_create_cq(3)");
TEST_P(CqSizeTest, CreateAccepts) {
  const int cqe = GetParam().cqe(device_attr().orig_attr);
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), cqe));
  EXPECT_GE(cq->cqe, cqe);
  EXPECT_EQ(cq->context, context());
  RecordProperty("granted_cqe", cq->cqe);
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, CqSizeTest,
    ::testing::Values(CqSize{"One", [](const ibv_device_attr&) { return 1; }},
                      CqSize{"Typical256", [](const ibv_device_attr& a) { return std::min(256, a.max_cqe); }},
                      CqSize{"MaxCqe", [](const ibv_device_attr& a) { return a.max_cqe; }}),
    SizeName);

class CqInvalidSizeTest : public DeviceTest, public ::testing::WithParamInterface<CqSize> {};

RDMACHECK_ABOUT(CqInvalidSizeTest, CreateFailsEinval,
                "ibv_create_cq with 0, -1 or max_cqe+1 entries returns NULL with errno EINVAL",
                "IBTA Vol 1 ch. 11 (invalid CQ size); ibv_create_cq(3); ibv_query_device(3) max_cqe");
TEST_P(CqInvalidSizeTest, CreateFailsEinval) {
  const int cqe = GetParam().cqe(device_attr().orig_attr);
  errno = 0;
  CqPtr cq(ibv_create_cq(context(), cqe, nullptr, nullptr, 0));
  EXPECT_EQ(cq, nullptr) << "a CQ of " << cqe << " entries was created (cqe=" << (cq ? cq->cqe : 0) << ")";
  if (!cq) {
    EXPECT_THAT(errno, ErrnoIs(kInvalidCqSizeErrno));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, CqInvalidSizeTest,
    ::testing::Values(CqSize{"Zero", [](const ibv_device_attr&) { return 0; }},
                      CqSize{"MinusOne", [](const ibv_device_attr&) { return -1; }},
                      CqSize{"MaxCqePlusOne", [](const ibv_device_attr& a) { return a.max_cqe + 1; }}),
    SizeName);

class CqCreateTest : public DeviceTest {};

RDMACHECK_ABOUT(CqCreateTest, WithoutCompletionChannel,
                "a CQ created without a completion channel has cq->channel == NULL", "ibv_create_cq(3)");
TEST_F(CqCreateTest, WithoutCompletionChannel) {
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16));
  EXPECT_EQ(cq->channel, nullptr);
}

RDMACHECK_ABOUT(CqCreateTest, WithCompletionChannel,
                "a CQ created on a completion channel records it in cq->channel and can be armed",
                "ibv_create_cq(3), ibv_req_notify_cq(3)");
TEST_F(CqCreateTest, WithCompletionChannel) {
  ASSERT_OK_AND_ASSIGN(CompChannelPtr channel, CreateCompChannel(context()));
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16, channel.get()));
  EXPECT_EQ(cq->channel, channel.get());
  EXPECT_THAT(ibv_req_notify_cq(cq.get(), 0), ErrnoIs(0));
}

// A completion vector computed from the context's num_comp_vectors.
struct CompVector {
  const char* name;
  int (*vector)(const ibv_context* context);
};

class CqCompVectorTest : public DeviceTest, public ::testing::WithParamInterface<CompVector> {};

RDMACHECK_ABOUT(CqCompVectorTest, Accepted,
                "ibv_create_cq accepts completion vector 0 and the last one (num_comp_vectors - 1)",
                "ibv_create_cq(3): comp_vector in [0, context->num_comp_vectors)");
TEST_P(CqCompVectorTest, Accepted) {
  ASSERT_GT(context()->num_comp_vectors, 0) << "the context reports no completion vector";
  const int vector = GetParam().vector(context());
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16, nullptr, vector));
  RecordProperty("num_comp_vectors", context()->num_comp_vectors);
}

INSTANTIATE_TEST_SUITE_P(Vectors, CqCompVectorTest,
                         ::testing::Values(CompVector{"First", [](const ibv_context*) { return 0; }},
                                           CompVector{"Last",
                                                      [](const ibv_context* c) { return c->num_comp_vectors - 1; }}),
                         [](const ::testing::TestParamInfo<CompVector>& info) { return std::string(info.param.name); });

class CqBadCompVectorTest : public DeviceTest, public ::testing::WithParamInterface<CompVector> {};

RDMACHECK_ABOUT(CqBadCompVectorTest, CreateFailsEinval,
                "ibv_create_cq with comp_vector num_comp_vectors (one past the last) or -1 fails with EINVAL",
                "ibv_create_cq(3); Linux ib_uverbs create_cq checks comp_vector < num_comp_vectors");
TEST_P(CqBadCompVectorTest, CreateFailsEinval) {
  const int vector = GetParam().vector(context());
  errno = 0;
  CqPtr cq(ibv_create_cq(context(), 16, nullptr, nullptr, vector));
  EXPECT_EQ(cq, nullptr) << "a CQ on completion vector " << vector << " of " << context()->num_comp_vectors
                         << " was created";
  if (!cq) {
    EXPECT_THAT(errno, ErrnoIs(EINVAL));
  }
}

INSTANTIATE_TEST_SUITE_P(Vectors, CqBadCompVectorTest,
                         ::testing::Values(CompVector{"OnePastLast",
                                                      [](const ibv_context* c) { return c->num_comp_vectors; }},
                                           CompVector{"MinusOne", [](const ibv_context*) { return -1; }}),
                         [](const ::testing::TestParamInfo<CompVector>& info) { return std::string(info.param.name); });

RDMACHECK_ABOUT(CqCreateTest, DestroyWhileUsedByQpFailsBusy,
                "ibv_destroy_cq refuses with EBUSY while a QP uses the CQ, and succeeds once the QP is gone",
                "ibv_create_cq(3) / ibv_destroy_cq: \"EBUSY: one or more QPs still associated\"; IBTA Vol 1 ch. 11",
                Cap::kRcQp);
TEST_F(CqCreateTest, DestroyWhileUsedByQpFailsBusy) {
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16));
  ASSERT_OK_AND_ASSIGN(QpPtr qp, CreateQp(pd.get(), QpInitAttr(IBV_QPT_RC, cq.get())));
  const int rc = ibv_destroy_cq(cq.get());
  if (rc == 0) cq.release();  // destroyed after all: the QP now points at a freed CQ
  EXPECT_THAT(rc, ErrnoIs(EBUSY));
  qp.reset();
  if (cq) {
    EXPECT_THAT(ibv_destroy_cq(cq.release()), ErrnoIs(0));
  }
}

}  // namespace
}  // namespace rdmacheck
