// Polling and arming completion queues: what ibv_poll_cq returns on an empty CQ and for a
// batch larger than what is there, arming in both modes, and what an overrun reports.
#include <infiniband/verbs.h>

#include <string>
#include <vector>

#include "harness/completion.h"
#include "harness/connection/cm_steps.h"
#include "testing/async_events.h"
#include "testing/completion_source.h"
#include "testing/device_test.h"
#include "testing/in_child.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

class CqPollTest : public DeviceTest {};

RDMACHECK_ABOUT(CqPollTest, EmptyCqPollsZero, "ibv_poll_cq on a CQ without completions returns 0 (not an error)",
                "ibv_poll_cq(3): \"0 if the CQ is empty\"; IBTA Vol 1 ch. 11 (Poll for Completion)");
TEST_F(CqPollTest, EmptyCqPollsZero) {
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16));
  std::vector<ibv_wc> wcs(8);
  EXPECT_EQ(ibv_poll_cq(cq.get(), static_cast<int>(wcs.size()), wcs.data()), 0);
}

RDMACHECK_ABOUT(CqPollTest, BatchLargerThanAvailableReturnsWhatIsThere,
                "with 4 completions on the CQ, ibv_poll_cq for 16 returns exactly those 4, in posting order, and "
                "a second poll returns 0",
                "ibv_poll_cq(3): returns the number of completions found, up to num_entries; IBTA Vol 1 10.8",
                Cap::kRcQp);
TEST_F(CqPollTest, BatchLargerThanAvailableReturnsWhatIsThere) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(CompletionSourceOptions(8)));
  ASSERT_OK(FillRecvCq(pair.remote(), pair.local(), 4));
  std::vector<ibv_wc> wcs(16);
  ibv_cq* cq = pair.local().recv_cq();
  ASSERT_EQ(ibv_poll_cq(cq, static_cast<int>(wcs.size()), wcs.data()), 4);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(wcs[i].status, IBV_WC_SUCCESS) << DescribeWc(wcs[i]);
    EXPECT_EQ(wcs[i].opcode, IBV_WC_RECV) << DescribeWc(wcs[i]);
    EXPECT_EQ(wcs[i].wr_id, kFirstWrId + i) << "receive completions out of posting order";
  }
  EXPECT_EQ(ibv_poll_cq(cq, static_cast<int>(wcs.size()), wcs.data()), 0);
}

RDMACHECK_ABOUT(CqPollTest, PollForZeroEntriesConsumesNothing,
                "ibv_poll_cq with num_entries 0 returns 0 and leaves the waiting completion for the next poll",
                "ibv_poll_cq(3)", Cap::kRcQp);
TEST_F(CqPollTest, PollForZeroEntriesConsumesNothing) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(CompletionSourceOptions(4)));
  ASSERT_OK(FillRecvCq(pair.remote(), pair.local(), 1));
  ibv_wc wc{};
  EXPECT_EQ(ibv_poll_cq(pair.local().recv_cq(), 0, &wc), 0);
  ASSERT_EQ(ibv_poll_cq(pair.local().recv_cq(), 1, &wc), 1);
  EXPECT_EQ(wc.wr_id, kFirstWrId);
}

RDMACHECK_ABOUT(CqPollTest, RefusedDestroyLeavesTheCqWorking,
                "an ibv_destroy_cq refused with EBUSY (a QP still uses the CQ) leaves the CQ as it was: polling it "
                "returns 0 and does not kill the caller, and a completion that arrives afterwards is polled from it",
                "ibv_create_cq(3) ibv_destroy_cq: \"EBUSY: one or more QPs still associated\" (a refused verb "
                "destroys nothing); IBTA Vol 1 11.2.7.3 (Destroy CQ)",
                Cap::kRcQp);
