// A QP destroyed while work is in flight on it and on its peer's QP: ibv_destroy_qp returns 0
// (ibv_destroy_qp(3): it fails only for a QP still attached to a multicast group), no
// completion of the destroyed QP reaches its CQ once the destroy has returned (the QP, and
// with it its outstanding work, no longer exists: IBTA Vol 1 11.2.4, Destroy QP), and
// the peer's outstanding work requests fail like those of a survivor whose peer died
// (survivor.h): over InfiniBand and RoCE its requests go unanswered and its retries run out
// (IBTA 9.7.6.1: IBV_WC_RETRY_EXC_ERR); over rdma_cm and iWARP the close of the connection
// moves it to Error first (IBV_WC_WR_FLUSH_ERR; RFC 5040 6.1; iWARP: the WR being
// transmitted then may be aborted instead, survivor.h AllowAbortInTransmission). Nothing hangs.
//
// The destroyed QP is in this process, on a PD and CQs the test owns so that they outlive
// it and the test can watch them, or in `rdmacheck serve` (dying_peer.h), released by the
// `destroy` request a ProxyEndpoint sends when it goes: a process of its own, with a context
// of its own, as a second host's would be.
#include <rdma/rdma_cma.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "harness/completion.h"
#include "harness/connection/cm_events.h"
#include "harness/connection/cm_steps.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"
#include "suites/peer_faults/dying_peer.h"
#include "suites/peer_faults/survivor.h"
#include "testing/pair_test.h"
#include "testing/qp_error_state.h"
#include "testing/quiet_window.h"

