// An MR deregistered while a peer's RDMA WRITEs or READs target it: the requests that reach
// the responder after the deregistration are refused with a remote access error, the
// requester's work completes in order (successes, the refusal, flushes), and the memory,
// which stays mapped in the process after ibv_dereg_mr, is never touched again: no byte
// of it or of the guard pages around it changes once ibv_dereg_mr has returned, and no READ
// brings back what the process wrote there afterwards.
//
// ibv_dereg_mr(3) gives the memory back to the process; IBTA Vol 1 10.6.3.2 (a remote access
// must name a valid R_Key), 9.7.5.2.5 (NAK Remote Access Error), 11.2.8 (Deregister Memory
// Region: its keys are invalid once it returns). iWARP: the data sink (WRITE) or data source
// (READ) finds the STag invalid and terminates the stream (RFC 5040 7.1 and 4.8, Terminate
// header; RFC 5041 7.2, DDP tagged buffer error 0x00, Invalid STag: siw_proc_write() and
// siw_check_mem() in 6.1 raise DDP_ECODE_T_INVALID_STAG), and a WRITE's requester may have
// been told IBV_WC_SUCCESS before the TERMINATE arrives (suites/access/refusal.h).
//
// The pair is a loopback pair in every mode: the test reads and writes the deregistered
// memory itself, which it can only in the process that owns it.
#include <infiniband/verbs.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "harness/patterns.h"
#include "harness/connection/guarded_region.h"
#include "harness/connection/guarded_target.h"
#include "suites/access/refusal.h"
#include "suites/peer_faults/survivor.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

constexpr uint32_t kTargetBytes = GuardedRegion::kMrBytes;  // every request covers the whole MR
constexpr uint32_t kPacingBytes = 1024 * 1024;  // a WRITE to valid memory ahead of the requests
constexpr int kRacingBatch = 16;                // posted before the deregistration, racing it
constexpr int kLateBatch = 4;                   // posted after it returned (iWARP: below)
constexpr uint64_t kEvidenceRecvId = 900;
constexpr uint8_t kBeforeRead = 0x00;  // a READ's local bytes before it
constexpr uint8_t kAfterDereg = 0x5c;  // written into the memory once it is no longer an MR

class MrDeregisteredTest : public PairTestWith<AccessOp> {};

// The first offset in `bytes` where `what` holds, or -1.
int FindByte(absl::Span<const uint8_t> bytes, uint8_t what) {
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] == what) return static_cast<int>(i);
  }
  return -1;
}

// The first offset where `before` and `after` differ, or -1.
int FirstChange(absl::Span<const uint8_t> before, absl::Span<const uint8_t> after) {
  for (size_t i = 0; i < before.size() && i < after.size(); ++i) {
    if (before[i] != after[i]) return static_cast<int>(i);
  }
  return before.size() == after.size() ? -1 : static_cast<int>(std::min(before.size(), after.size()));
}

RDMACHECK_ABOUT(MrDeregisteredTest, LateAccessIsRefusedAndMemoryIsUntouched,
                "behind a 1 MiB WRITE to valid memory, sixteen 4 KiB RDMA WRITEs / READs to an MR (guard pages "
                "around it) are posted, the responder deregisters the MR at once, and (not over iWARP) four more "
                "are posted once ibv_dereg_mr returned: the requester's WRs complete once and in order, successes "
                "only up to the sixteenth (iWARP WRITE: any), then IBV_WC_REM_ACCESS_ERR (iWARP WRITE: or a flush "
                "or LOC_QP_OP_ERR once the TERMINATE closed the stream), then flushes; the responder's QP goes to Error; not one byte of the memory or "
                "its guard pages changes after ibv_dereg_mr returned, and no READ brings back bytes written there "
                "after it",
                "ibv_dereg_mr(3); IBTA Vol 1 11.2.8 (Deregister Memory Region), 10.6.3.2 (R_Key checks), "
                "9.7.5.2.5 (NAK Remote Access Error), 10.8.3 (completions in order), 10.3.1 (Error state "
                "flushes); RFC 5040 7.1, 4.8 (Terminate), RFC 5041 7.2 (DDP error 0x00: Invalid STag)",
                Cap::kRcQp);