TEST_F(CqPollTest, RefusedDestroyLeavesTheCqWorking) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(CompletionSourceOptions(4)));
  ibv_cq* cq = pair.local().recv_cq();
  // Refused: the pair's QP uses the CQ (a device that destroys it anyway leaves the pair a
  // freed CQ: CqCreateTest.DestroyWhileUsedByQpFailsBusy names that failure).
  ASSERT_THAT(ibv_destroy_cq(cq), ErrnoIs(EBUSY));
  // A provider that takes the CQ apart before the kernel refuses kills whoever polls it
  // next: the poll runs in a child, so that is this test's failure, not the suite's end.
  absl::StatusOr<int64_t> polled = CallInChild(
      [&]() -> int64_t {
        ibv_wc wc{};
        return ibv_poll_cq(cq, 1, &wc);
      },
      DefaultWait());
  ASSERT_THAT(polled, IsOk()) << "ibv_poll_cq on the CQ whose destroy was refused must return, not kill the caller";
  EXPECT_EQ(*polled, 0) << "the empty CQ whose destroy was refused";
  ASSERT_OK(FillRecvCq(pair.remote(), pair.local(), 1));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, PollCompletion(cq));
  EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << DescribeWc(wc);
  EXPECT_EQ(wc.wr_id, kFirstWrId) << DescribeWc(wc);
}

struct ArmMode {
  const char* name;
  int solicited_only;
};

class CqArmTest : public DeviceTest, public ::testing::WithParamInterface<ArmMode> {};

RDMACHECK_ABOUT(CqArmTest, ArmAndRearmSucceed,
                "ibv_req_notify_cq returns 0 for solicited_only 0 (any completion) and 1 (solicited only), and "
                "arming an already armed CQ again is allowed",
                "ibv_req_notify_cq(3); IBTA Vol 1 ch. 11 (Request Completion Notification)");
TEST_P(CqArmTest, ArmAndRearmSucceed) {
  ASSERT_OK_AND_ASSIGN(CompChannelPtr channel, CreateCompChannel(context()));
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16, channel.get()));
  EXPECT_THAT(ibv_req_notify_cq(cq.get(), GetParam().solicited_only), ErrnoIs(0));
  EXPECT_THAT(ibv_req_notify_cq(cq.get(), GetParam().solicited_only), ErrnoIs(0));
}

INSTANTIATE_TEST_SUITE_P(Modes, CqArmTest, ::testing::Values(ArmMode{"AnyCompletion", 0}, ArmMode{"SolicitedOnly", 1}),
                         [](const ::testing::TestParamInfo<ArmMode>& info) { return std::string(info.param.name); });

RDMACHECK_ABOUT(CqPollTest, OverrunRaisesCqErrEvent,
                "a receive completion that finds the CQ full raises the affiliated async event IBV_EVENT_CQ_ERR for "
                "that CQ",
                "IBTA Vol 1 ch. 11 (CQ error: overrun); ibv_get_async_event(3) IBV_EVENT_CQ_ERR", Cap::kRcQp);
TEST_F(CqPollTest, OverrunRaisesCqErrEvent) {
  // The receiving side (the active one: in this process in every mode) uses a CQ of one
  // entry that nobody polls.
  ASSERT_OK_AND_ASSIGN(ibv_context * pair_context, PairContext(context(), selection(), connect_method()));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(pair_context));
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(pair_context, 1));
  const int overflowing = cq->cqe + 1;
  RecordProperty("granted_cqe", cq->cqe);
  PairOptions options = CompletionSourceOptions(static_cast<uint32_t>(overflowing));
  options.active_shared = {pd.get(), nullptr, cq.get()};
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(SendMessages(pair.remote(), pair.local(), overflowing));
  ibv_cq* full = cq.get();
  EXPECT_OK(WaitForAsyncEvent(pair_context, IBV_EVENT_CQ_ERR,
                              [full](const ibv_async_event& e) { return e.element.cq == full; }));
}

}  // namespace
}  // namespace rdmacheck
