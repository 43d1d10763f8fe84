#include "suites/qp_state/qp_under_test.h"

#include <chrono>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "harness/completion.h"
#include "harness/connection/work_requests.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

constexpr uint32_t kPeerPsn = 0x1111;
constexpr uint32_t kOwnPsn = 0x2222;
constexpr size_t kBufferSize = 4096;

bool IsXrc(ibv_qp_type type) { return type == IBV_QPT_XRC_SEND || type == IBV_QPT_XRC_RECV; }

// XRC_SEND: a send queue in a PD. XRC_RECV: a receive-side QP in an XRC domain.
ibv_qp_init_attr_ex XrcInitAttr(ibv_qp_type type, ibv_pd* pd, ibv_xrcd* xrcd, ibv_cq* cq) {
  ibv_qp_init_attr_ex attr{};
  attr.qp_type = type;
  if (type == IBV_QPT_XRC_SEND) {
    attr.comp_mask = IBV_QP_INIT_ATTR_PD;
    attr.pd = pd;
    attr.send_cq = cq;
    attr.cap.max_send_wr = 16;
    attr.cap.max_send_sge = 1;
  } else {
    attr.comp_mask = IBV_QP_INIT_ATTR_XRCD;
    attr.xrcd = xrcd;
  }
  return attr;
}

}  // namespace

absl::StatusOr<std::unique_ptr<QpUnderTest>> QpUnderTest::Create(ibv_context* context, const Selection& selection,
                                                                  ibv_qp_type type, Route route) {
  std::unique_ptr<QpUnderTest> q(new QpUnderTest());
  q->route_ = route;
  q->values_.type = type;
  q->values_.path = PathFor(selection, PathOptions{});
  q->values_.sq_psn = kOwnPsn;
  q->values_.peer = {0, selection.port_attr.lid, selection.gid.gid, kPeerPsn};

  if (route == Route::kRdmaCm) {
    if (type != IBV_QPT_RC) return absl::InvalidArgumentError("rdma_cm connects RC QPs only");
    PairOptions options;
    options.method = ConnectMethod::kRdmaCm;
    RDMACHECK_ASSIGN_OR_RETURN(ConnectedPair pair, ConnectedPair::Create(context, selection, options));
    q->pair_ = std::make_unique<ConnectedPair>(std::move(pair));
    q->qp_ = q->pair_->local().qp();
    q->values_.peer.qp_num = q->pair_->remote().qp_num();
    q->state_ = q->values_.cur_state = IBV_QPS_RTS;
    return q;
  }

  RDMACHECK_ASSIGN_OR_RETURN(q->pd_, AllocPd(context));
  RDMACHECK_ASSIGN_OR_RETURN(q->cq_, CreateCq(context, 64));
  q->buffer_ = std::make_unique<uint8_t[]>(kBufferSize);
  RDMACHECK_ASSIGN_OR_RETURN(q->mr_, RegMr(q->pd_.get(), q->buffer_.get(), kBufferSize, IBV_ACCESS_LOCAL_WRITE));
  if (IsXrc(type)) {
    // The peer of an XRC initiator is an XRC target, and the other way round.
    const ibv_qp_type peer_type = type == IBV_QPT_XRC_SEND ? IBV_QPT_XRC_RECV : IBV_QPT_XRC_SEND;
    RDMACHECK_ASSIGN_OR_RETURN(q->xrcd_, OpenXrcd(context));
    RDMACHECK_ASSIGN_OR_RETURN(q->own_, CreateQpEx(context, XrcInitAttr(type, q->pd_.get(), q->xrcd_.get(), q->cq_.get())));
    RDMACHECK_ASSIGN_OR_RETURN(q->peer_,
                               CreateQpEx(context, XrcInitAttr(peer_type, q->pd_.get(), q->xrcd_.get(), q->cq_.get())));
  } else {
    RDMACHECK_ASSIGN_OR_RETURN(q->own_, CreateQp(q->pd_.get(), QpInitAttr(type, q->cq_.get())));
    RDMACHECK_ASSIGN_OR_RETURN(q->peer_, CreateQp(q->pd_.get(), QpInitAttr(type, q->cq_.get())));
  }
  q->qp_ = q->own_.get();
  q->values_.peer.qp_num = q->peer_->qp_num;
  return q;
}

QpUnderTest::~QpUnderTest() = default;

ibv_sge QpUnderTest::Sge(uint32_t length) const { return MakeSge(mr_.get(), 0, length); }

absl::StatusOr<ibv_ah*> QpUnderTest::PeerAh() {
  if (!ah_) {
    RDMACHECK_ASSIGN_OR_RETURN(ah_, CreateAh(pd_.get(), AddressTo(values_.peer, values_.path)));
  }
  return ah_.get();
}

