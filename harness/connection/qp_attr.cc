#include "harness/connection/qp_attr.h"

#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {

absl::Status ModifyQp(ibv_qp* qp, const QpAttr& attr) {
  ibv_qp_attr a = attr.attr();
  if (int rc = ibv_modify_qp(qp, &a, attr.mask()); rc != 0) {
    return ErrnoStatus(rc, absl::StrCat("ibv_modify_qp(qp ", qp->qp_num, " to ", QpStateName(a.qp_state),
                                        ", mask 0x", absl::Hex(attr.mask()), ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ibv_qp_attr> QueryQp(ibv_qp* qp, int mask) {
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  if (int rc = ibv_query_qp(qp, &attr, mask | IBV_QP_STATE, &init); rc != 0) {
    return ErrnoStatus(rc, absl::StrCat("ibv_query_qp(qp ", qp->qp_num, ")"));
  }
  return attr;
}

ibv_ah_attr AddressTo(const QpAddress& peer, const PathOptions& path) {
  ibv_ah_attr ah{};
  ah.dlid = peer.lid;
  ah.port_num = path.port;
  ah.is_global = 1;  // RoCE needs the GRH; on InfiniBand it is harmless within a subnet
  ah.grh.dgid = peer.gid;
  ah.grh.sgid_index = path.sgid_index;
  ah.grh.hop_limit = 64;
  return ah;
}

QpAttr& AddAttrs(QpAttr& attr, int mask, const AttrValues& v) {
  const PathOptions& path = v.path;
  if (mask & IBV_QP_CUR_STATE) attr.set_cur_state(v.cur_state);
  if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY) attr.set_sq_draining(1);
  if (mask & IBV_QP_ACCESS_FLAGS) {
    // UC has no RDMA read or atomics; UD no remote access at all.
    int access = v.type == IBV_QPT_UC ? path.access & IBV_ACCESS_REMOTE_WRITE
                 : v.type == IBV_QPT_UD ? 0
                                        : path.access;
    attr.set_access_flags(static_cast<unsigned>(access));
  }
  if (mask & IBV_QP_PKEY_INDEX) attr.set_pkey_index(0);
  if (mask & IBV_QP_PORT) attr.set_port_num(path.port);
  if (mask & IBV_QP_QKEY) attr.set_qkey(path.qkey);
  if (mask & IBV_QP_AV) attr.set_ah_attr(AddressTo(v.peer, path));
  if (mask & IBV_QP_PATH_MTU) attr.set_path_mtu(path.path_mtu);
  if (mask & IBV_QP_TIMEOUT) attr.set_timeout(path.timeout);
  if (mask & IBV_QP_RETRY_CNT) attr.set_retry_cnt(path.retry_cnt);
  if (mask & IBV_QP_RNR_RETRY) attr.set_rnr_retry(path.rnr_retry);
  if (mask & IBV_QP_RQ_PSN) attr.set_rq_psn(v.peer.psn);
  if (mask & IBV_QP_MAX_QP_RD_ATOMIC) attr.set_max_rd_atomic(path.max_rd_atomic);
  if (mask & IBV_QP_MIN_RNR_TIMER) attr.set_min_rnr_timer(path.min_rnr_timer);
  if (mask & IBV_QP_SQ_PSN) attr.set_sq_psn(v.sq_psn);
  if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) attr.set_max_dest_rd_atomic(path.max_dest_rd_atomic);
  if (mask & IBV_QP_DEST_QPN) attr.set_dest_qp_num(v.peer.qp_num);
  return attr;
}

QpAttr TransitionAttr(ibv_qp_state from, ibv_qp_state to, AttrValues values) {
  values.cur_state = from;
  QpAttr a;
  a.set_state(to);
  return AddAttrs(a, RuleFor(values.type, from, to).required, values);
}

QpAttr InitAttr(ibv_qp_type type, const PathOptions& path) {
  AttrValues v;
  v.type = type;
  v.path = path;
  return TransitionAttr(IBV_QPS_RESET, IBV_QPS_INIT, v);
}

QpAttr RtrAttr(ibv_qp_type type, const QpAddress& peer, const PathOptions& path) {
  AttrValues v;
  v.type = type;
  v.path = path;
  v.peer = peer;
  return TransitionAttr(IBV_QPS_INIT, IBV_QPS_RTR, v);
}

QpAttr RtsAttr(ibv_qp_type type, uint32_t sq_psn, const PathOptions& path) {
  AttrValues v;
  v.type = type;
  v.path = path;
  v.sq_psn = sq_psn;
  return TransitionAttr(IBV_QPS_RTR, IBV_QPS_RTS, v);
}

absl::Status BringUp(ibv_qp* qp, const QpAddress& peer, uint32_t sq_psn, const PathOptions& path) {
  RDMACHECK_RETURN_IF_ERROR(ModifyQp(qp, InitAttr(qp->qp_type, path)));
  RDMACHECK_RETURN_IF_ERROR(ModifyQp(qp, RtrAttr(qp->qp_type, peer, path)));
  return ModifyQp(qp, RtsAttr(qp->qp_type, sq_psn, path));
}

const char* QpStateName(ibv_qp_state state) {
  switch (state) {
    case IBV_QPS_RESET: return "RESET";
    case IBV_QPS_INIT: return "INIT";
    case IBV_QPS_RTR: return "RTR";
    case IBV_QPS_RTS: return "RTS";
    case IBV_QPS_SQD: return "SQD";
    case IBV_QPS_SQE: return "SQE";
    case IBV_QPS_ERR: return "ERR";
    case IBV_QPS_UNKNOWN: return "UNKNOWN";
  }
  return "?";
}

}  // namespace rdmacheck
