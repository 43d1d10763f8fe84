// Errors ibv_post_send / ibv_post_recv report immediately: the WR list is refused from the
// first WR that cannot be posted, `bad_wr` points at it, and the WRs before it are posted
// and complete normally (ibv_post_send(3), ibv_post_recv(3): "bad_wr ... the first work
// request that failed to be posted").
#include <infiniband/verbs.h>

#include <cerrno>
#include <string>
#include <vector>

#include "harness/completion.h"
#include "harness/status.h"
#include "harness/verbs/post.h"
#include "testing/completion_matchers.h"
#include "testing/pair_test.h"
#include "testing/quiet_window.h"

namespace rdmacheck {
namespace {

enum class Queue { kSend, kRecv };
std::string ParamName(Queue queue) { return queue == Queue::kSend ? "SendQueue" : "RecvQueue"; }

class PostErrorTest : public PairTestWith<Queue> {};

RDMACHECK_ABOUT(PostErrorTest, TooManySgesIsRefusedWithEinval,
                "a WR with one SGE more than the QP was created with (the granted max_send_sge / max_recv_sge) is "
                "refused by the post call with EINVAL and bad_wr pointing at it; the QP stays usable",
                "ibv_post_send(3), ibv_post_recv(3) (EINVAL: invalid value in wr); ibv_create_qp(3) (cap is the "
                "actual limit); IBTA Vol 1 11.4.1.1 (immediate errors of Post Send Request)",
                Cap::kRcQp);
TEST_P(PostErrorTest, TooManySgesIsRefusedWithEinval) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  const ibv_qp_cap& cap = pair.local().granted_cap();
  const uint32_t granted = param() == Queue::kSend ? cap.max_send_sge : cap.max_recv_sge;
  RecordProperty("granted_sges", static_cast<int>(granted));
  std::vector<ibv_sge> sges(granted + 1);
  for (size_t i = 0; i < sges.size(); ++i) sges[i] = pair.local().Sge(i * 8, 8);

  int rc = 0;
  bool bad_wr_is_it = false;
  if (param() == Queue::kSend) {
    ibv_send_wr wr = SendWr(1, sges.data(), static_cast<int>(sges.size()));
    ibv_send_wr* bad_wr = nullptr;
    rc = PostSend(pair.local().qp(), &wr, &bad_wr);
    bad_wr_is_it = bad_wr == &wr;
  } else {
    ibv_recv_wr wr = RecvWr(1, sges.data(), static_cast<int>(sges.size()));
    ibv_recv_wr* bad_wr = nullptr;
    rc = PostRecv(pair.local().qp(), &wr, &bad_wr);
    bad_wr_is_it = bad_wr == &wr;
  }
  EXPECT_THAT(rc, ErrnoIs(EINVAL));
  EXPECT_TRUE(bad_wr_is_it) << "bad_wr does not point at the refused WR";

