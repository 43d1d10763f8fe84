// Completion events under traffic: an armed CQ wakes the thread waiting on its completion
// channel, and a CQ armed for solicited events only wakes for a solicited message.
// The receiving side is local() (always in this process), so this runs in two-host mode too.
#include <infiniband/verbs.h>

#include <vector>

#include "testing/completion_matchers.h"
#include "testing/pair_test.h"
#include "testing/quiet_window.h"

namespace rdmacheck {
namespace {

class CqEventsTest : public PairTest {
 protected:
  PairOptions EventOptions() const {
    PairOptions o = Options();
    o.use_comp_channel = true;
    return o;
  }
};

RDMACHECK_ABOUT(CqEventsTest, ArrivalWakesTheChannel,
                "after ibv_req_notify_cq on the receive CQ, an arriving SEND makes the completion channel report "
                "that CQ, and the completion is there to poll; re-armed, the next SEND wakes it again",
                "IBTA Vol 1 11.4.2.2 (Request Completion Notification), 11.5 (completion event handler); "
                "ibv_get_cq_event(3), ibv_req_notify_cq(3)",
                Cap::kRcQp);
TEST_P(CqEventsTest, ArrivalWakesTheChannel) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(EventOptions()));
  LocalEndpoint& receiver = pair.local();
  ASSERT_OK(pair.remote().Fill({0, 64}, Pattern::Seeded(6)));
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round == 0 ? "first arming" : "re-armed");
    ASSERT_OK(receiver.PostRecv(round, round * 64, 64));
    ASSERT_EQ(ibv_req_notify_cq(receiver.recv_cq(), /*solicited_only=*/0), 0);
    ASSERT_OK(pair.remote().Post(SendRequest::Send(10 + round, {{0, 64}})));
    ASSERT_OK_AND_ASSIGN(ibv_cq * woke, WaitCqEvent(receiver.channel()));
    EXPECT_EQ(woke, receiver.recv_cq());
    ASSERT_OK_AND_ASSIGN(ibv_wc recv, receiver.PollRecv());
    EXPECT_THAT(recv, CompletionIs(RecvCompletion(round, receiver.qp_num(), 64)));
    EXPECT_OK(receiver.Check({round * 64u, 64}, Pattern::Seeded(6)));
    ASSERT_OK(pair.remote().PollSend().status());
  }
}

RDMACHECK_ABOUT(CqEventsTest, SendCompletionWakesTheChannel,
                "an armed send CQ reports an event on the completion channel when a signaled SEND completes",
                "IBTA Vol 1 11.4.2.2; ibv_req_notify_cq(3)", Cap::kRcQp);
TEST_P(CqEventsTest, SendCompletionWakesTheChannel) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(EventOptions()));
  LocalEndpoint& sender = pair.local();
  ASSERT_OK(pair.remote().PostRecv(1, 0, 64));
  ASSERT_EQ(ibv_req_notify_cq(sender.send_cq(), 0), 0);
  ASSERT_OK(sender.Post(SendRequest::Send(2, {{0, 64}})));
  ASSERT_OK_AND_ASSIGN(ibv_cq * woke, WaitCqEvent(sender.channel()));
  EXPECT_EQ(woke, sender.send_cq());
  ASSERT_OK_AND_ASSIGN(ibv_wc send, sender.PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(2, sender.qp_num())));
  ASSERT_OK(pair.remote().PollRecv().status());
}

RDMACHECK_ABOUT(CqEventsTest, SolicitedOnlyWakesOnlyForSolicited,
                "a receive CQ armed for solicited completions only stays quiet for an unsolicited SEND and wakes "
                "for a SEND with IBV_SEND_SOLICITED; both messages are delivered",
                "IBTA Vol 1 11.4.2.2 (solicited notification), 9.2.3 (SE bit); ibv_req_notify_cq(3) solicited_only",
                Cap::kRcQp);
TEST_P(CqEventsTest, SolicitedOnlyWakesOnlyForSolicited) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(EventOptions()));
  LocalEndpoint& receiver = pair.local();
  ASSERT_OK(receiver.PostRecv(1, 0, 64));
  ASSERT_OK(receiver.PostRecv(2, 64, 64));
  ASSERT_EQ(ibv_req_notify_cq(receiver.recv_cq(), /*solicited_only=*/1), 0);

  ASSERT_OK(pair.remote().Post(SendRequest::Send(11, {{0, 64}})));
  ASSERT_OK(pair.remote().PollSend().status());  // delivered and acknowledged by now
  const QuietWindow quiet = QuietWindowForCompletions();
  absl::StatusOr<ibv_cq*> early = WaitCqEvent(receiver.channel(), quiet.duration);
  EXPECT_FALSE(early.ok()) << "an unsolicited SEND woke a CQ armed for solicited events only " << quiet;

  ASSERT_OK(pair.remote().Post(SendRequest::Send(12, {{0, 64}}).WithFlags(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED)));
  ASSERT_OK_AND_ASSIGN(ibv_cq * woke, WaitCqEvent(receiver.channel()));
  EXPECT_EQ(woke, receiver.recv_cq());
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> recvs, receiver.PollRecvs(2));
  EXPECT_THAT(recvs[0], CompletionIs(RecvCompletion(1, receiver.qp_num(), 64)));
  EXPECT_THAT(recvs[1], CompletionIs(RecvCompletion(2, receiver.qp_num(), 64)));
  ASSERT_OK(pair.remote().PollSend().status());
}

INSTANTIATE_TEST_SUITE_P(Connect, CqEventsTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
