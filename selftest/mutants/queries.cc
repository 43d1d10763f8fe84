// Mutants of what a query says: the device behaves, but reports a QP state, the queue
// sizes it granted (a CQ said to have grown), or a device limit that is not so.
#include <cstdint>
#include <map>
#include <mutex>
#include <set>

#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

// The inline size each QP was granted by inline_granted_less, for query_qp to report the same.
std::mutex inline_mutex;
std::map<ibv_qp*, uint32_t>& GrantedInline() {
  static auto* granted = new std::map<ibv_qp*, uint32_t>;  // never destroyed: children exit with QPs
  return *granted;
}

// Half of what was asked, when more than one byte was asked and the device granted it.
void GrantHalfTheInline(ibv_qp* qp, const ibv_qp_cap& requested, ibv_qp_cap* granted) {
  if (requested.max_inline_data > 1 && granted->max_inline_data >= requested.max_inline_data) {
    granted->max_inline_data = requested.max_inline_data / 2;
  }
  std::lock_guard<std::mutex> lock(inline_mutex);
  GrantedInline()[qp] = granted->max_inline_data;  // a QP at a reused address is overwritten
}

void ReportGrantedInline(ibv_qp* qp, ibv_qp_attr* attr, int, ibv_qp_init_attr* init) {
  std::lock_guard<std::mutex> lock(inline_mutex);
  auto it = GrantedInline().find(qp);
  if (it == GrantedInline().end()) return;
  attr->cap.max_inline_data = it->second;
  if (init) init->cap.max_inline_data = it->second;
}

// The QP numbers that delivered an error completion, for query_rts_after_error_siw: a number
// is forgotten when a QP of that number is created again (siw_qp_add() reuses freed numbers).
std::mutex errored_mutex;
std::set<uint32_t>& ErroredQpNumbers() {
  static auto* numbers = new std::set<uint32_t>;  // never destroyed: children exit with QPs
  return *numbers;
}

void NoteErrorCompletion(ibv_wc& wc) {  // changes nothing
  if (wc.status == IBV_WC_SUCCESS) return;
  std::lock_guard<std::mutex> lock(errored_mutex);
  ErroredQpNumbers().insert(wc.qp_num);
}

void ForgetQpNumber(ibv_qp* qp, const ibv_qp_cap&, ibv_qp_cap*) {  // changes nothing
  std::lock_guard<std::mutex> lock(errored_mutex);
  ErroredQpNumbers().erase(qp->qp_num);
}

// RTS for a QP whose error completion says it is in ERR, whatever the device answered (6.1's
// siw answers RESET for every QP), unless the caller moved it to ERR itself.
void ReportRtsAfterAnErrorCompletion(ibv_qp* qp, ibv_qp_attr* attr, int, ibv_qp_init_attr*) {
  if (MovedToErrByCaller(qp)) return;
  {
    std::lock_guard<std::mutex> lock(errored_mutex);
    if (ErroredQpNumbers().count(qp->qp_num) == 0) return;
  }
  attr->qp_state = IBV_QPS_RTS;
  attr->cur_qp_state = IBV_QPS_RTS;
}

}  // namespace