  // Still usable: a SEND with one SGE arrives.
  ASSERT_OK(pair.remote().PostRecv(2, 0, 64));
  ASSERT_OK(pair.local().Post(SendRequest::Send(3, {{0, 64}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, pair.local().PollSend());
  EXPECT_THAT(sent, CompletionIs(SendCompletion(3, pair.local().qp_num())));
  // Said in words: the send's own wait above times out the same way.
  absl::StatusOr<ibv_wc> received = pair.remote().PollRecv();
  ASSERT_TRUE(received.ok()) << "the peer never received the SEND posted after the refused WR: "
                             << received.status();
  EXPECT_THAT(*received, CompletionIs(RecvCompletion(2, pair.remote().qp_num(), 64)));
}

RDMACHECK_ABOUT(PostErrorTest, OverfullListStopsAtTheFirstWrThatDoesNotFit,
                "one post call with twice the granted queue depth plus one WRs: the call fails with ENOMEM, bad_wr "
                "points at a WR no earlier than the granted depth nor the depth ibv_query_qp reports, and every WR "
                "before bad_wr is posted and completes successfully (none after it)",
                "ibv_post_send(3), ibv_post_recv(3) (ENOMEM: queue full; bad_wr); ibv_create_qp(3) (max_send_wr / "
                "max_recv_wr: at least what was granted); ibv_query_qp(3) (cap: the QP's queue sizes)",
                Cap::kRcQp, Cap::kRdmaWrite);
TEST_P(PostErrorTest, OverfullListStopsAtTheFirstWrThatDoesNotFit) {
  PairOptions options = Options();
  options.max_send_wr = 8;
  options.max_recv_wr = 8;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  // The raw post is in this process (local()); for the receive queue the SENDs that take
  // the receives come from remote() (on the peer host in two-host mode).
  LocalEndpoint& poster = pair.local();
  const uint32_t granted =
      param() == Queue::kSend ? poster.granted_cap().max_send_wr : poster.granted_cap().max_recv_wr;
  const size_t count = 2 * granted + 1;
  RecordProperty("granted_depth", static_cast<int>(granted));

  std::vector<ibv_sge> sges(count);
  size_t posted = 0;
  int rc = 0;
  if (param() == Queue::kSend) {
    // 8-byte RDMA WRITEs: nothing needed at the peer.
    std::vector<ibv_send_wr> wrs(count);
    for (size_t i = 0; i < count; ++i) {
      sges[i] = poster.Sge(0, 8);
      wrs[i] = RdmaWr(i, &sges[i], 1, IBV_WR_RDMA_WRITE, poster.peer_buffer().At(0, 8));
      wrs[i].next = i + 1 < count ? &wrs[i + 1] : nullptr;
    }
    ibv_send_wr* bad_wr = nullptr;
    rc = PostSend(poster.qp(), wrs.data(), &bad_wr);
    posted = bad_wr == nullptr ? count : static_cast<size_t>(bad_wr - wrs.data());
  } else {
    std::vector<ibv_recv_wr> wrs(count);
    for (size_t i = 0; i < count; ++i) {
      sges[i] = poster.Sge(0, 64);
      wrs[i] = RecvWr(i, &sges[i], 1);
      wrs[i].next = i + 1 < count ? &wrs[i + 1] : nullptr;
    }
    ibv_recv_wr* bad_wr = nullptr;
    rc = PostRecv(poster.qp(), wrs.data(), &bad_wr);
    posted = bad_wr == nullptr ? count : static_cast<size_t>(bad_wr - wrs.data());
  }
  RecordProperty("posted_before_full", static_cast<int>(posted));
  EXPECT_THAT(rc, ErrnoIs(ENOMEM));
  ASSERT_LT(posted, count) << "all " << count << " WRs were posted into a queue of " << granted;
  EXPECT_GE(posted, granted) << "the queue refused a WR before the granted depth was used";
  // ibv_query_qp(3) reports the queue the QP has: it too must hold what it reports.
  ASSERT_OK_AND_ASSIGN(ibv_qp_attr queried, QueryQp(poster.qp(), IBV_QP_CAP));
  const uint32_t reported = param() == Queue::kSend ? queried.cap.max_send_wr : queried.cap.max_recv_wr;
  EXPECT_GE(posted, reported) << "the queue refused WR " << posted << ", within the depth ibv_query_qp reports ("
                              << reported << ")";

  if (param() == Queue::kSend) {
    ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> done, poster.PollSends(static_cast<int>(posted)));
    for (size_t i = 0; i < done.size(); ++i) {
      EXPECT_THAT(done[i], CompletionIs(SendCompletion(i, poster.qp_num(), IBV_WC_RDMA_WRITE)));
    }
  } else {
    // Every posted receive takes a SEND (sent in batches that fit the send queue).
    ASSERT_OK(pair.remote().Fill({0, 64}, Pattern::Seeded(4)));
    for (size_t i = 0; i < posted; ++i) {
      ASSERT_OK(pair.remote().Post(SendRequest::Send(100 + i, {{0, 64}})));
      ASSERT_OK(pair.remote().PollSend().status());
    }
    ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> done, poster.PollRecvs(static_cast<int>(posted)));
    for (size_t i = 0; i < done.size(); ++i) {
      EXPECT_THAT(done[i], CompletionIs(RecvCompletion(i, poster.qp_num(), 64)));
    }
  }
  const QuietWindow quiet = QuietWindowForCompletions();
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> extra, param() == Queue::kSend ? poster.DrainSends(quiet.duration)
                                                                          : poster.DrainRecvs(quiet.duration));
  EXPECT_TRUE(extra.empty()) << "a WR at or after bad_wr completed (watched " << quiet
                             << "): " << DescribeWc(extra.front());
}

INSTANTIATE_TEST_SUITE_P(Connect, PostErrorTest,
                         ::testing::Combine(AllConnectMethods(), ::testing::Values(Queue::kSend, Queue::kRecv)),
                         PairParamName<Queue>);

class UdPostErrorTest : public DeviceTest {};

RDMACHECK_ABOUT(UdPostErrorTest, RdmaReadOnUdIsAnError,
                "an RDMA READ posted on a UD QP (UD carries SEND only) is refused: by ibv_post_send (EINVAL) or "
                "with an error completion, never executed",
                "IBTA Vol 1 9.8.1 / table 79 (operations per transport service: UD has SEND only); ibv_post_send(3)",
                Cap::kUdQp, Cap::kRdmaRead);
TEST_F(UdPostErrorTest, RdmaReadOnUdIsAnError) {
  PairOptions options;
  options.qp_type = IBV_QPT_UD;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, 64}, Pattern::Constant(0x11)));
  ibv_sge sge = pair.local().Sge(0, 8);
  ibv_send_wr wr = RdmaWr(1, &sge, 1, IBV_WR_RDMA_READ, pair.local().peer_buffer().At(0, 8));
  ibv_send_wr* bad_wr = nullptr;
  absl::Status posted = pair.local().PostSend(wr, &bad_wr);
  if (posted.ok()) {
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_NE(wc.status, IBV_WC_SUCCESS) << "an RDMA READ on a UD QP succeeded: " << DescribeWc(wc);
  } else {
    EXPECT_THAT(posted, HasErrno(EINVAL));
    EXPECT_EQ(bad_wr, &wr);
  }
  EXPECT_OK(pair.local().Check({0, 64}, Pattern::Constant(0x11))) << "the READ brought bytes back";
}

}  // namespace
}  // namespace rdmacheck
