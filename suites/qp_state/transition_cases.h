// The table tests' parameters, generated from the transition table (qp_transitions.h): one
// TransitionCase per (QP type, from-state, to-state, attribute mask) a group checks.
//
//   Legal        every legal pair of every type, with exactly the required attributes
//   MissingAttr  every legal pair, once per required attribute, with that one left out
//   ExtraAttr    every legal pair, with each settable attribute it does not allow, one at a time
//   Illegal      every pair the table does not list, with the attributes of entering `to`
//   AttrChange   the self-transitions (INIT->INIT, RTS->RTS, SQD->SQD) changing one optional
//                attribute
// Start states a type does not have (SQE for RC and XRC) are left out.
#ifndef RDMACHECK_SUITES_QP_STATE_TRANSITION_CASES_H_
#define RDMACHECK_SUITES_QP_STATE_TRANSITION_CASES_H_

#include <infiniband/verbs.h>

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rdmacheck {

struct TransitionCase {
  ibv_qp_type type = IBV_QPT_RC;
  ibv_qp_state from = IBV_QPS_RESET;
  ibv_qp_state to = IBV_QPS_RESET;
  // Legal, Illegal: the attributes sent. MissingAttr: the required attribute left out.
  // ExtraAttr: the attributes tried one at a time. AttrChange: the attribute changed.
  int mask = 0;
};

// The QP types the table covers, in report order: RC, UC, UD, XRC_SEND, XRC_RECV.
const std::vector<ibv_qp_type>& TableTypes();

std::vector<TransitionCase> LegalCases();
std::vector<TransitionCase> MissingAttrCases();
std::vector<TransitionCase> ExtraAttrCases();
std::vector<TransitionCase> IllegalCases();
std::vector<TransitionCase> AttrChangeCases();

// "RC_INIT_to_RTR"; with `suffix`: "RC_INIT_to_RTR_without_PATH_MTU".
std::string CaseName(const TransitionCase& c, const std::string& suffix = "");

// Name generators for INSTANTIATE_TEST_SUITE_P.
std::string TransitionName(const ::testing::TestParamInfo<TransitionCase>& info);
std::string MissingAttrName(const ::testing::TestParamInfo<TransitionCase>& info);

// Whether a QP of `type` needs a connected peer to be in `state` (RC, UC and XRC in RTS, SQD
// or SQE).
bool NeedsConnection(ibv_qp_type type, ibv_qp_state state);

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_QP_STATE_TRANSITION_CASES_H_
