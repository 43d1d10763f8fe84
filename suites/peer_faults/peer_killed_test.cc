// A peer whose process is killed (SIGKILL) before or during a transfer: the survivor's
// outstanding work requests must each complete once, in order, the first that did not
// finish in error and every later one flushed; nothing may hang, nothing may succeed that
// no responder acknowledged, and an rdma_cm connection must report DISCONNECTED.
//
// The peer is a process of its own on the same device (dying_peer.h), so its death is the
// kernel tearing down a QP and a connection the survivor still uses: over InfiniBand and
// RoCE the survivor's requests go unanswered and its retries run out (IBTA Vol 1 9.7.6.1,
// 11.6.2: IBV_WC_RETRY_EXC_ERR); over rdma_cm the dying process's CM id also sends a
// disconnect request, and over iWARP its TCP connection closes, which moves the survivor's
// QP to Error (RFC 5040 6.1; siw) and flushes what it holds (IBTA 10.3.1:
// IBV_WC_WR_FLUSH_ERR).
#include <rdma/rdma_cma.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/completion.h"
#include "harness/connection/cm_events.h"
#include "harness/connection/qp_attr.h"
#include "suites/peer_faults/dying_peer.h"
#include "suites/peer_faults/survivor.h"
#include "testing/completion_matchers.h"
#include "testing/pair_test.h"
#include "testing/qp_error_state.h"

namespace rdmacheck {
namespace {

enum class KillPoint {
  kBetweenOperations,  // the last WRITE completed; the peer is dead and reaped before eight more are posted
  kMidTransfer,        // eight WRITEs posted and the peer killed at once (some may land), then eight more
};
std::string ParamName(KillPoint k) { return k == KillPoint::kBetweenOperations ? "BetweenOperations" : "MidTransfer"; }

constexpr uint32_t kChunk = 64 * 1024;
constexpr int kWrites = 8;

class PeerKilledTest : public PairTestWith<KillPoint> {};

RDMACHECK_ABOUT(PeerKilledTest, OutstandingWritesFailThenFlush,
                "with the peer's process killed (between operations, or while eight 64 KiB RDMA WRITEs are under "
                "way) and eight more posted once it is reaped, every WRITE completes exactly once and in order: "
                "only WRITEs posted before the kill may succeed, then one completes in error (RETRY_EXC_ERR once the retries ran out, or WR_FLUSH_ERR "
                "where the connection's close moved the QP to Error first) and every later one is flushed; the "
                "survivor's QP reads back ERR, and an rdma_cm survivor gets RDMA_CM_EVENT_DISCONNECTED",
                "IBTA Vol 1 9.7.6.1 (ACK timeout, retry count), 10.3.1 (Error state flushes), 10.8.3 (completions "
                "in order), 11.6.2; rdma_cm(7), rdma_get_cm_event(3) (DISCONNECTED); RFC 5040 6.1 (iWARP: the LLP "
                "stream closing terminates the QP)",
                Cap::kRcQp, Cap::kRdmaWrite);
TEST_P(PeerKilledTest, OutstandingWritesFailThenFlush) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<DyingPeer> peer, DyingPeer::Start(selection()));
  PairOptions options = Options();
  options.buffer_size = kWrites * kChunk;
  options.path.timeout = 12;  // 16.8 ms a try: short enough that retries run out quickly
  options.path.retry_cnt = 2;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, ConnectedPair::Create(context(), selection(), options, peer->link()));
  LocalEndpoint& survivor = pair.local();

  // The pair carries a WRITE before the fault: what follows is the fault's doing.
  ASSERT_OK(survivor.Post(SendRequest::Write(100, {{0, kChunk}}, survivor.peer_buffer().At(0, kChunk))));
  ASSERT_OK_AND_ASSIGN(ibv_wc first, survivor.PollSend());
  ASSERT_THAT(first, CompletionIs(SendCompletion(100, survivor.qp_num(), IBV_WC_RDMA_WRITE)));

  // Batch A (mid-transfer only) races the kill; batch B is posted once the peer is reaped,
  // so no responder exists for any of it.
  auto batch = [&](int first) {
    std::vector<SendRequest> writes;
    for (int i = 0; i < kWrites; ++i) {
      writes.push_back(SendRequest::Write(first + i, {{i * kChunk, kChunk}}, survivor.peer_buffer().At(i * kChunk, kChunk)));
    }
    return writes;
  };
  const bool mid = param() == KillPoint::kMidTransfer;
  if (mid) ASSERT_OK(survivor.Post(batch(0)));
  ASSERT_OK(peer->Kill());  // dead and reaped: the kernel has released its QP
  const int dead_from = mid ? kWrites : 0;
  const int total = dead_from + kWrites;
  ASSERT_OK(survivor.Post(batch(dead_from)));

  // Every WRITE must complete once the peer is gone, within the retries' bound.
  const RetryBound retry = RetryBoundOf(survivor, IsIwarp());
  SCOPED_TRACE(absl::StrCat("the survivor's retries run out within ", retry.text));
  absl::StatusOr<std::vector<ibv_wc>> polled = survivor.PollSends(total, DefaultWait() + Scaled(retry.bound));
  if (!polled.ok()) FAIL() << NotAllCompleted(polled.status(), survivor, "survivor");
  const std::vector<ibv_wc>& wcs = *polled;
  OrderedFailure expected;
  expected.may_succeed = dead_from;
  expected.first_error = {IBV_WC_RETRY_EXC_ERR, IBV_WC_WR_FLUSH_ERR};
  expected.late_success = "a WRITE posted after the peer was dead and reaped completed successfully: nobody acknowledged it";
  const int first_error = static_cast<int>(ExpectOrderedFailure(wcs, expected));
  ASSERT_LT(first_error, total) << "every WRITE succeeded although the peer was killed";
  ExpectErrorStateAfter(survivor, wcs[first_error], "survivor");

  if (method() == ConnectMethod::kRdmaCm) {
    EXPECT_OK(ExpectCmEvent(survivor.cm_id()->channel, RDMA_CM_EVENT_DISCONNECTED).status())
        << "the survivor's rdma_cm id must learn that the connection is gone";
  }
}

INSTANTIATE_TEST_SUITE_P(Connect, PeerKilledTest,
                         ::testing::Combine(AllConnectMethods(),
                                            ::testing::Values(KillPoint::kBetweenOperations, KillPoint::kMidTransfer)),
                         PairParamName<KillPoint>);

}  // namespace
}  // namespace rdmacheck
