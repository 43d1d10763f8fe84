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

QpAttr InitAttr(ibv_qp_type type, const PathOptions& path) {
  QpAttr a;
  a.set_state(IBV_QPS_INIT).set_pkey_index(0).set_port_num(path.port);
  if (type == IBV_QPT_UD) {
    a.set_qkey(path.qkey);
  } else if (type == IBV_QPT_UC) {
    a.set_access_flags(path.access & IBV_ACCESS_REMOTE_WRITE);  // UC has no RDMA read or atomics
  } else {
    a.set_access_flags(path.access);
  }
  return a;
}

QpAttr RtrAttr(ibv_qp_type type, const QpAddress& peer, const PathOptions& path) {
  QpAttr a;
  a.set_state(IBV_QPS_RTR);
  if (type == IBV_QPT_UD) return a;
  a.set_path_mtu(path.path_mtu).set_dest_qp_num(peer.qp_num).set_rq_psn(peer.psn).set_ah_attr(AddressTo(peer, path));
  if (type == IBV_QPT_RC) a.set_max_dest_rd_atomic(path.max_dest_rd_atomic).set_min_rnr_timer(path.min_rnr_timer);
  return a;
}

QpAttr RtsAttr(ibv_qp_type type, uint32_t sq_psn, const PathOptions& path) {
  QpAttr a;
  a.set_state(IBV_QPS_RTS).set_sq_psn(sq_psn);
  if (type == IBV_QPT_RC) {
    a.set_timeout(path.timeout).set_retry_cnt(path.retry_cnt).set_rnr_retry(path.rnr_retry)
        .set_max_rd_atomic(path.max_rd_atomic);
  }
  return a;
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
