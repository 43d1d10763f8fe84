// A builder for ibv_modify_qp attributes that keeps the attribute mask in step with the
// fields set, and the transitions rdmacheck uses with the attributes IBTA requires:
//
//   ASSERT_OK(ModifyQp(qp, QpAttr().set_state(IBV_QPS_INIT).set_port_num(1).set_pkey_index(0)
//                              .set_access_flags(IBV_ACCESS_REMOTE_WRITE)));
//   ASSERT_OK(ModifyQp(qp, InitAttr(IBV_QPT_RC, port)));
//
// Required and optional attributes per transition and QP type: qp_transitions.h (IBTA Vol 1
// 11.2.5.2, table 91; ibv_modify_qp(3)). AddAttrs/TransitionAttr fill a QpAttr from a mask
// of that table with valid values, so a test can leave one out or add one more.
#ifndef RDMACHECK_HARNESS_CONNECTION_QP_ATTR_H_
#define RDMACHECK_HARNESS_CONNECTION_QP_ATTR_H_

#include <infiniband/verbs.h>

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "harness/connection/qp_transitions.h"

namespace rdmacheck {

class QpAttr {
 public:
  QpAttr& set_state(ibv_qp_state v) { return Set(attr_.qp_state = v, IBV_QP_STATE); }
  QpAttr& set_cur_state(ibv_qp_state v) { return Set(attr_.cur_qp_state = v, IBV_QP_CUR_STATE); }
  QpAttr& set_pkey_index(uint16_t v) { return Set(attr_.pkey_index = v, IBV_QP_PKEY_INDEX); }
  QpAttr& set_port_num(uint8_t v) { return Set(attr_.port_num = v, IBV_QP_PORT); }
  QpAttr& set_access_flags(unsigned v) { return Set(attr_.qp_access_flags = v, IBV_QP_ACCESS_FLAGS); }
  QpAttr& set_qkey(uint32_t v) { return Set(attr_.qkey = v, IBV_QP_QKEY); }
  QpAttr& set_path_mtu(ibv_mtu v) { return Set(attr_.path_mtu = v, IBV_QP_PATH_MTU); }
  QpAttr& set_dest_qp_num(uint32_t v) { return Set(attr_.dest_qp_num = v, IBV_QP_DEST_QPN); }
  QpAttr& set_rq_psn(uint32_t v) { return Set(attr_.rq_psn = v, IBV_QP_RQ_PSN); }
  QpAttr& set_sq_psn(uint32_t v) { return Set(attr_.sq_psn = v, IBV_QP_SQ_PSN); }
  QpAttr& set_max_dest_rd_atomic(uint8_t v) { return Set(attr_.max_dest_rd_atomic = v, IBV_QP_MAX_DEST_RD_ATOMIC); }
  QpAttr& set_max_rd_atomic(uint8_t v) { return Set(attr_.max_rd_atomic = v, IBV_QP_MAX_QP_RD_ATOMIC); }
  QpAttr& set_min_rnr_timer(uint8_t v) { return Set(attr_.min_rnr_timer = v, IBV_QP_MIN_RNR_TIMER); }
  QpAttr& set_timeout(uint8_t v) { return Set(attr_.timeout = v, IBV_QP_TIMEOUT); }
  QpAttr& set_retry_cnt(uint8_t v) { return Set(attr_.retry_cnt = v, IBV_QP_RETRY_CNT); }
  QpAttr& set_rnr_retry(uint8_t v) { return Set(attr_.rnr_retry = v, IBV_QP_RNR_RETRY); }
  QpAttr& set_sq_draining(uint8_t v) { return Set(attr_.en_sqd_async_notify = v, IBV_QP_EN_SQD_ASYNC_NOTIFY); }
  QpAttr& set_ah_attr(const ibv_ah_attr& v) { return Set(attr_.ah_attr = v, IBV_QP_AV); }
  QpAttr& set_cap(const ibv_qp_cap& v) { return Set(attr_.cap = v, IBV_QP_CAP); }

