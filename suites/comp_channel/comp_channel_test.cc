// Completion channels: their lifetime, and when they deliver an event. An event is the
// answer to one arming (ibv_req_notify_cq): it arrives after a matching completion, only
// once per arming, and names the CQ it is for.
#include <fcntl.h>
#include <infiniband/verbs.h>
#include <poll.h>

#include <cerrno>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "harness/completion.h"
#include "testing/async_events.h"
#include "testing/completion_source.h"
#include "testing/device_test.h"
#include "testing/quiet_window.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// How long to watch for an event that must not come: an event is produced when the
// completion is added, so once the completion has been polled a window sized from the
// device's completion latency is enough (testing/quiet_window.h).
QuietWindow QuietPeriod() { return QuietWindowForCompletions(); }

// True when `channel`'s fd becomes readable (an event waits) within `wait`. A poll(2) error
// is a failure of the test, not "no event".
bool EventPending(ibv_comp_channel* channel, absl::Duration wait) {
  pollfd p{channel->fd, POLLIN, 0};
  int rc;
  do {
    rc = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(wait)));
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) ADD_FAILURE() << "poll(2) on the completion channel's fd failed: " << ErrnoName(errno);
  return rc > 0;
}

class CompChannelTest : public DeviceTest {};

RDMACHECK_ABOUT(CompChannelTest, CreateAndDestroy,
                "ibv_create_comp_channel returns a channel of this context with a valid fd; "
                "ibv_destroy_comp_channel returns 0",
                "ibv_create_comp_channel(3)");
TEST_F(CompChannelTest, CreateAndDestroy) {
  ibv_comp_channel* channel = ibv_create_comp_channel(context());
  ASSERT_NE(channel, nullptr) << ErrnoName(errno);
  EXPECT_EQ(channel->context, context());
  EXPECT_GE(fcntl(channel->fd, F_GETFD), 0) << "the channel's fd is not an open file descriptor";
  EXPECT_THAT(ibv_destroy_comp_channel(channel), ErrnoIs(0));
}

RDMACHECK_ABOUT(CompChannelTest, DestroyWithCqAttachedFailsBusy,
                "ibv_destroy_comp_channel refuses with EBUSY while a CQ uses the channel, and succeeds once the CQ "
                "is destroyed",
                "ibv_create_comp_channel(3): \"EBUSY: one or more CQs still associated\"");
TEST_F(CompChannelTest, DestroyWithCqAttachedFailsBusy) {
  ASSERT_OK_AND_ASSIGN(CompChannelPtr channel, CreateCompChannel(context()));
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16, channel.get()));
  const int rc = ibv_destroy_comp_channel(channel.get());
  if (rc == 0) channel.release();  // destroyed after all: the CQ's channel is gone
  EXPECT_THAT(rc, ErrnoIs(EBUSY));
  cq.reset();
  if (channel) {
    EXPECT_THAT(ibv_destroy_comp_channel(channel.release()), ErrnoIs(0));
  }
}

RDMACHECK_ABOUT(CompChannelTest, NonBlockingFdReportsEagain,
                "with O_NONBLOCK on the channel fd, ibv_get_cq_event returns -1 with errno EAGAIN when no event waits",
                "ibv_get_cq_event(3) (non-blocking use via fcntl)");
TEST_F(CompChannelTest, NonBlockingFdReportsEagain) {
  ASSERT_OK_AND_ASSIGN(CompChannelPtr channel, CreateCompChannel(context()));
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16, channel.get()));
  ScopedNonBlocking non_blocking(channel->fd);
  ASSERT_TRUE(non_blocking.ok()) << ErrnoName(errno);
  ibv_cq* event_cq = nullptr;
  void* event_context = nullptr;
  errno = 0;
  EXPECT_EQ(ibv_get_cq_event(channel.get(), &event_cq, &event_context), -1);
  EXPECT_THAT(errno, ErrnoIs(EAGAIN));
}

// The tests below need completions: an RC pair whose endpoints each have a channel.
// pair.local() receives (its CQ and channel are the ones under test), pair.remote() sends.
class CompChannelEventTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pair_, CreatePair(CompletionSourceOptions(32)));
  }

  Endpoint& sender() { return pair_->remote(); }
  LocalEndpoint& receiver() { return pair_->local(); }
  ibv_cq* recv_cq() { return receiver().recv_cq(); }
  ibv_comp_channel* channel() { return receiver().channel(); }

  // Sends `count` messages to the receiver and polls their receive (and send) completions.
  void SendAndPoll(int count, unsigned flags = 0, uint64_t first_wr_id = kFirstWrId) {
    ASSERT_OK(SendMessages(sender(), receiver(), count, IBV_SEND_SIGNALED | flags, 0, first_wr_id));
    ASSERT_OK(sender().PollSends(count).status());
    ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wcs, PollCompletions(recv_cq(), count));
    for (const ibv_wc& wc : wcs) EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << DescribeWc(wc);
  }

  absl::optional<ConnectedPair> pair_;
};

