#include "harness/connection/qp_transitions.h"

#include "absl/strings/str_join.h"

namespace rdmacheck {
namespace {

// Service types a row applies to.
enum : unsigned {
  kRc = 1u << 0,
  kUc = 1u << 1,
  kUd = 1u << 2,
  kXrcSend = 1u << 3,  // the kernel's IB_QPT_XRC_INI
  kXrcRecv = 1u << 4,  // the kernel's IB_QPT_XRC_TGT
  kAll = kRc | kUc | kUd | kXrcSend | kXrcRecv,
};

unsigned TypeBit(ibv_qp_type type) {
  switch (type) {
    case IBV_QPT_RC: return kRc;
    case IBV_QPT_UC: return kUc;
    case IBV_QPT_UD: return kUd;
    case IBV_QPT_XRC_SEND: return kXrcSend;
    case IBV_QPT_XRC_RECV: return kXrcRecv;
    default: return 0;
  }
}

// Short names for the modifiers, so that a row reads like a line of table 91.
constexpr int CUR = IBV_QP_CUR_STATE, SQD_NOTIFY = IBV_QP_EN_SQD_ASYNC_NOTIFY, ACCESS = IBV_QP_ACCESS_FLAGS,
              PKEY = IBV_QP_PKEY_INDEX, PORT = IBV_QP_PORT, QKEY = IBV_QP_QKEY, AV = IBV_QP_AV,
              MTU = IBV_QP_PATH_MTU, TIMEOUT = IBV_QP_TIMEOUT, RETRY = IBV_QP_RETRY_CNT,
              RNR_RETRY = IBV_QP_RNR_RETRY, RQ_PSN = IBV_QP_RQ_PSN, RD_ATOMIC = IBV_QP_MAX_QP_RD_ATOMIC,
              ALT = IBV_QP_ALT_PATH, RNR_TIMER = IBV_QP_MIN_RNR_TIMER, SQ_PSN = IBV_QP_SQ_PSN,
              DEST_RD_ATOMIC = IBV_QP_MAX_DEST_RD_ATOMIC, MIG = IBV_QP_PATH_MIG_STATE, DEST_QPN = IBV_QP_DEST_QPN;

struct Row {
  ibv_qp_state from;
  ibv_qp_state to;
  unsigned types;
  int required;
  int optional;
};

constexpr ibv_qp_state RESET = IBV_QPS_RESET, INIT = IBV_QPS_INIT, RTR = IBV_QPS_RTR, RTS = IBV_QPS_RTS,
                       SQD = IBV_QPS_SQD, SQE = IBV_QPS_SQE, ERR = IBV_QPS_ERR;

// IBTA Vol 1 table 91, row by row. A (from, to, type) that no row lists is illegal.
// "Any state -> RESET" and "any state -> ERR" are legal from every state but one: RESET's
// only exit is INIT (IBTA §10.3.1 Reset state; the kernel table agrees, RESET->ERR is invalid).
constexpr Row kRows[] = {
    // from   to     types                required                                     optional
    {RESET, RESET, kAll, 0, 0},
    {RESET, INIT, kUd, PKEY | PORT | QKEY, 0},
    {RESET, INIT, kRc | kUc | kXrcSend | kXrcRecv, PKEY | PORT | ACCESS, 0},

    {INIT, RESET, kAll, 0, 0},
    {INIT, ERR, kAll, 0, 0},
    {INIT, INIT, kUd, 0, PKEY | PORT | QKEY},
    {INIT, INIT, kRc | kUc | kXrcSend | kXrcRecv, 0, PKEY | PORT | ACCESS},
    {INIT, RTR, kUd, 0, PKEY | QKEY},
    {INIT, RTR, kUc | kXrcSend, AV | MTU | DEST_QPN | RQ_PSN, ALT | ACCESS | PKEY},
    {INIT, RTR, kRc | kXrcRecv, AV | MTU | DEST_QPN | RQ_PSN | DEST_RD_ATOMIC | RNR_TIMER, ALT | ACCESS | PKEY},

    {RTR, RESET, kAll, 0, 0},
    {RTR, ERR, kAll, 0, 0},
    {RTR, RTS, kUd, SQ_PSN, CUR | QKEY},
    {RTR, RTS, kUc, SQ_PSN, CUR | ALT | ACCESS | MIG},
    {RTR, RTS, kRc, TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | RD_ATOMIC, CUR | ALT | ACCESS | RNR_TIMER | MIG},
    {RTR, RTS, kXrcSend, TIMEOUT | RETRY | RNR_RETRY | SQ_PSN | RD_ATOMIC, CUR | ALT | ACCESS | MIG},
    {RTR, RTS, kXrcRecv, TIMEOUT | SQ_PSN, CUR | ALT | ACCESS | RNR_TIMER | MIG},

    {RTS, RESET, kAll, 0, 0},
    {RTS, ERR, kAll, 0, 0},
    {RTS, RTS, kUd, 0, CUR | QKEY},
    {RTS, RTS, kUc | kXrcSend, 0, CUR | ACCESS | ALT | MIG},
    {RTS, RTS, kRc | kXrcRecv, 0, CUR | ACCESS | ALT | MIG | RNR_TIMER},
    {RTS, SQD, kAll, 0, SQD_NOTIFY},

    {SQD, RESET, kAll, 0, 0},
    {SQD, ERR, kAll, 0, 0},
    {SQD, RTS, kUd, 0, CUR | QKEY},
    {SQD, RTS, kUc | kXrcSend, 0, CUR | ALT | ACCESS | MIG},
    {SQD, RTS, kRc | kXrcRecv, 0, CUR | ALT | ACCESS | RNR_TIMER | MIG},
    // SQD->SQD changes path and queue attributes while the send queue is drained.
    {SQD, SQD, kUd, 0, PKEY | QKEY},
    {SQD, SQD, kUc, 0, AV | ALT | ACCESS | PKEY | MIG},
    {SQD, SQD, kRc,
     0, PORT | AV | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC | DEST_RD_ATOMIC | ALT | ACCESS | PKEY | RNR_TIMER | MIG},
    {SQD, SQD, kXrcSend, 0, PORT | AV | TIMEOUT | RETRY | RNR_RETRY | RD_ATOMIC | ALT | ACCESS | PKEY | MIG},
    {SQD, SQD, kXrcRecv, 0, PORT | AV | TIMEOUT | DEST_RD_ATOMIC | ALT | ACCESS | PKEY | RNR_TIMER | MIG},

    // SQE exists for UC and UD only (StateExists); the kernel table also lists SQE->RTS for
    // the reliable types, with no modifiers, but no reliable QP can be in SQE.
    {SQE, RESET, kUc | kUd, 0, 0},
    {SQE, ERR, kUc | kUd, 0, 0},
    {SQE, RTS, kUd, 0, CUR | QKEY},
    {SQE, RTS, kUc, 0, CUR | ACCESS},

    {ERR, RESET, kAll, 0, 0},
    {ERR, ERR, kAll, 0, 0},
};

}  // namespace

TransitionRule RuleFor(ibv_qp_type type, ibv_qp_state from, ibv_qp_state to) {
  const unsigned bit = TypeBit(type);
  for (const Row& row : kRows) {
    if (row.from == from && row.to == to && (row.types & bit) != 0) return {true, row.required, row.optional};
  }
  return {};
}

const std::vector<ibv_qp_state>& QpStates() {
  static const std::vector<ibv_qp_state> states = {RESET, INIT, RTR, RTS, SQD, SQE, ERR};
  return states;
}

bool StateExists(ibv_qp_type type, ibv_qp_state state) {
  if (TypeBit(type) == 0) return false;
  return state != SQE || type == IBV_QPT_UC || type == IBV_QPT_UD;
}

ibv_qp_state UsualPredecessor(ibv_qp_state state) {
  switch (state) {
    case RTR: return INIT;
    case RTS: return RTR;
    case SQD: return RTS;
    default: return RESET;
  }
}

const std::vector<ibv_qp_attr_mask>& AllAttrBits() {
  static const std::vector<ibv_qp_attr_mask> bits = {
      IBV_QP_STATE,      IBV_QP_CUR_STATE,          IBV_QP_EN_SQD_ASYNC_NOTIFY, IBV_QP_ACCESS_FLAGS,
      IBV_QP_PKEY_INDEX, IBV_QP_PORT,               IBV_QP_QKEY,                IBV_QP_AV,
      IBV_QP_PATH_MTU,   IBV_QP_TIMEOUT,            IBV_QP_RETRY_CNT,           IBV_QP_RNR_RETRY,
      IBV_QP_RQ_PSN,     IBV_QP_MAX_QP_RD_ATOMIC,   IBV_QP_ALT_PATH,            IBV_QP_MIN_RNR_TIMER,
      IBV_QP_SQ_PSN,     IBV_QP_MAX_DEST_RD_ATOMIC, IBV_QP_PATH_MIG_STATE,      IBV_QP_CAP,
      IBV_QP_DEST_QPN,   IBV_QP_RATE_LIMIT,
  };
  return bits;
}

const char* AttrBitName(ibv_qp_attr_mask bit) {
  switch (bit) {
    case IBV_QP_STATE: return "STATE";
    case IBV_QP_CUR_STATE: return "CUR_STATE";
    case IBV_QP_EN_SQD_ASYNC_NOTIFY: return "EN_SQD_ASYNC_NOTIFY";
    case IBV_QP_ACCESS_FLAGS: return "ACCESS_FLAGS";
    case IBV_QP_PKEY_INDEX: return "PKEY_INDEX";
    case IBV_QP_PORT: return "PORT";
    case IBV_QP_QKEY: return "QKEY";
    case IBV_QP_AV: return "AV";
    case IBV_QP_PATH_MTU: return "PATH_MTU";
    case IBV_QP_TIMEOUT: return "TIMEOUT";
    case IBV_QP_RETRY_CNT: return "RETRY_CNT";
    case IBV_QP_RNR_RETRY: return "RNR_RETRY";
    case IBV_QP_RQ_PSN: return "RQ_PSN";
    case IBV_QP_MAX_QP_RD_ATOMIC: return "MAX_QP_RD_ATOMIC";
    case IBV_QP_ALT_PATH: return "ALT_PATH";
    case IBV_QP_MIN_RNR_TIMER: return "MIN_RNR_TIMER";
    case IBV_QP_SQ_PSN: return "SQ_PSN";
    case IBV_QP_MAX_DEST_RD_ATOMIC: return "MAX_DEST_RD_ATOMIC";
    case IBV_QP_PATH_MIG_STATE: return "PATH_MIG_STATE";
    case IBV_QP_CAP: return "CAP";
    case IBV_QP_DEST_QPN: return "DEST_QPN";
    case IBV_QP_RATE_LIMIT: return "RATE_LIMIT";
  }
  return "?";
}

std::string AttrMaskNames(int mask) {
  std::vector<const char*> names;
  for (ibv_qp_attr_mask bit : AllAttrBits()) {
    if ((mask & bit) != 0) names.push_back(AttrBitName(bit));
  }
  return names.empty() ? "none" : absl::StrJoin(names, "|");
}

const char* QpTypeName(ibv_qp_type type) {
  switch (type) {
    case IBV_QPT_RC: return "RC";
    case IBV_QPT_UC: return "UC";
    case IBV_QPT_UD: return "UD";
    case IBV_QPT_XRC_SEND: return "XRC_SEND";
    case IBV_QPT_XRC_RECV: return "XRC_RECV";
    default: return "?";
  }
}

}  // namespace rdmacheck
