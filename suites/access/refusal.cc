#include "suites/access/refusal.h"

#include "harness/status.h"
#include "harness/timeouts.h"
#include "testing/qp_error_state.h"

namespace rdmacheck {
namespace {

constexpr uint64_t kResponderRecvId = 900;

absl::StatusOr<Refusal> AwaitRefusal(Endpoint& requester, Endpoint& responder) {
  Refusal refusal;
  RDMACHECK_ASSIGN_OR_RETURN(refusal.requester, requester.PollSend());
  absl::StatusOr<ibv_wc> recv = responder.PollRecv(Scaled(absl::Seconds(1)));
  if (recv.ok()) refusal.responder_recv = *recv;
  return refusal;
}

}  // namespace

std::string AccessOpName(AccessOp op) {
  switch (op) {
    case AccessOp::kSend: return "Send";
    case AccessOp::kWrite: return "Write";
    case AccessOp::kRead: return "Read";
    case AccessOp::kCompareSwap: return "CompareSwap";
    case AccessOp::kFetchAdd: return "FetchAdd";
  }
  return "?";
}

Cap CapOf(AccessOp op) {
  switch (op) {
    case AccessOp::kSend: return Cap::kRcQp;
    case AccessOp::kWrite: return Cap::kRdmaWrite;
    case AccessOp::kRead: return Cap::kRdmaRead;
    case AccessOp::kCompareSwap:
    case AccessOp::kFetchAdd: return Cap::kAtomics;
  }
  return Cap::kRcQp;
}

bool IsAtomic(AccessOp op) { return op == AccessOp::kCompareSwap || op == AccessOp::kFetchAdd; }

int RemoteRightOf(AccessOp op) {
  switch (op) {
    case AccessOp::kSend: return 0;
    case AccessOp::kWrite: return IBV_ACCESS_REMOTE_WRITE;
    case AccessOp::kRead: return IBV_ACCESS_REMOTE_READ;
    case AccessOp::kCompareSwap:
    case AccessOp::kFetchAdd: return IBV_ACCESS_REMOTE_ATOMIC;
  }
  return 0;
}

SendRequest RequestOf(AccessOp op, uint64_t wr_id, const RemoteBuffer& remote, uint32_t length) {
  switch (op) {
    case AccessOp::kSend: return SendRequest::Send(wr_id, {{0, length}});
    case AccessOp::kWrite: return SendRequest::Write(wr_id, {{0, length}}, remote);
    case AccessOp::kRead: return SendRequest::Read(wr_id, {{0, length}}, remote);
    case AccessOp::kCompareSwap: return SendRequest::CompareSwap(wr_id, {0, 8}, remote, 0, 1);
    case AccessOp::kFetchAdd: return SendRequest::FetchAdd(wr_id, {0, 8}, remote, 1);
  }
  return SendRequest::Send(wr_id, {{0, length}});
}

absl::StatusOr<Refusal> PostRefused(ConnectedPair& pair, const SendRequest& request) {
  return PostRefused(pair.local(), pair.remote(), request);
}

absl::StatusOr<Refusal> PostRefused(Endpoint& requester, Endpoint& responder, const SendRequest& request) {
  RDMACHECK_RETURN_IF_ERROR(responder.PostRecv(kResponderRecvId, 0, 64));
  RDMACHECK_RETURN_IF_ERROR(requester.Post(request));
  return AwaitRefusal(requester, responder);
}

absl::StatusOr<Refusal> PostRefused(ConnectedPair& pair, ibv_send_wr& request) {
  RDMACHECK_RETURN_IF_ERROR(pair.remote().PostRecv(kResponderRecvId, 0, 64));
  RDMACHECK_RETURN_IF_ERROR(pair.local().PostSend(request));
  return AwaitRefusal(pair.local(), pair.remote());
}

void ExpectErrorStates(const Refusal& refusal, const Endpoint& requester, const Endpoint& responder) {
  ExpectErrorStateAfter(requester, refusal.requester, "requester");
  if (refusal.responder_recv) ExpectErrorStateAfter(responder, *refusal.responder_recv, "responder");
}

std::set<ibv_wc_status> RemoteAccessStatuses(AccessOp op, bool iwarp) {
  if (iwarp && op == AccessOp::kWrite) return {IBV_WC_REM_ACCESS_ERR, IBV_WC_SUCCESS};
  return {IBV_WC_REM_ACCESS_ERR};
}

}  // namespace rdmacheck