RDMACHECK_ABOUT(CompChannelEventTest, EventAfterCompletionWhenArmed,
                "after ibv_req_notify_cq(cq, 0), a completion on the CQ produces one event on its channel naming "
                "that CQ",
                "ibv_req_notify_cq(3), ibv_get_cq_event(3); IBTA Vol 1 ch. 11", Cap::kRcQp);
TEST_F(CompChannelEventTest, EventAfterCompletionWhenArmed) {
  ASSERT_THAT(ibv_req_notify_cq(recv_cq(), 0), ErrnoIs(0));
  SendAndPoll(1);
  ASSERT_OK_AND_ASSIGN(ibv_cq * cq, WaitCqEvent(channel()));
  EXPECT_EQ(cq, recv_cq());
}

RDMACHECK_ABOUT(CompChannelEventTest, NoEventWhenNotArmed,
                "a completion on a CQ that was never armed produces no event on its channel",
                "ibv_req_notify_cq(3): events are generated only for an armed CQ; IBTA Vol 1 ch. 11", Cap::kRcQp);
TEST_F(CompChannelEventTest, NoEventWhenNotArmed) {
  SendAndPoll(1);
  const QuietWindow quiet = QuietPeriod();
  EXPECT_FALSE(EventPending(channel(), quiet.duration)) << "an event arrived for a CQ that was not armed " << quiet;
}

RDMACHECK_ABOUT(CompChannelEventTest, SolicitedOnlyIgnoresUnsolicited,
                "a CQ armed for solicited completions only gets no event for a receive of an unsolicited SEND",
                "ibv_req_notify_cq(3) solicited_only; IBTA Vol 1 ch. 11 and 9.2 (Solicited Event bit)",
                Cap::kRcQp);
TEST_F(CompChannelEventTest, SolicitedOnlyIgnoresUnsolicited) {
  ASSERT_THAT(ibv_req_notify_cq(recv_cq(), 1), ErrnoIs(0));
  SendAndPoll(2);
  const QuietWindow quiet = QuietPeriod();
  EXPECT_FALSE(EventPending(channel(), quiet.duration))
      << "an unsolicited receive raised a solicited-only event " << quiet;
}

RDMACHECK_ABOUT(CompChannelEventTest, SolicitedOnlyFiresOnSolicited,
                "a CQ armed for solicited completions only, after an unsolicited receive that raised nothing, gets "
                "an event for the receive of a SEND with IBV_SEND_SOLICITED",
                "ibv_req_notify_cq(3) solicited_only; ibv_post_send(3) IBV_SEND_SOLICITED; IBTA Vol 1 ch. 11",
                Cap::kRcQp);
TEST_F(CompChannelEventTest, SolicitedOnlyFiresOnSolicited) {
  ASSERT_THAT(ibv_req_notify_cq(recv_cq(), 1), ErrnoIs(0));
  SendAndPoll(1);
  SendAndPoll(1, IBV_SEND_SOLICITED, kFirstWrId + 1);
  ASSERT_OK_AND_ASSIGN(ibv_cq * cq, WaitCqEvent(channel()));
  EXPECT_EQ(cq, recv_cq());
}

RDMACHECK_ABOUT(CompChannelEventTest, OneEventPerArming,
                "three completions after one arming produce exactly one event",
                "ibv_req_notify_cq(3): the CQ is armed for the next completion only; IBTA Vol 1 ch. 11",
                Cap::kRcQp);
TEST_F(CompChannelEventTest, OneEventPerArming) {
  ASSERT_THAT(ibv_req_notify_cq(recv_cq(), 0), ErrnoIs(0));
  SendAndPoll(3);
  ASSERT_OK(WaitCqEvent(channel()).status());
  const QuietWindow quiet = QuietPeriod();
  EXPECT_FALSE(EventPending(channel(), quiet.duration)) << "a second event arrived for one arming " << quiet;
}

RDMACHECK_ABOUT(CompChannelEventTest, EventsAcknowledgedBeforeCqDestroy,
                "each event taken with ibv_get_cq_event counts in cq->comp_events_completed once acknowledged "
                "(ibv_ack_cq_events may ack several at once), which is what lets ibv_destroy_cq return",
                "ibv_get_cq_event(3): \"all completion events must be acknowledged before destroying the CQ\"",
                Cap::kRcQp);