absl::Status QpUnderTest::Step(ibv_qp_state from, ibv_qp_state to) {
  RDMACHECK_RETURN_IF_ERROR(ModifyQp(qp_, TransitionAttr(from, to, values_)));
  state_ = values_.cur_state = to;
  return absl::OkStatus();
}

absl::Status QpUnderTest::Reach(ibv_qp_state target) {
  if (target == state_) return absl::OkStatus();
  if (route_ == Route::kRdmaCm) {
    if (target != IBV_QPS_SQD || state_ != IBV_QPS_RTS) {
      return absl::InvalidArgumentError(
          absl::StrCat("an rdma_cm QP starts in RTS and goes on to SQD only, not to ", QpStateName(target)));
    }
    RDMACHECK_RETURN_IF_ERROR(Step(IBV_QPS_RTS, IBV_QPS_SQD));
    return WaitDrained(LocalEventWait());
  }
  if (state_ != IBV_QPS_RESET) {
    return absl::FailedPreconditionError(absl::StrCat("Reach starts from a new QP, this one is in ", QpStateName(state_)));
  }
  if (target == IBV_QPS_ERR) {
    RDMACHECK_RETURN_IF_ERROR(Step(IBV_QPS_RESET, IBV_QPS_INIT));
    return Step(IBV_QPS_INIT, IBV_QPS_ERR);
  }
  // The bring-up path: RESET -> INIT -> RTR -> RTS, then SQD or SQE from RTS.
  RDMACHECK_RETURN_IF_ERROR(Step(IBV_QPS_RESET, IBV_QPS_INIT));
  if (target == IBV_QPS_INIT) return absl::OkStatus();
  RDMACHECK_RETURN_IF_ERROR(Step(IBV_QPS_INIT, IBV_QPS_RTR));
  if (target == IBV_QPS_RTR) return absl::OkStatus();
  RDMACHECK_RETURN_IF_ERROR(Step(IBV_QPS_RTR, IBV_QPS_RTS));
  if (target == IBV_QPS_RTS) return absl::OkStatus();
  if (target == IBV_QPS_SQD) {
    RDMACHECK_RETURN_IF_ERROR(Step(IBV_QPS_RTS, IBV_QPS_SQD));
    return WaitDrained(LocalEventWait());
  }
  if (target == IBV_QPS_SQE) return EnterSqe();
  return absl::InvalidArgumentError(absl::StrCat("no way to ", QpStateName(target)));
}

absl::Status QpUnderTest::WaitDrained(absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  ibv_qp_attr attr{};
  while (true) {
    RDMACHECK_ASSIGN_OR_RETURN(attr, QueryQp(qp_, IBV_QP_STATE));
    if (attr.qp_state == IBV_QPS_SQD && attr.sq_draining == 0) return absl::OkStatus();
    if (absl::Now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return absl::DeadlineExceededError(absl::StrCat("after RTS->SQD the QP did not report a finished drain within ",
                                                  absl::FormatDuration(timeout), ": ibv_query_qp says state ",
                                                  QpStateName(attr.qp_state), ", sq_draining ",
                                                  static_cast<int>(attr.sq_draining)));
}

absl::Status QpUnderTest::EnterSqe() {
  // A key that certainly names no memory: the lkey of an MR that no longer exists.
  uint32_t stale_lkey = 0;
  {
    RDMACHECK_ASSIGN_OR_RETURN(MrPtr gone, RegMr(pd_.get(), buffer_.get(), kBufferSize, IBV_ACCESS_LOCAL_WRITE));
    stale_lkey = gone->lkey;
  }
  ibv_sge sge = MakeSge(mr_.get(), 0, 64);
  sge.lkey = stale_lkey;
  ibv_send_wr wr = SendWr(/*wr_id=*/0x5e, &sge, 1);
  if (type() == IBV_QPT_UD) {
    RDMACHECK_ASSIGN_OR_RETURN(wr.wr.ud.ah, PeerAh());
    wr.wr.ud.remote_qpn = values_.peer.qp_num;
    wr.wr.ud.remote_qkey = values_.path.qkey;
  }
  RDMACHECK_RETURN_IF_ERROR(PostSend(qp_, wr));
  RDMACHECK_ASSIGN_OR_RETURN(ibv_wc wc, PollCompletion(cq_.get()));
  RDMACHECK_ASSIGN_OR_RETURN(ibv_qp_attr attr, QueryQp(qp_, IBV_QP_STATE));
  if (wc.status == IBV_WC_SUCCESS || attr.qp_state != IBV_QPS_SQE) {
    return absl::NotFoundError(absl::StrCat("a ", QpTypeName(type()), " send with a stale lkey completed with ",
                                            WcStatusName(wc.status), " and left the QP in ",
                                            QpStateName(attr.qp_state), ", not SQE"));
  }
  state_ = values_.cur_state = IBV_QPS_SQE;
  return absl::OkStatus();
}

}  // namespace rdmacheck
