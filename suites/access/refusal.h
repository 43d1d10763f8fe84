// Posting a request that the device must refuse, and what every access test then checks.
//
//   ASSERT_OK_AND_ASSIGN(Refusal refusal, PostRefused(pair, SendRequest::Write(1, {{0, 8}}, bad_target)));
//   EXPECT_THAT(refusal.requester, IsRefusal(RemoteAccessStatuses(AccessOp::kWrite, IsIwarp())));
//   EXPECT_THAT(refusal.responder_recv, IsFlushed());
//
// Before the request, a receive is posted at the responder. It is how the test knows the
// responder has acted on the request: a fault the responder detects moves the responder's
// QP to the error state, which flushes that receive (IBTA Vol 1 9.9.3, responder class B/C
// errors; RFC 5040 7.1: the data sink terminates the stream). Only after it do the canary
// checks mean "the access was refused", not "the access has not arrived yet".
#ifndef RDMACHECK_SUITES_ACCESS_REFUSAL_H_
#define RDMACHECK_SUITES_ACCESS_REFUSAL_H_

#include <infiniband/verbs.h>

#include <set>
#include <string>

#include "absl/status/statusor.h"
#include "absl/types/optional.h"
#include "gmock/gmock.h"
#include "harness/connection/connected_pair.h"
#include "capabilities/profile/cap.h"
#include "harness/completion.h"

namespace rdmacheck {

enum class AccessOp { kSend, kWrite, kRead, kCompareSwap, kFetchAdd };
std::string AccessOpName(AccessOp op);  // "Send", "Write", ...
inline std::string ParamName(AccessOp op) { return AccessOpName(op); }  // for PairParamName
Cap CapOf(AccessOp op);                  // kRcQp, kRdmaWrite, kRdmaRead, kAtomics
bool IsAtomic(AccessOp op);
// The remote access right `op` needs on the target memory (0 for a send).
int RemoteRightOf(AccessOp op);

// A request of `op` whose local side is the first `length` bytes of the endpoint's buffer
// (the atomics' 8-byte result) and whose remote side is `remote`.
SendRequest RequestOf(AccessOp op, uint64_t wr_id, const RemoteBuffer& remote, uint32_t length = 8);

struct Refusal {
  ibv_wc requester{};                   // the refused request's completion
  absl::optional<ibv_wc> responder_recv;  // unset: the responder's receive never completed
};

// Posts a receive at pair.remote(), then `request` (signaled) at pair.local(), and waits
// for both completions (the responder's for at most a few seconds).
absl::StatusOr<Refusal> PostRefused(ConnectedPair& pair, const SendRequest& request);
// The same the other way round: a test whose target needs verbs calls on the responder's
// QP (a memory window) makes pair.local(), in this process in every mode, the responder.
absl::StatusOr<Refusal> PostRefused(Endpoint& requester, Endpoint& responder, const SendRequest& request);
// The same for a raw work request (bad lkeys and other faults SendRequest cannot express).
absl::StatusOr<Refusal> PostRefused(ConnectedPair& pair, ibv_send_wr& request);

// After the refusal both QPs are in the Error state (testing/qp_error_state.h): the requester
// after its error completion, the responder after the fault it detected flushed its receive.
// (An iWARP writer told IBV_WC_SUCCESS is not checked: its completion says nothing.)
void ExpectErrorStates(const Refusal& refusal, const Endpoint& requester, const Endpoint& responder);

// The requester statuses that report a remote access violation by `op`.
//   InfiniBand/RoCE: IBV_WC_REM_ACCESS_ERR: the responder NAKs "Remote Access Error"
//     (IBTA Vol 1 9.7.5.2.5; ibv_poll_cq(3)).
//   iWARP: a READ or atomic fails with IBV_WC_REM_ACCESS_ERR as well; an RDMA WRITE is
//     not acknowledged (RFC 5040 4.8, 5.3), so the writer's completion may report it sent
//     (IBV_WC_SUCCESS) before the data sink's TERMINATE (RFC 5040 7.1) reaches it.
std::set<ibv_wc_status> RemoteAccessStatuses(AccessOp op, bool iwarp);

MATCHER_P(IsRefusal, statuses, "is a completion with one of the refusal statuses") {
  if (statuses.count(arg.status) != 0) return true;
  *result_listener << DescribeWc(arg);
  return false;
}

// The responder's receive was flushed: its QP went to the error state.
MATCHER(IsFlushed, "is a receive flushed with IBV_WC_WR_FLUSH_ERR") {
  if (!arg.has_value()) {
    *result_listener << "the responder's receive never completed (its QP did not enter the error state)";
    return false;
  }
  if (arg->status == IBV_WC_WR_FLUSH_ERR) return true;
  *result_listener << DescribeWc(*arg);
  return false;
}

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_ACCESS_REFUSAL_H_