TEST_F(CompChannelEventTest, EventsAcknowledgedBeforeCqDestroy) {
  const uint32_t acked_before = recv_cq()->comp_events_completed;
  // Non-blocking: an event that poll(2) promised and ibv_get_cq_event cannot take fails at
  // once instead of blocking the test.
  ScopedNonBlocking non_blocking(channel()->fd);
  ASSERT_TRUE(non_blocking.ok()) << ErrnoName(errno);
  // ibv_destroy_cq waits, without a bound, until every event taken is acknowledged: on
  // every early return (an event that never comes in round 1) the ones taken are
  // acknowledged here, so the test fails within its own wait instead of hanging until the
  // watchdog.
  unsigned taken = 0;
  absl::Cleanup acknowledge_taken = [&] {
    if (taken > 0) ibv_ack_cq_events(recv_cq(), taken);
  };
  for (int round = 0; round < 2; ++round) {
    ASSERT_THAT(ibv_req_notify_cq(recv_cq(), 0), ErrnoIs(0));
    SendAndPoll(1, 0, kFirstWrId + round);
    ASSERT_TRUE(EventPending(channel(), DefaultWait()))
        << "no event in round " << round << " within " << DefaultWait() << " of its completion";
    ibv_cq* cq = nullptr;
    void* cq_context = nullptr;
    ASSERT_EQ(ibv_get_cq_event(channel(), &cq, &cq_context), 0)
        << "poll(2) said the channel is readable, yet ibv_get_cq_event failed: " << ErrnoName(errno);
    ++taken;
    EXPECT_EQ(cq, recv_cq());
    EXPECT_EQ(cq_context, recv_cq()->cq_context);
  }
  EXPECT_EQ(recv_cq()->comp_events_completed, acked_before) << "events counted before being acknowledged";
  ibv_ack_cq_events(recv_cq(), taken);
  taken = 0;
  EXPECT_EQ(recv_cq()->comp_events_completed, acked_before + 2);
  pair_.reset();  // destroys the CQ: it would wait forever for an unacknowledged event
}

RDMACHECK_ABOUT(CompChannelEventTest, ManyCqsOnOneChannelDeliverToTheRightCq,
                "with five armed CQs on one channel, a send completion raises an event naming the send CQ and a "
                "receive completion one naming the receive CQ; the three idle CQs get none",
                "ibv_get_cq_event(3): the event returns the CQ it is for", Cap::kRcQp);
TEST_F(CompChannelEventTest, ManyCqsOnOneChannelDeliverToTheRightCq) {
  // The receiver has its send and receive CQs on one channel; three idle CQs join it.
  LocalEndpoint& local = receiver();
  ibv_comp_channel* shared = local.channel();
  std::vector<CqPtr> idle;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(local.context(), 4, shared));
    ASSERT_THAT(ibv_req_notify_cq(cq.get(), 0), ErrnoIs(0));
    idle.push_back(std::move(cq));
  }
  ASSERT_THAT(ibv_req_notify_cq(local.send_cq(), 0), ErrnoIs(0));
  ASSERT_THAT(ibv_req_notify_cq(local.recv_cq(), 0), ErrnoIs(0));

  // local -> peer: a completion on local's send CQ only.
  ASSERT_OK(SendMessages(local, sender(), 1));
  ASSERT_OK(PollCompletions(local.send_cq(), 1).status());
  ASSERT_OK(sender().PollRecvs(1).status());
  ASSERT_OK_AND_ASSIGN(ibv_cq * first, WaitCqEvent(shared));
  EXPECT_EQ(first, local.send_cq());

  // peer -> local: a completion on local's receive CQ.
  ASSERT_OK(SendMessages(sender(), local, 1, IBV_SEND_SIGNALED, 0, /*first_wr_id=*/50));
  ASSERT_OK(PollCompletions(local.recv_cq(), 1).status());
  ASSERT_OK(sender().PollSends(1).status());
  ASSERT_OK_AND_ASSIGN(ibv_cq * second, WaitCqEvent(shared));
  EXPECT_EQ(second, local.recv_cq());

  const QuietWindow quiet = QuietPeriod();
  EXPECT_FALSE(EventPending(shared, quiet.duration)) << "an idle CQ (or a CQ twice) got an event " << quiet;
}

