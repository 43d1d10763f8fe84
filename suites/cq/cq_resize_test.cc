// ibv_resize_cq: growing, shrinking, and the rule that a CQ cannot shrink below the
// completions it holds. Skipped where the device cannot resize CQs (capability cq_resize).
#include <infiniband/verbs.h>

#include <algorithm>
#include <vector>

#include "harness/completion.h"
#include "harness/connection/cm_steps.h"
#include "harness/verbs/factories.h"
#include "testing/completion_matchers.h"
#include "testing/completion_source.h"
#include "testing/device_test.h"

namespace rdmacheck {
namespace {

// IBTA Vol 1 ch. 11 (Resize CQ) fails a size below the number of entries on the CQ, or
// beyond the CI's maximum; Linux reports both as EINVAL.
constexpr int kInvalidResizeErrno = EINVAL;

class CqResizeTest : public DeviceTest {
 protected:
  // Polls `count` completions and checks they are the receives kFirstWrId.. in order.
  static void ExpectReceives(ibv_cq* cq, int count) {
    std::vector<ibv_wc> wcs(count + 1);
    ASSERT_EQ(ibv_poll_cq(cq, count + 1, wcs.data()), count);
    for (int i = 0; i < count; ++i) {
      EXPECT_EQ(wcs[i].status, IBV_WC_SUCCESS) << DescribeWc(wcs[i]);
      EXPECT_EQ(wcs[i].wr_id, kFirstWrId + i);
    }
  }
};

RDMACHECK_ABOUT(CqResizeTest, Grow, "ibv_resize_cq from 16 to 256 entries succeeds and cq->cqe becomes >= 256",
                "ibv_resize_cq(3); IBTA Vol 1 ch. 11 (Resize CQ)", Cap::kCqResize);
TEST_F(CqResizeTest, Grow) {
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16));
  const int target = std::min(256, device_attr().orig_attr.max_cqe);
  ASSERT_THAT(ibv_resize_cq(cq.get(), target), ErrnoIs(0));
  EXPECT_GE(cq->cqe, target);
}

RDMACHECK_ABOUT(CqResizeTest, Shrink,
                "ibv_resize_cq from 256 to 16 entries of an empty CQ succeeds and cq->cqe stays >= 16 (the device "
                "may keep more)",
                "ibv_resize_cq(3); IBTA Vol 1 ch. 11", Cap::kCqResize);
TEST_F(CqResizeTest, Shrink) {
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), std::min(256, device_attr().orig_attr.max_cqe)));
  ASSERT_THAT(ibv_resize_cq(cq.get(), 16), ErrnoIs(0));
  EXPECT_GE(cq->cqe, 16);
  RecordProperty("cqe_after_shrink", cq->cqe);
}

RDMACHECK_ABOUT(CqResizeTest, GrowKeepsWaitingCompletions,
                "growing a CQ that holds 4 completions keeps them: all 4 are polled afterwards, in order",
                "IBTA Vol 1 ch. 11 (Resize CQ preserves the CQ's contents); ibv_resize_cq(3)", Cap::kCqResize,
                Cap::kRcQp);
TEST_F(CqResizeTest, GrowKeepsWaitingCompletions) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(CompletionSourceOptions(8)));
  ASSERT_OK(FillRecvCq(pair.remote(), pair.local(), 4));
  ibv_cq* cq = pair.local().recv_cq();
  ASSERT_THAT(ibv_resize_cq(cq, cq->cqe * 2), ErrnoIs(0));
  ExpectReceives(cq, 4);
}

RDMACHECK_ABOUT(CqResizeTest, GrownCqHoldsTheNewDepth,
                "a CQ grown to four times its size holds twice its old size in receive completions nobody polled "
                "in between: all of them are polled afterwards, in order (a CQ whose cqe was raised without its "
                "ring growing overruns instead)",
                "IBTA Vol 1 ch. 11 (Resize CQ; CQ overrun); ibv_resize_cq(3)", Cap::kCqResize, Cap::kRcQp);
TEST_F(CqResizeTest, GrownCqHoldsTheNewDepth) {
  // The receiving side (the active one: in this process in every mode) uses the grown CQ.
  ASSERT_OK_AND_ASSIGN(ibv_context * pair_context, PairContext(context(), selection(), connect_method()));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(pair_context));
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(pair_context, 8));
  const int messages = 2 * cq->cqe + 1;  // more than the CQ held before it grew
  const int target = std::min(4 * cq->cqe, device_attr().orig_attr.max_cqe);
  if (target < messages) GTEST_SKIP() << "max_cqe " << device_attr().orig_attr.max_cqe << " leaves no room to grow";
  RecordProperty("cqe_before_growing", cq->cqe);
  ASSERT_THAT(ibv_resize_cq(cq.get(), target), ErrnoIs(0));
  ASSERT_GE(cq->cqe, target);
  PairOptions options = CompletionSourceOptions(static_cast<uint32_t>(messages));
  options.buffer_size = static_cast<size_t>(messages) * kMessageBytes;
  options.active_shared = {pd.get(), nullptr, cq.get()};
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(SendMessages(pair.remote(), pair.local(), messages));
  ASSERT_OK(pair.remote().PollSends(messages).status());  // every receive is on the CQ by now
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> recvs, pair.local().PollRecvs(messages));
  for (int i = 0; i < messages; ++i) {
    EXPECT_THAT(recvs[i], CompletionIs(RecvCompletion(kFirstWrId + i, pair.local().qp_num(), kMessageBytes)));
  }
}

RDMACHECK_ABOUT(CqResizeTest, BelowWaitingCompletionsFailsEinval,
                "resizing a CQ holding 8 completions to 4 entries fails with EINVAL and the 8 completions are still "
                "there",
                "IBTA Vol 1 ch. 11 (the new size must hold the entries present); ibv_resize_cq(3)", Cap::kCqResize,
                Cap::kRcQp);
TEST_F(CqResizeTest, BelowWaitingCompletionsFailsEinval) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(CompletionSourceOptions(8)));
  ASSERT_OK(FillRecvCq(pair.remote(), pair.local(), 8));
  ibv_cq* cq = pair.local().recv_cq();
  EXPECT_THAT(ibv_resize_cq(cq, 4), ErrnoIs(kInvalidResizeErrno));
  ExpectReceives(cq, 8);
}

RDMACHECK_ABOUT(CqResizeTest, BeyondMaxCqeFailsEinval,
                "ibv_resize_cq to max_cqe+1 fails with EINVAL and leaves the CQ usable",
                "IBTA Vol 1 ch. 11; ibv_query_device(3) max_cqe", Cap::kCqResize);
TEST_F(CqResizeTest, BeyondMaxCqeFailsEinval) {
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16));
  const int before = cq->cqe;
  EXPECT_THAT(ibv_resize_cq(cq.get(), device_attr().orig_attr.max_cqe + 1), ErrnoIs(kInvalidResizeErrno));
  EXPECT_EQ(cq->cqe, before);
  ibv_wc wc{};
  EXPECT_EQ(ibv_poll_cq(cq.get(), 1, &wc), 0);
}

RDMACHECK_ABOUT(CqResizeTest, ToZeroFailsEinval, "ibv_resize_cq to 0 entries fails with EINVAL",
                "IBTA Vol 1 ch. 11; ibv_resize_cq(3)", Cap::kCqResize);
TEST_F(CqResizeTest, ToZeroFailsEinval) {
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16));
  EXPECT_THAT(ibv_resize_cq(cq.get(), 0), ErrnoIs(kInvalidResizeErrno));
}

}  // namespace
}  // namespace rdmacheck
