// The QP state machine as data: which (from, to) moves ibv_modify_qp accepts for each QP
// type, and which attributes each move requires and allows.
//
//   TransitionRule r = RuleFor(IBV_QPT_RC, IBV_QPS_INIT, IBV_QPS_RTR);
//   r.legal       -> true
//   r.required    -> IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
//                    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER
//   r.optional    -> IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX
//
// Sources: IBTA Vol 1 §10.3.1 (QP states and the state diagram), §11.2.5.2 (Modify QP) and
// its table 91 "QP state transition properties" (required and optional modifiers per
// transition and service type); ibv_modify_qp(3). The Linux kernel encodes the same table as
// qp_state_table in drivers/infiniband/core/verbs.c (ib_modify_qp_is_ok(), which rxe and most
// hardware drivers call; siw does not). The rows in qp_transitions.cc agree with it; where
// IBTA and the kernel could be read differently, the row says so.
//
// This is the one place the table lives: InitAttr/RtrAttr/RtsAttr (qp_attr.h) take their
// attributes from it, and suites/qp_state generates its tests from it.
#ifndef RDMACHECK_HARNESS_CONNECTION_QP_TRANSITIONS_H_
#define RDMACHECK_HARNESS_CONNECTION_QP_TRANSITIONS_H_

#include <infiniband/verbs.h>

#include <string>
#include <vector>

namespace rdmacheck {

struct TransitionRule {
  bool legal = false;
  int required = 0;  // attribute mask bits that must be given, besides IBV_QP_STATE
  int optional = 0;  // bits that may be given
  int allowed() const { return IBV_QP_STATE | required | optional; }
};

// The rule for a QP of `type` asked to move from `from` to `to` (IBV_QP_STATE given). A pair
// the table does not list is illegal (legal == false). Types outside RC, UC, UD, XRC_SEND
// and XRC_RECV have no rules here.
TransitionRule RuleFor(ibv_qp_type type, ibv_qp_state from, ibv_qp_state to);

// The states a modify can name or start from, RESET..ERR, in IBTA order.
const std::vector<ibv_qp_state>& QpStates();

// Whether `type` has `state` at all. SQE ("send queue error") exists only for unreliable
// service, UC and UD (IBTA §10.3.1: an error on a reliable QP's send queue moves it to ERR).
bool StateExists(ibv_qp_type type, ibv_qp_state state);

// The state whose usual exit enters `state` (INIT for RTR, RTR for RTS, RTS for SQD); RESET
// for RESET, INIT, ERR and SQE. Illegal-pair tests carry the attributes of that transition,
// so that the only thing wrong with the request is where it starts.
ibv_qp_state UsualPredecessor(ibv_qp_state state);

// Attributes whose value a QP reports back through ibv_query_qp and that rdmacheck can set
// with a valid value (AddAttrs in qp_attr.h): every attribute of the table except the
// alternate path, path migration, queue resize and rate limit.
constexpr int kSettableAttrs =
    IBV_QP_CUR_STATE | IBV_QP_EN_SQD_ASYNC_NOTIFY | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
    IBV_QP_QKEY | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
    IBV_QP_RQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER | IBV_QP_SQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
    IBV_QP_DEST_QPN;

// Every attribute bit, lowest first (IBV_QP_STATE .. IBV_QP_RATE_LIMIT).
const std::vector<ibv_qp_attr_mask>& AllAttrBits();

// "PKEY_INDEX" for IBV_QP_PKEY_INDEX; "PKEY_INDEX|PORT" for a mask; "none" for 0.
const char* AttrBitName(ibv_qp_attr_mask bit);
std::string AttrMaskNames(int mask);

// "RC", "UC", "UD", "XRC_SEND", "XRC_RECV" (IBV_QPT_ without the prefix).
const char* QpTypeName(ibv_qp_type type);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_QP_TRANSITIONS_H_