namespace rdmacheck {
namespace {

enum class Destroyer {
  kHere,    // the destroyed QP is in this process; its PD and CQs are the test's
  kInPeer,  // the destroyed QP is in the spawned `rdmacheck serve`
};
std::string ParamName(Destroyer d) { return d == Destroyer::kHere ? "DestroyedHere" : "DestroyedInPeer"; }

constexpr uint32_t kInFlightChunk = 128 * 1024;
constexpr int kInFlightWrites = 4;
constexpr int kHeldSends = 4;

class QpDestroyedTest : public PairTestWith<Destroyer> {};

// Connects `survivor` (active) to `doomed` (passive) the way ConnectedPair does, but leaves
// both to the test, which destroys `doomed` first. `options.passive_shared` is doomed's.
absl::Status ConnectForTeardown(LocalEndpoint& survivor, Endpoint& doomed, const PairOptions& options) {
  PairOptions own = options;
  own.passive_shared = {};
  if (options.method == ConnectMethod::kRdmaCm) {
    RDMACHECK_ASSIGN_OR_RETURN(sockaddr_storage listening, doomed.Listen(options));
    RDMACHECK_RETURN_IF_ERROR(survivor.Connect(listening, own));
    RDMACHECK_RETURN_IF_ERROR(doomed.Accept(options));
    RDMACHECK_RETURN_IF_ERROR(survivor.AwaitAccepted());
    return doomed.AwaitEstablished();
  }
  RDMACHECK_ASSIGN_OR_RETURN(EndpointInfo survivor_info, survivor.Prepare(own));
  RDMACHECK_ASSIGN_OR_RETURN(EndpointInfo doomed_info, doomed.Prepare(options));
  RDMACHECK_RETURN_IF_ERROR(doomed.Wire(survivor_info, options));
  return survivor.Wire(doomed_info, own);
}

// What one side has outstanding when the QP goes: 128 KiB WRITEs into the other side's
// buffer and, over InfiniBand and RoCE, SENDs the other side has no receive for. Those are
// answered with RNR NAKs and retried for as long as the responder exists (rnr_retry 7,
// IBTA 9.7.5.2.8), so they are certainly outstanding at the destroy. iWARP has no RNR: a
// SEND without a receive terminates the stream there (RFC 5040 7.1, RFC 5041 7.2), so only
// WRITEs, some of which may have completed by then.
std::vector<SendRequest> InFlightWork(const Endpoint& side, bool iwarp) {
  std::vector<SendRequest> work;
  for (int i = 0; i < kInFlightWrites; ++i) {
    work.push_back(SendRequest::Write(i, {{i * kInFlightChunk, kInFlightChunk}},
                                      side.peer_buffer().At(i * kInFlightChunk, kInFlightChunk)));
  }
  if (!iwarp) {
    for (int i = 0; i < kHeldSends; ++i) work.push_back(SendRequest::Send(kInFlightWrites + i, {{0, 64}}));
  }
  return work;
}

std::vector<std::string> Described(const std::vector<ibv_wc>& wcs) {
  std::vector<std::string> lines;
  for (const ibv_wc& wc : wcs) lines.push_back(DescribeWc(wc));
  return lines;
}

RDMACHECK_ABOUT(QpDestroyedTest, PeerFailsAndNothingCompletesAfterDestroy,
                "an RC QP destroyed while 128 KiB RDMA WRITEs and (InfiniBand/RoCE) RNR-held SENDs are outstanding "
                "on it and on its peer: the destroy succeeds and returns (in this process, or in the spawned peer's "
                "`destroy`); what its CQ holds then is its own work, in order, successes then flushes, and nothing "
                "more arrives on that CQ afterwards; the peer's outstanding WRs each complete once, in order, the "
                "first failure RETRY_EXC_ERR or WR_FLUSH_ERR (iWARP: or LOC_QP_OP_ERR, the WR in transmission "
                "aborted) and then flushes, within the retries' bound; the peer's "
                "QP reads back ERR and an rdma_cm peer gets RDMA_CM_EVENT_DISCONNECTED",
                "ibv_destroy_qp(3) (returns 0; fails only for a QP attached to a multicast group); IBTA Vol 1 "
                "11.2.4 (Destroy QP: the QP and its outstanding WRs cease to exist), 9.7.6.1 (ACK timeout, retry count), "
                "9.7.5.2.8 (RNR NAK), 10.3.1 (Error state flushes), 10.8.3 (completions in order); "
                "rdma_get_cm_event(3) (DISCONNECTED); RFC 5040 6.1 (iWARP: the stream's close terminates the QP)",
                Cap::kRcQp, Cap::kRdmaWrite);
TEST_P(QpDestroyedTest, PeerFailsAndNothingCompletesAfterDestroy) {
  const bool here = param() == Destroyer::kHere;
  std::unique_ptr<DyingPeer> peer;
  if (!here) {
    ASSERT_OK_AND_ASSIGN(peer, DyingPeer::Start(selection()));
  }
  PairOptions options = Options();
  options.buffer_size = kInFlightWrites * kInFlightChunk;
  options.path.timeout = 12;  // 16.8 ms a try: the survivor's retries run out quickly once its peer is gone
  options.path.retry_cnt = 2;
  // Here the doomed QP's PD and CQs are the test's: they outlive the QP, and the test
  // watches what reaches the CQs after the destroy.
  PdPtr pd;
  CqPtr doomed_send_cq;
  CqPtr doomed_recv_cq;
  if (here) {
    ASSERT_OK_AND_ASSIGN(ibv_context * pair_context, PairContext(context(), selection(), method()));
    ASSERT_OK_AND_ASSIGN(pd, AllocPd(pair_context));
    ASSERT_OK_AND_ASSIGN(doomed_send_cq, CreateCq(pair_context, 32));
    ASSERT_OK_AND_ASSIGN(doomed_recv_cq, CreateCq(pair_context, 32));
    options.passive_shared = {pd.get(), nullptr, doomed_recv_cq.get(), doomed_send_cq.get()};
  }
  auto survivor = std::make_unique<LocalEndpoint>(context(), selection());
  std::unique_ptr<Endpoint> doomed;
  if (here) {
    doomed = std::make_unique<LocalEndpoint>(context(), selection());
  } else {
    ASSERT_OK_AND_ASSIGN(doomed, peer->link()->NewEndpoint());
  }
  ASSERT_OK(ConnectForTeardown(*survivor, *doomed, options));
  const uint32_t doomed_qpn = doomed->qp_num();

  const std::vector<SendRequest> survivor_work = InFlightWork(*survivor, IsIwarp());
  const std::vector<SendRequest> doomed_work = InFlightWork(*doomed, IsIwarp());
  ASSERT_OK(survivor->Post(survivor_work));
  ASSERT_OK(doomed->Post(doomed_work));
  const RetryBound retry = RetryBoundOf(*survivor, IsIwarp());

  // The destroy, with both sides' work outstanding: ibv_destroy_qp (rdma_cm: rdma_disconnect,
  // rdma_destroy_qp), then the endpoint's MR. A destroy verb that fails is reported by its
  // owner (harness/verbs/owners.h) and fails this test as a leak.
  doomed.reset();
  if (here) {
    // Whatever the CQ holds now was completed before the destroy returned: the doomed QP's
    // own work, in order, the WRITEs possibly done, the rest flushed (rxe drops it unflushed,
    // siw flushes it while moving the QP to Error).
    SCOPED_TRACE("the destroyed QP's completions, polled once ibv_destroy_qp returned");
    const std::vector<ibv_wc> at_destroy = DrainCompletions(doomed_send_cq.get(), absl::ZeroDuration());
    for (const ibv_wc& wc : at_destroy) EXPECT_EQ(wc.qp_num, doomed_qpn) << DescribeWc(wc);
    OrderedFailure own;
    own.may_succeed = kInFlightWrites;
    own.first_error = {IBV_WC_WR_FLUSH_ERR};
    AllowAbortInTransmission(own, IsIwarp());
    own.late_success = "a SEND of the destroyed QP succeeded although its peer had no receive posted";
    EXPECT_LE(at_destroy.size(), doomed_work.size());
    ExpectOrderedFailure(at_destroy, own);
    EXPECT_THAT(Described(DrainCompletions(doomed_recv_cq.get(), absl::ZeroDuration())), ::testing::IsEmpty())
        << "the destroyed QP had no receive posted";
  } else {
    EXPECT_OK(peer->Ping()) << "the peer's destroy of its QP (with work in flight) did not return";
  }

  // The survivor: every WR completes once the peer's QP is gone, within the retries' bound.
  SCOPED_TRACE(absl::StrCat("the survivor's retries run out within ", retry.text));
  absl::StatusOr<std::vector<ibv_wc>> polled =
      survivor->PollSends(static_cast<int>(survivor_work.size()), DefaultWait() + Scaled(retry.bound));
  if (!polled.ok()) FAIL() << NotAllCompleted(polled.status(), *survivor, "survivor");
  OrderedFailure expected;
  expected.may_succeed = kInFlightWrites;
  expected.first_error = {IBV_WC_RETRY_EXC_ERR, IBV_WC_WR_FLUSH_ERR};
  AllowAbortInTransmission(expected, IsIwarp());
  expected.late_success = "a SEND succeeded although the destroyed QP had no receive posted for it";
  const size_t first_error = ExpectOrderedFailure(*polled, expected);
  if (!IsIwarp()) {  // the SENDs were certainly outstanding
    ASSERT_LT(first_error, polled->size()) << "every WR succeeded although the peer's QP was destroyed";
  }
  if (first_error < polled->size()) ExpectErrorStateAfter(*survivor, (*polled)[first_error], "survivor");
  if (method() == ConnectMethod::kRdmaCm) {
    EXPECT_OK(ExpectCmEvent(survivor->cm_id()->channel, RDMA_CM_EVENT_DISCONNECTED).status())
        << "the survivor's rdma_cm id must learn that the connection is gone (the destroyed side disconnected)";
  }

  if (here) {
    // The window since the destroy returned spans the survivor's retries; one quiet window more.
    const QuietWindow quiet = QuietWindowForCompletions();
    EXPECT_THAT(Described(DrainCompletions(doomed_send_cq.get(), quiet.duration)), ::testing::IsEmpty())
        << "a completion of the destroyed QP reached its send CQ after ibv_destroy_qp returned, " << quiet;
    EXPECT_THAT(Described(DrainCompletions(doomed_recv_cq.get(), absl::ZeroDuration())), ::testing::IsEmpty())
        << "a completion of the destroyed QP reached its receive CQ after ibv_destroy_qp returned";
  }
}

INSTANTIATE_TEST_SUITE_P(Connect, QpDestroyedTest,
                         ::testing::Combine(AllConnectMethods(), ::testing::Values(Destroyer::kHere, Destroyer::kInPeer)),
                         PairParamName<Destroyer>);

}  // namespace
}  // namespace rdmacheck