RDMACHECK_ABOUT(CompChannelEventTest, NoSpuriousEventOverArmPollCycles,
                "over 10 cycles of arm, one completion, wait, acknowledge and poll, every wait yields exactly one "
                "event for the armed CQ and no event is left over",
                "ibv_req_notify_cq(3), ibv_get_cq_event(3)", Cap::kRcQp);
TEST_F(CompChannelEventTest, NoSpuriousEventOverArmPollCycles) {
  for (int cycle = 0; cycle < 10; ++cycle) {
    ASSERT_THAT(ibv_req_notify_cq(recv_cq(), 0), ErrnoIs(0));
    SendAndPoll(1, 0, kFirstWrId + cycle);
    ASSERT_OK_AND_ASSIGN(ibv_cq * cq, WaitCqEvent(channel()));
    EXPECT_EQ(cq, recv_cq()) << "cycle " << cycle;
    ASSERT_FALSE(EventPending(channel(), absl::ZeroDuration())) << "a second event in cycle " << cycle;
  }
  const QuietWindow quiet = QuietPeriod();
  EXPECT_FALSE(EventPending(channel(), quiet.duration)) << "an event arrived after the last cycle " << quiet;
}

RDMACHECK_ABOUT(CompChannelEventTest, DrainAfterArmLosesNoWakeUp,
                "with a non-blocking channel fd and poll(2), the loop arm -> drain the CQ -> wait -> acknowledge "
                "collects all 32 completions of messages sent in bursts: whenever completions are still "
                "outstanding after the drain, an event comes for them (a wait that times out is a lost wake-up)",
                "ibv_get_cq_event(3) EXAMPLES (re-arm, then poll the CQ again before waiting); "
                "ibv_req_notify_cq(3): the next completion after arming raises an event",
                Cap::kRcQp);
TEST_F(CompChannelEventTest, DrainAfterArmLosesNoWakeUp) {
  constexpr int kTotal = 32;
  constexpr int kBurst = 4;
  ScopedNonBlocking non_blocking(channel()->fd);
  ASSERT_TRUE(non_blocking.ok()) << ErrnoName(errno);
  for (int i = 0; i < kTotal; ++i) {
    ASSERT_OK(receiver().PostRecv(kFirstWrId + i, (i % 32) * kMessageBytes, kMessageBytes));
  }
  int sent = 0;
  int received = 0;
  int events = 0;
  while (received < kTotal) {
    for (int b = 0; b < kBurst && sent < kTotal; ++b, ++sent) {
      Slice slice{(sent % 32) * kMessageBytes, kMessageBytes};
      ASSERT_OK(sender().Post(SendRequest::Send(kFirstWrId + sent, {slice})));
    }
    ASSERT_THAT(ibv_req_notify_cq(recv_cq(), 0), ErrnoIs(0));  // arm first ...
    ibv_wc wcs[8];
    int n;
    while ((n = ibv_poll_cq(recv_cq(), 8, wcs)) > 0) {  // ... then drain: nothing slips between
      for (int i = 0; i < n; ++i) {
        EXPECT_EQ(wcs[i].status, IBV_WC_SUCCESS) << DescribeWc(wcs[i]);
        EXPECT_EQ(wcs[i].wr_id, kFirstWrId + received + i) << "receive completions out of order";
      }
      received += n;
    }
    ASSERT_EQ(n, 0) << "ibv_poll_cq failed: " << n;
    // Nothing outstanding: no completion can come, so there is nothing to wait for.
    if (received == sent) continue;
    // Completions are outstanding and the CQ is armed: they must raise an event.
    pollfd p{channel()->fd, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(DefaultWait())));
    ASSERT_GE(ready, 0) << ErrnoName(errno);
    ASSERT_EQ(ready, 1) << sent - received << " completions outstanding on an armed CQ and no event within "
                        << DefaultWait() << ": a wake-up was lost (" << received << " of " << kTotal
                        << " received, " << events << " events so far)";
    ibv_cq* cq = nullptr;
    void* cq_context = nullptr;
    ASSERT_EQ(ibv_get_cq_event(channel(), &cq, &cq_context), 0)
        << "poll(2) said the channel is readable, yet ibv_get_cq_event failed: " << ErrnoName(errno);
    EXPECT_EQ(cq, recv_cq());
    ibv_ack_cq_events(cq, 1);
    // Each event needs a completion after an arming: more events than completions are spurious.
    ASSERT_LE(++events, kTotal) << "more completion events than completions";
  }
  ASSERT_OK(sender().PollSends(kTotal).status());  // the send queue held all 32 at once
  RecordProperty("events", events);
}

}  // namespace
}  // namespace rdmacheck