std::vector<Mutant> QueryMutants() {
  return {
      {.name = "query_qp_state",
       .what = "ibv_query_qp reports a QP in RTS as RTR",
       // Not on siw0: it never reports RTS to misreport (6.1 reads every QP back as RESET; the
       // mutation suite measured it acting in no siw0 run).
       .suites = "qp_state", .filter = "Table/QpLegalTransitionTest.SucceedsAndQueryShowsIt/RC_RTR_to_RTS",
       .devices = "rxe0",
       .survives = "on siw0: the RC transitions are wired by hand, which iWARP does not allow (the test is skipped: "
                   "manual_connect unsupported), and siw's query_qp on 6.1 reports every QP as RESET anyway",
       .query_qp = [](ibv_qp*, ibv_qp_attr* attr, int, ibv_qp_init_attr*) {
         if (attr->qp_state == IBV_QPS_RTS) attr->qp_state = IBV_QPS_RTR;
       }},
      {.name = "query_qp_caps",
       .what = "ibv_query_qp reports one send WR more than the QP's send queue holds",
       // PostErrorTest's overfull list must reach the depth query reports before ENOMEM.
       .suites = "qp_state,errors",
       .filter = "QpCreateTest.GrantedCapsAreWhatQueryReports:Connect/PostErrorTest.OverfullListStopsAtTheFirstWrThatDoesNotFit/*",
       .devices = "", .survives = nullptr,
       .query_qp = [](ibv_qp*, ibv_qp_attr* attr, int, ibv_qp_init_attr* init) {
         ++attr->cap.max_send_wr;
         if (init) ++init->cap.max_send_wr;
       }},
      {.name = "granted_caps",
       .what = "ibv_create_qp reports one send WR more than it granted (the queue holds what it held)",
       .suites = "qp_state", .filter = "QpCreateTest.GrantedCapsAreWhatQueryReports", .devices = "",
       .survives = "on rxe0: the one WR more still fits there (rxe rounds a queue up, 31 held for 16 asked as its "
                   "expectation says, so an overfull list is refused past the depth reported anyway), and the test "
                   "comparing create with query already fails there (that rounding, an expected deviation); only "
                   "a test that passes without the mutant counts",
       .created_qp = [](ibv_qp*, const ibv_qp_cap&, ibv_qp_cap* granted) { ++granted->max_send_wr; }},
      {.name = "inline_granted_less",
       .what = "ibv_create_qp grants half the max_inline_data asked for and succeeds (ibv_query_qp says the same)",
       // ibv_create_qp(3): the values written back are >= those requested. Survives the
       // tests of 2026-11 alone (they size inline messages from what was granted); meant to
       // be killed by the check granted >= requested in the inline tests (issue 30, item 6;
       // branch vsuites).
       .suites = "datapath", .filter = "Connect/InlineTest.InlineSendArrives/RdmaCm_Max", .devices = "",
       .survives = nullptr, .query_qp = ReportGrantedInline, .created_qp = GrantHalfTheInline},
      {.name = "query_rts_after_error",
       .what = "ibv_query_qp reports RTS for a QP an error completion moved to ERR (one the caller did not move)",
       // Not on siw0: siw on 6.1 reports every QP as RESET, so there is no ERR to misreport.
       // Killed by RemoteMrAccessTest's read-back of ERR after the refused WRITE (issue 30,
       // item 6). Not FaultTest.ReceiveTooSmall: on rxe0 its plain run is already an xfail
       // (LOC_QP_OP_ERR), and only a test that passes without the mutant counts.
       .suites = "access", .filter = "Connect/RemoteMrAccessTest.IsRefusedAndMemoryIsUntouched/RdmaCm_Write_WrongRkey",
       .devices = "rxe0",
       .survives = nullptr,
       .query_qp = [](ibv_qp* qp, ibv_qp_attr* attr, int, ibv_qp_init_attr*) {
         if (attr->qp_state != IBV_QPS_ERR || MovedToErrByCaller(qp)) return;
         attr->qp_state = IBV_QPS_RTS;
         attr->cur_qp_state = IBV_QPS_RTS;
       }},
      {.name = "query_rts_after_error_siw",
       .what = "ibv_query_qp reports RTS for a QP that delivered an error completion (one the caller did not move "
               "to ERR), whatever the device would have answered",
       // siw0's own: query_rts_after_error turns a device's ERR into RTS, and 6.1's siw answers
       // RESET for every QP, so it never acts there. Meant to be killed by
       // QpReadsBackErrAfterAnErrorCompletion, which reads the state after the receive too small
       // completed in error: on siw from 6.12 (the query reports states) it fails; on 6.1 it is
       // skipped (qp_state_query broken: the query cannot tell), and ReceiveTooSmallIsALengthError
       // kills it instead (ExpectErrorStateAfter takes RESET there as no evidence, RTS as wrong).
       .suites = "errors",
       .filter = "Connect/FaultTest.QpReadsBackErrAfterAnErrorCompletion/RdmaCm:"
                 "Connect/FaultTest.ReceiveTooSmallIsALengthError/RdmaCm",
       .devices = "siw0",
       .survives = nullptr,
       .completion = NoteErrorCompletion,
       .query_qp = ReportRtsAfterAnErrorCompletion,
       .created_qp = ForgetQpNumber},
      // Not on siw0: siw refuses ibv_resize_cq (cq_resize absent), so there is no growth to
      // hollow out; the @probe variant makes the absent feature look present and its test
      // then fails, which the strict count does not credit (the test skips in the plain run).
      {.name = "cq_resize_hollow",
       .what = "ibv_resize_cq growing a CQ succeeds and raises cq->cqe, but the CQ holds what it held before",
       .suites = "cq", .filter = "CqResizeTest.GrownCqHoldsTheNewDepth", .devices = "rxe0",
       .survives = nullptr,
       .resize_cq = [](ibv_cq* cq, int cqe, int (*real)(ibv_cq*, int)) {
         if (cqe <= cq->cqe) return real(cq, cqe);
         Acted();
         cq->cqe = cqe;
         return 0;
       }},
      {.name = "device_limit",
       .what = "ibv_query_device(_ex) reports max_qp_wr one higher than the device accepts",
       .suites = "qp_state", .filter = "Limits/QpCreateLimitTest.AtLimitCreatedBeyondRefused/max_send_wr_AtLimit",
       .devices = "", .survives = nullptr,
       .device_attr = [](ibv_device_attr* attr) { ++attr->max_qp_wr; }},
      {.name = "device_accepts_beyond_limit",
       .what = "the device creates QPs and SRQs one WR and one SGE beyond the limits ibv_query_device(_ex) reports",
       .suites = "qp_state,srq",
       .filter = "Limits/QpCreateLimitTest.AtLimitCreatedBeyondRefused/*_BeyondLimit:"
                 "QpCreateTest.CreateExBeyondTheWrLimitFailsEinval:Shapes/SrqBeyondLimitTest.*",
       .devices = "", .survives = nullptr,
       .device_attr = [](ibv_device_attr* attr) {
         --attr->max_qp_wr;
         --attr->max_sge;
         --attr->max_srq_wr;
         --attr->max_srq_sge;
       }},
      {.name = "query_qp_mask_ignored",
       .what = "ibv_query_qp ignores the attr_mask bits it cannot read (IBV_QP_RATE_LIMIT) and returns 0",
       .suites = "qp_state", .filter = "QpQueryTest.AttributeItCannotReadIsRefused", .devices = "",
       .survives = nullptr,
       .query_qp_call = [](QueryQpFn real, ibv_qp* qp, ibv_qp_attr* attr, int mask, ibv_qp_init_attr* init) {
         if (!(mask & IBV_QP_RATE_LIMIT)) return real(qp, attr, mask, init);
         Acted();
         return real(qp, attr, mask & ~IBV_QP_RATE_LIMIT, init);
       }},
  };
}

}  // namespace rdmacheck::mutants
