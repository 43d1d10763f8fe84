// The Error state flushes: every WR outstanding when a QP enters ERR, and every WR posted
// while it is there, completes with IBV_WC_WR_FLUSH_ERR, in order. A flush is the local
// device's own doing, so the waits are LocalEventWait(), not a wire's DefaultWait().
#include "gmock/gmock.h"
#include "harness/completion.h"
#include "testing/quiet_window.h"
#include "suites/qp_state/pair_type_test.h"

namespace rdmacheck {
namespace {

class QpFlushTest : public PairTypeTest {};

RDMACHECK_ABOUT(QpFlushTest, ErrFlushesOutstandingReceives,
                "receives outstanding when the QP is moved to ERR complete with IBV_WC_WR_FLUSH_ERR, in the "
                "order they were posted, with their wr_ids",
                "IBTA Vol 1 10.3.1 (Error state), 11.4.2.1 (completion of flushed WRs); ibv_poll_cq(3)");
TEST_P(QpFlushTest, ErrFlushesOutstandingReceives) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  LocalEndpoint& local = pair.local();
  constexpr int kCount = 4;
  for (int i = 0; i < kCount; ++i) ASSERT_OK(local.PostRecv(100 + i, i * 256, 256));

  ASSERT_OK(ModifyQp(local.qp(), QpAttr().set_state(IBV_QPS_ERR)));

  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wcs, PollCompletions(local.recv_cq(), kCount, LocalEventWait()));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(wcs[i].status, IBV_WC_WR_FLUSH_ERR) << DescribeWc(wcs[i]);
    EXPECT_EQ(wcs[i].wr_id, static_cast<uint64_t>(100 + i)) << DescribeWc(wcs[i]);
  }
  // That the QP reads back ERR is QpLegalTransitionTest's (RC_*_to_ERR): here the flush alone.
}

RDMACHECK_ABOUT(QpFlushTest, RecvPostedInErrIsFlushed,
                "a receive posted while the QP is in ERR is completed with IBV_WC_WR_FLUSH_ERR",
                "IBTA Vol 1 10.3.1 (Error state: WRs posted to either queue are completed in error, flushed)");
TEST_P(QpFlushTest, RecvPostedInErrIsFlushed) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  LocalEndpoint& local = pair.local();
  ASSERT_OK(ModifyQp(local.qp(), QpAttr().set_state(IBV_QPS_ERR)));

  ASSERT_OK(local.PostRecv(/*wr_id=*/7, 0, 256));

  ASSERT_OK_AND_ASSIGN(ibv_wc recv, local.PollRecv(LocalEventWait()));
  EXPECT_EQ(recv.status, IBV_WC_WR_FLUSH_ERR) << DescribeWc(recv);
  EXPECT_EQ(recv.wr_id, 7u);
}

RDMACHECK_ABOUT(QpFlushTest, SendPostedInErrIsFlushed,
                "a send posted while the QP is in ERR is completed with IBV_WC_WR_FLUSH_ERR",
                "IBTA Vol 1 10.3.1 (Error state: WRs posted to either queue are completed in error, flushed)");
TEST_P(QpFlushTest, SendPostedInErrIsFlushed) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  LocalEndpoint& local = pair.local();
  ASSERT_OK(ModifyQp(local.qp(), QpAttr().set_state(IBV_QPS_ERR)));

  ASSERT_OK(local.Post(SendRequest::Send(/*wr_id=*/8, {{256, 64}})));

  ASSERT_OK_AND_ASSIGN(ibv_wc send, local.PollSend(LocalEventWait()));
  EXPECT_EQ(send.status, IBV_WC_WR_FLUSH_ERR) << DescribeWc(send);
  EXPECT_EQ(send.wr_id, 8u);
}

INSTANTIATE_TEST_SUITE_P(Types, QpFlushTest, PairTypes(), PairTypeName);

class QpFlushRcTest : public QpStateTest {};

RDMACHECK_ABOUT(QpFlushRcTest, ErrFlushesOutstandingSends,
                "RC sends held outstanding (the peer has no receive posted and retries RNR forever) complete "
                "with IBV_WC_WR_FLUSH_ERR, in order, when the sender is moved to ERR",
                "IBTA Vol 1 10.3.1 (Error state), 9.7.5.2.8 (RNR NAK, rnr_retry 7 = infinite)", Cap::kRcQp,
                Cap::kRnrRetry);  // iWARP has no RNR: RFC 5040 makes a SEND without a receive fatal
TEST_F(QpFlushRcTest, ErrFlushesOutstandingSends) {
  PairOptions options;
  options.path.rnr_retry = 7;  // the sends wait for a receive that never comes
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  LocalEndpoint& local = pair.local();
  constexpr int kCount = 3;
  for (int i = 0; i < kCount; ++i) ASSERT_OK(local.Post(SendRequest::Send(200 + i, {{i * 64u, 64}})));
  const QuietWindow quiet = QuietWindowForCompletions();
  EXPECT_THAT(DrainCompletions(local.send_cq(), quiet.duration), ::testing::IsEmpty())
      << "a send completed although the peer has no receive posted (watched " << quiet << ")";

  ASSERT_OK(ModifyQp(local.qp(), QpAttr().set_state(IBV_QPS_ERR)));

  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wcs, PollCompletions(local.send_cq(), kCount, LocalEventWait()));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_EQ(wcs[i].status, IBV_WC_WR_FLUSH_ERR) << DescribeWc(wcs[i]);
    EXPECT_EQ(wcs[i].wr_id, static_cast<uint64_t>(200 + i)) << DescribeWc(wcs[i]);
  }
}

}  // namespace
}  // namespace rdmacheck
