// Send Queue Drain: RTS -> SQD with EN_SQD_ASYNC_NOTIFY lets the sends already started
// finish, raises IBV_EVENT_SQ_DRAINED, holds every other send (and any posted meanwhile) until
// SQD -> RTS, which resumes them in order.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "harness/completion.h"
#include "testing/quiet_window.h"
#include "suites/qp_state/pair_type_test.h"

namespace rdmacheck {
namespace {

class QpSqdTest : public PairTypeTest {};

// Waits for IBV_EVENT_SQ_DRAINED of `qp` on its context; other events are recorded and
// passed over.
absl::Status WaitSqDrained(ibv_qp* qp, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    absl::StatusOr<ibv_async_event> event = WaitAsyncEvent(qp->context, deadline - absl::Now());
    if (!event.ok()) return event.status();
    if (event->event_type == IBV_EVENT_SQ_DRAINED && event->element.qp == qp) return absl::OkStatus();
    Observe(absl::StrCat("async event while draining: ", ibv_event_type_str(event->event_type)));
  }
}

RDMACHECK_ABOUT(QpSqdTest, DrainRaisesSqDrainedHoldsSendsAndRtsResumes,
                "8 sends posted, then RTS->SQD with EN_SQD_ASYNC_NOTIFY: IBV_EVENT_SQ_DRAINED arrives, the sends "
                "completed by then are a successful prefix, a send posted in SQD does not run; SQD->RTS "
                "completes every send in order and the peer receives all of them",
                "IBTA Vol 1 10.3.1 (SQ Drain state), 11.6 (asynchronous events: Send Queue Drained); "
                "ibv_modify_qp(3) IBV_QP_EN_SQD_ASYNC_NOTIFY");
TEST_P(QpSqdTest, DrainRaisesSqDrainedHoldsSendsAndRtsResumes) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  LocalEndpoint& local = pair.local();
  Endpoint& remote = pair.remote();
  constexpr int kSends = 8;
  for (int i = 0; i <= kSends; ++i) ASSERT_OK(remote.PostRecv(100 + i, i * 64, 64));
  for (int i = 0; i < kSends; ++i) ASSERT_OK(local.Post(SendRequest::Send(i, {{i * 64u, 64}})));

  ASSERT_OK(ModifyQp(local.qp(), QpAttr().set_state(IBV_QPS_SQD).set_sq_draining(1)));
  // LocalEventWait(): the 8 small sends in flight need only their acknowledgements.
  ASSERT_OK(WaitSqDrained(local.qp(), LocalEventWait()));
  ASSERT_OK_AND_ASSIGN(ibv_qp_attr attr, QueryQp(local.qp()));
  ExpectReadBack(attr.qp_state, IBV_QPS_SQD);
  EXPECT_EQ(attr.sq_draining, 0) << "SQ_DRAINED was raised, yet ibv_query_qp says the drain goes on";

  // What finished before the drain completed: the first n sends, all successful.
  const QuietWindow quiet = QuietWindowForCompletions();
  std::vector<ibv_wc> done = DrainCompletions(local.send_cq(), quiet.duration);
  for (size_t i = 0; i < done.size(); ++i) {
    EXPECT_EQ(done[i].wr_id, i) << DescribeWc(done[i]);
    EXPECT_EQ(done[i].status, IBV_WC_SUCCESS) << DescribeWc(done[i]);
  }
  Observe(absl::StrCat(done.size(), " of ", kSends, " sends had completed when SQ_DRAINED arrived"));

  // IBTA: WRs may be posted in SQD; they wait for RTS.
  ASSERT_OK(local.Post(SendRequest::Send(kSends, {{kSends * 64u, 64}})));
  EXPECT_THAT(DrainCompletions(local.send_cq(), quiet.duration), ::testing::IsEmpty())
      << "a send ran while the QP was in SQD (watched " << quiet << ")";

  ASSERT_OK(ModifyQp(local.qp(), QpAttr().set_state(IBV_QPS_RTS)));
  const int remaining = kSends + 1 - static_cast<int>(done.size());
  // Said in words: the peer's receives below time out the same way, and an expectation
  // must tell the two apart.
  absl::StatusOr<std::vector<ibv_wc>> resumed = PollCompletions(local.send_cq(), remaining);
  ASSERT_TRUE(resumed.ok()) << "SQD->RTS did not resume the held sends: " << resumed.status();
  const std::vector<ibv_wc>& rest = *resumed;
  for (int i = 0; i < remaining; ++i) {
    EXPECT_EQ(rest[i].wr_id, done.size() + i) << DescribeWc(rest[i]);
    EXPECT_EQ(rest[i].status, IBV_WC_SUCCESS) << DescribeWc(rest[i]);
  }
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> received, remote.PollRecvs(kSends + 1));
  for (int i = 0; i <= kSends; ++i) {
    EXPECT_EQ(received[i].wr_id, static_cast<uint64_t>(100 + i)) << DescribeWc(received[i]);
    EXPECT_EQ(received[i].status, IBV_WC_SUCCESS) << DescribeWc(received[i]);
  }
}

INSTANTIATE_TEST_SUITE_P(Types, QpSqdTest, PairTypes(), PairTypeName);

}  // namespace
}  // namespace rdmacheck
