// Mutants of what a query says: the device behaves, but reports a QP state, the queue
// sizes it granted, or a device limit that is not so.
#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {

std::vector<Mutant> QueryMutants() {
  return {
      {.name = "query_qp_state",
       .what = "ibv_query_qp reports a QP in RTS as RTR",
       .suites = "qp_state", .filter = "Table/QpLegalTransitionTest.SucceedsAndQueryShowsIt/RC_RTR_to_RTS",
       .devices = "",
       .survives = "on siw0: the RC transitions are wired by hand, which iWARP does not allow (the test is skipped: "
                   "manual_connect unsupported), and siw's query_qp on 6.1 reports every QP as RESET anyway",
       .query_qp = [](ibv_qp_attr* attr, int, ibv_qp_init_attr*) {
         if (attr->qp_state == IBV_QPS_RTS) attr->qp_state = IBV_QPS_RTR;
       }},
      {.name = "query_qp_caps",
       .what = "ibv_query_qp reports one send WR more than the QP's send queue holds",
       .suites = "qp_state", .filter = "QpCreateTest.GrantedCapsAreWhatQueryReports", .devices = "",
       .survives = nullptr,
       .query_qp = [](ibv_qp_attr* attr, int, ibv_qp_init_attr* init) {
         ++attr->cap.max_send_wr;
         if (init) ++init->cap.max_send_wr;
       }},
      {.name = "granted_caps",
       .what = "ibv_create_qp reports one send WR more than it granted (the queue holds what it held)",
       .suites = "qp_state", .filter = "QpCreateTest.GrantedCapsAreWhatQueryReports", .devices = "",
       .survives = nullptr,
       .created_qp = [](ibv_qp_cap* granted) { ++granted->max_send_wr; }},
      {.name = "device_limit",
       .what = "ibv_query_device(_ex) reports max_qp_wr one higher than the device accepts",
       .suites = "qp_state", .filter = "Limits/QpCreateLimitTest.AtLimitCreatedBeyondRefused/max_send_wr_AtLimit",
       .devices = "", .survives = nullptr,
       .device_attr = [](ibv_device_attr* attr) { ++attr->max_qp_wr; }},
  };
}

}  // namespace rdmacheck::mutants