TEST_P(MrDeregisteredTest, LateAccessIsRefusedAndMemoryIsUntouched) {
  const AccessOp op = param();
  RDMACHECK_REQUIRE(CapOf(op));
  // Over iWARP nothing is posted once a TERMINATE may have moved the requester to Error:
  // siw never completes a WR posted then (docs/findings/siw-post-after-peer-close.md,
  // PeerKilledTest's deviation), which is not what this test is about; one late WRITE is
  // posted only when every racing WRITE is known to have landed (below). The pacing WRITE
  // keeps the sixteen requests queued behind it while the MR is deregistered (on RoCE;
  // siw sends up to 100 FPDUs within the doorbell, so over loopback they may all land first).
  const int late_batch = IsIwarp() ? 1 : kLateBatch;
  const int most_requests = kRacingBatch + late_batch;
  PairOptions options = Options();
  // A short ACK timeout and two retries: a READ whose refusal the requester never hears of
  // ends in IBV_WC_RETRY_EXC_ERR within the retries' bound instead of a timeout of the wait.
  options.path.timeout = 12;  // 16.8 ms a try
  options.path.retry_cnt = 2;
  // Request i (1..requests) uses local bytes [(i - 1) x 4 KiB, i x 4 KiB); the pacing WRITE
  // (wr_id 0) the megabyte after them, written to the responder's own buffer.
  const size_t pacing_at = static_cast<size_t>(most_requests) * kTargetBytes;
  options.buffer_size = pacing_at + kPacingBytes;
  options.max_send_wr = most_requests + 1;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, ConnectedPair::Create(context(), selection(), options));
  LocalEndpoint& requester = pair.local();
  Endpoint& responder = pair.remote();
  GuardSpec spec;
  spec.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> target, responder.Guard(spec));
  const RemoteBuffer mr = target->remote();

  // A WRITE carries bytes of its own (request i: pattern i), so that a change after the
  // deregistration shows whichever request made it.
  auto mine = [](int i) { return Slice{static_cast<size_t>(i - 1) * kTargetBytes, kTargetBytes}; };
  for (int i = 1; i <= most_requests; ++i) {
    ASSERT_OK(requester.Fill(mine(i), op == AccessOp::kWrite ? Pattern::Seeded(i) : Pattern::Constant(kBeforeRead)));
  }
  auto request = [&](int i) {
    return op == AccessOp::kWrite ? SendRequest::Write(i, {mine(i)}, mr) : SendRequest::Read(i, {mine(i)}, mr);
  };
  // The responder's receive: flushed once its QP is in Error, the sign that it acted on a
  // refused request (refusal.h), after which the memory checks mean "refused".
  ASSERT_OK(responder.PostRecv(kEvidenceRecvId, 0, 64));

  std::vector<SendRequest> racing = {
      SendRequest::Write(0, {{pacing_at, kPacingBytes}}, requester.peer_buffer().At(0, kPacingBytes))};
  for (int i = 1; i <= kRacingBatch; ++i) racing.push_back(request(i));
  ASSERT_OK(requester.Post(racing));
  ASSERT_OK(target->Deregister());
  // From here on the memory is the process's alone: it writes into it (READ), and takes
  // the bytes every later look must find.
  if (op == AccessOp::kRead) {
    std::memset(reinterpret_cast<uint8_t*>(target->virtual_address()), kAfterDereg, kTargetBytes);
  }
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> at_dereg, target->ReadAll());
  const bool iwarp_write = IsIwarp() && op == AccessOp::kWrite;
  // Over iWARP a late WRITE only when the race was lost for certain: DDP places in stream
  // order, so the sixteenth WRITE's bytes in the MR mean every racing WRITE landed before
  // ibv_dereg_mr, no TERMINATE is on its way, and the late one must meet the invalid STag.
  const absl::Span<const uint8_t> mr_at_dereg =
      absl::MakeConstSpan(at_dereg).subspan(GuardedRegion::kGuardBytes, kTargetBytes);
  const bool all_landed = iwarp_write && CheckPattern(mr_at_dereg, Pattern::Seeded(kRacingBatch)).ok();
  const int late_count = !IsIwarp() ? kLateBatch : all_landed ? 1 : 0;
  const int requests = kRacingBatch + late_count;
  std::vector<SendRequest> late;
  for (int i = kRacingBatch + 1; i <= requests; ++i) late.push_back(request(i));
  if (!late.empty()) ASSERT_OK(requester.Post(late));
  SCOPED_TRACE(iwarp_write ? (all_landed ? "every racing WRITE had landed at the deregistration; one late WRITE"
                                         : "a racing WRITE had not landed at the deregistration; no late WRITE")
                           : "");

  const RetryBound retry = RetryBoundOf(requester, IsIwarp());
  absl::StatusOr<std::vector<ibv_wc>> polled = requester.PollSends(requests + 1, DefaultWait() + Scaled(retry.bound));
  if (!polled.ok()) FAIL() << NotAllCompleted(polled.status(), requester, "requester");
  OrderedFailure expected;
  expected.may_succeed = iwarp_write ? requests + 1 : kRacingBatch + 1;
  expected.first_error = {IBV_WC_REM_ACCESS_ERR};
  if (iwarp_write) {  // the writer learns of the refusal only by the stream's end: flushed, or aborted in transmission
    expected.first_error.insert(IBV_WC_WR_FLUSH_ERR);
    AllowAbortInTransmission(expected, IsIwarp());
  }
  expected.late_success = "a request posted after ibv_dereg_mr returned succeeded";
  const size_t first_error = ExpectOrderedFailure(*polled, expected);
  // Over iWARP a WRITE's completion says only that it left (RFC 5040): the late one's
  // refusal shows at the responder (its receive flushed, below), not here.
  if (!iwarp_write) {
    ASSERT_LT(first_error, polled->size()) << "no request was refused after the MR was deregistered";
  }

  Refusal refusal;
  refusal.requester = first_error < polled->size() ? (*polled)[first_error] : polled->back();
  absl::StatusOr<ibv_wc> recv = responder.PollRecv(Scaled(absl::Seconds(1)));
  if (recv.ok()) refusal.responder_recv = *recv;
  EXPECT_THAT(refusal.responder_recv, IsFlushed());
  ExpectErrorStates(refusal, requester, responder);

  // The memory: not one byte changed since the deregistration returned, guard pages included;
  // and the guard pages, never part of the MR, still hold the canary.
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> now, target->ReadAll());
  const int changed = FirstChange(at_dereg, now);
  EXPECT_EQ(changed, -1) << absl::StrFormat(
      "byte %d of the guarded region (the MR is bytes %d..%d) changed after ibv_dereg_mr returned", changed,
      GuardedRegion::kGuardBytes, GuardedRegion::kGuardBytes + kTargetBytes - 1);
  for (size_t at : {size_t{0}, GuardedRegion::kGuardBytes + kTargetBytes}) {
    const absl::Span<const uint8_t> guard = absl::MakeConstSpan(now).subspan(at, GuardedRegion::kGuardBytes);
    EXPECT_EQ(std::count(guard.begin(), guard.end(), GuardedRegion::kCanary), static_cast<long>(guard.size()))
        << "a request wrote into the guard page at byte " << at << " of the region";
  }

  if (op == AccessOp::kRead) {
    // A READ that succeeded read the MR while it was one: the canary, never what the process
    // wrote there after ibv_dereg_mr returned; a READ that failed may leave its local bytes
    // undefined, but not those either.
    for (int i = 1; i <= requests; ++i) {
      const ibv_wc& wc = (*polled)[i];
      ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> got, requester.Read(mine(i)));
      SCOPED_TRACE(absl::StrFormat("READ %d: %s", i, DescribeWc(wc)));
      EXPECT_EQ(FindByte(got, kAfterDereg), -1)
          << "the READ brought back bytes written into the memory after ibv_dereg_mr returned";
      if (wc.status == IBV_WC_SUCCESS) {
        EXPECT_OK(requester.Check(mine(i), Pattern::Constant(GuardedRegion::kCanary)));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Connect, MrDeregisteredTest,
                         ::testing::Combine(AllConnectMethods(), ::testing::Values(AccessOp::kWrite, AccessOp::kRead)),
                         PairParamName<AccessOp>);

}  // namespace
}  // namespace rdmacheck
