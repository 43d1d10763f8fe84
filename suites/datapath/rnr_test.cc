// Receiver Not Ready: a SEND that finds no posted receive is NAKed and retried, rnr_retry
// times (7: without limit). iWARP has no RNR (a SEND without a receive is a fatal error
// there), so these need capability rnr_retry.
#include <infiniband/verbs.h>

#include "testing/completion_matchers.h"
#include "testing/pair_test.h"
#include "testing/qp_error_state.h"
#include "testing/quiet_window.h"

namespace rdmacheck {
namespace {

class RnrTest : public PairTest {};

RDMACHECK_ABOUT(RnrTest, NoRetryAndNoReceiveFails,
                "with rnr_retry 0 and no receive posted at the peer, a SEND completes with "
                "IBV_WC_RNR_RETRY_EXC_ERR, and the sender's QP then reads back ERR",
                "IBTA Vol 1 9.7.5.2.8 (RNR NAK and the RNR retry count), 10.3.1 (a completion error moves the QP to "
                "Error); ibv_modify_qp(3) rnr_retry; ibv_query_qp(3)",
                Cap::kRcQp, Cap::kRnrRetry);
TEST_P(RnrTest, NoRetryAndNoReceiveFails) {
  PairOptions options = Options();
  options.path.rnr_retry = 0;
  options.path.min_rnr_timer = 1;  // 0.01 ms: the NAK comes back at once
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Post(SendRequest::Send(1, {{0, 64}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(ErrorCompletion(1, pair.local().qp_num(), IBV_WC_RNR_RETRY_EXC_ERR)));
  ExpectErrorStateAfter(pair.local(), wc, "requester");
}

RDMACHECK_ABOUT(RnrTest, EndlessRetryWaitsForALateReceive,
                "with rnr_retry 7 (retry without limit), a SEND posted before the peer has a receive succeeds once "
                "the receive is posted, and the message arrives intact",
                "IBTA Vol 1 9.7.5.2.8 (rnr_retry 7 = infinite); ibv_modify_qp(3) rnr_retry", Cap::kRcQp,
                Cap::kRnrRetry);
TEST_P(RnrTest, EndlessRetryWaitsForALateReceive) {
  PairOptions options = Options();
  options.path.rnr_retry = 7;
  options.path.min_rnr_timer = 1;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, 256}, Pattern::Seeded(17)));
  ASSERT_OK(pair.local().Post(SendRequest::Send(1, {{0, 256}})));
  // Let the SEND meet the empty receive queue (and be NAKed) a few times first.
  const QuietWindow quiet = QuietWindowForCompletions();
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> early, pair.local().DrainSends(quiet.duration));
  EXPECT_TRUE(early.empty()) << "the SEND completed while the peer had no receive (watched " << quiet
                             << "): " << DescribeWc(early.front());
  ASSERT_OK(pair.remote().PostRecv(2, 0, 256));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(2, pair.remote().qp_num(), 256)));
  EXPECT_OK(pair.remote().Check({0, 256}, Pattern::Seeded(17)));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(1, pair.local().qp_num())));
}

INSTANTIATE_TEST_SUITE_P(Connect, RnrTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