  // Removes an attribute from the mask (the value stays, unused): for "required attribute
  // missing" tests.
  QpAttr& clear(ibv_qp_attr_mask bit) {
    mask_ &= ~bit;
    return *this;
  }

  const ibv_qp_attr& attr() const { return attr_; }
  int mask() const { return mask_; }
  bool has(int bits) const { return (mask_ & bits) == bits; }

 private:
  template <typename T>
  QpAttr& Set(const T&, ibv_qp_attr_mask bit) {
    mask_ |= bit;
    return *this;
  }

  ibv_qp_attr attr_{};
  int mask_ = 0;
};

absl::Status ModifyQp(ibv_qp* qp, const QpAttr& attr);

// ibv_query_qp for the attributes of `mask` (IBV_QP_STATE at least).
absl::StatusOr<ibv_qp_attr> QueryQp(ibv_qp* qp, int mask = IBV_QP_STATE);

// Where a QP's peer is, for RTR (connected QPs) or an address handle (UD).
struct QpAddress {
  uint32_t qp_num = 0;
  uint16_t lid = 0;
  ibv_gid gid{};
  uint32_t psn = 0;
};

// Path settings of a manual connection (one place for the defaults).
struct PathOptions {
  uint8_t port = 1;
  uint8_t sgid_index = 0;
  ibv_mtu path_mtu = IBV_MTU_1024;
  uint8_t timeout = 14;        // 4.096 us * 2^14 = 67 ms per try
  uint8_t retry_cnt = 7;
  uint8_t rnr_retry = 7;       // 7 = retry forever (IBTA 9.7.5.2.8)
  uint8_t min_rnr_timer = 12;  // 0.64 ms (IBTA table 45)
  uint8_t max_rd_atomic = 1;
  uint8_t max_dest_rd_atomic = 1;
  uint32_t qkey = 0x11111111;
  int access = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
};

// The address vector that reaches `peer` from `path.port` / `path.sgid_index`.
ibv_ah_attr AddressTo(const QpAddress& peer, const PathOptions& path);

// A valid value for every attribute in kSettableAttrs (qp_transitions.h): what a transition
// carries when the table names the attribute.
struct AttrValues {
  ibv_qp_type type = IBV_QPT_RC;  // ACCESS_FLAGS: UC gets remote write only, UD none
  PathOptions path;               // port, sgid, MTU, timeouts, retries, RD atomic depth, QKey, access
  QpAddress peer;                 // AV, DEST_QPN, RQ_PSN (the peer's starting PSN)
  uint32_t sq_psn = 0;
  ibv_qp_state cur_state = IBV_QPS_RESET;  // CUR_STATE: the state the QP is in
};

// Adds each attribute of `mask` with its value from `values`. Bits outside kSettableAttrs
// (alternate path, path migration, CAP, rate limit) and IBV_QP_STATE are not touched.
QpAttr& AddAttrs(QpAttr& attr, int mask, const AttrValues& values);

// The move to `to` with exactly the attributes the table requires for `values.type` from
// `from` (an illegal pair: just the state).
QpAttr TransitionAttr(ibv_qp_state from, ibv_qp_state to, AttrValues values);

// RESET->INIT, INIT->RTR and RTR->RTS with exactly the required attributes of `type`.
QpAttr InitAttr(ibv_qp_type type, const PathOptions& path);
QpAttr RtrAttr(ibv_qp_type type, const QpAddress& peer, const PathOptions& path);
QpAttr RtsAttr(ibv_qp_type type, uint32_t sq_psn, const PathOptions& path);

// All three, in order.
absl::Status BringUp(ibv_qp* qp, const QpAddress& peer, uint32_t sq_psn, const PathOptions& path);

const char* QpStateName(ibv_qp_state state);  // "RESET", "INIT", ...

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_QP_ATTR_H_
