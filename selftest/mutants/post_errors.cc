// Mutants of a refused post: the device refuses the same work requests, but reports it
// wrongly: the other errno of the two the man pages name (ENOMEM for a full queue,
// EINVAL for a bad WR), bad_wr pointing past the WR that failed, or no error at all. And of
// a refused QP modify: reported as done (the QP stays where it was) or with another errno.
#include <cerrno>

#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

int OtherErrno(int ret) { return ret == ENOMEM ? EINVAL : ENOMEM; }

// Moves the QP state machine does not connect (IBTA Vol 1 10.3.1), from three states.
constexpr char kIllegalMoves[] =
    "Table/QpIllegalTransitionTest.FailsAndStateStays/RC_RESET_to_RTR:"
    "Table/QpIllegalTransitionTest.FailsAndStateStays/RC_INIT_to_RTS:"
    "Table/QpIllegalTransitionTest.FailsAndStateStays/RC_RTS_to_RTR";

constexpr char kSendRefused[] = "Connect/PostErrorTest.TooManySgesIsRefusedWithEinval/RdmaCm_SendQueue";
// Not on siw0: siw's ibv_post_send never refuses a WR in these tests (it accepts one with too
// many SGEs and an overfull list, returning 0: expected deviations), so there is no refusal
// to misreport, and the test waits 20 s for a completion each time.
constexpr char kRefusingDevices[] = "rxe0";

}  // namespace

std::vector<Mutant> PostMutants() {
  return {
      {.name = "post_send_errno",
       .what = "a refused ibv_post_send returns EINVAL for ENOMEM and ENOMEM for anything else",
       .suites = "errors", .filter = kSendRefused, .devices = kRefusingDevices, .survives = nullptr,
       .post_send_result = [](ibv_send_wr*, int ret, ibv_send_wr**) { return ret ? OtherErrno(ret) : 0; }},
      {.name = "post_send_bad_wr",
       .what = "a refused ibv_post_send sets bad_wr to the WR after the one that failed (NULL if last)",
       .suites = "errors", .filter = kSendRefused, .devices = kRefusingDevices, .survives = nullptr,
       .post_send_result = [](ibv_send_wr*, int ret, ibv_send_wr** bad_wr) {
         if (ret && *bad_wr) *bad_wr = (*bad_wr)->next;
         return ret;
       }},
      {.name = "post_recv_errno",
       .what = "a refused ibv_post_recv / ibv_post_srq_recv returns EINVAL for ENOMEM and ENOMEM otherwise",
       .suites = "srq", .filter = "SrqTrafficTest.PostFailureReturnsErrnoValue",
       .devices = "",
       .survives = "on siw0: every test of a refused receive already fails there (a negative errno, overfull "
                   "lists and too many SGEs accepted: expected deviations), and only a test that passes without "
                   "the mutant counts",
       .post_recv_result = [](ibv_recv_wr*, int ret, ibv_recv_wr**) { return ret ? OtherErrno(ret) : 0; }},
      {.name = "post_recv_error_hidden",
       .what = "a refused ibv_post_recv / ibv_post_srq_recv returns 0 (the refused WRs are silently not posted)",
       .suites = "srq", .filter = "SrqTrafficTest.PostChainStopsAtBadWr",
       .devices = "", .survives = nullptr,
       .post_recv_result = [](ibv_recv_wr*, int, ibv_recv_wr**) { return 0; }},
      // Not on siw0: siw accepts the illegal moves of these tests already (expected
      // deviations), so there is no refusal to misreport.
      {.name = "illegal_transition_accepted",
       .what = "an ibv_modify_qp the device refused returns 0 (the QP stays in its state)",
       .suites = "qp_state", .filter = kIllegalMoves, .devices = "rxe0", .survives = nullptr,
       .modify_qp_result = [](ibv_qp*, const ibv_qp_attr*, int, int) { return 0; }},
      // Issue 35.1: a RoCE device that refuses a hand-wired RC QP's RTR with EINVAL (rdma_cm's
      // own RTR still works). Seen by the probe (@probe), that refusal is a set-up step
      // failing, not the device saying manual wiring is absent: manual_connect is broken
      // (BrokenCapability.manual_connect), not unsupported with every Manual instance
      // skipped. Plain, the Manual instance fails to connect. Not on siw0: iWARP is never
      // wired by hand.
      {.name = "hand_wired_rtr_refused",
       .what = "ibv_modify_qp to RTR of an RC QP wired by hand (not by rdma_cm) is refused with EINVAL",
       .suites = "datapath", .filter = "Connect/RcSendTest.MessagesArriveInPostingOrder/Manual", .devices = "rxe0",
       .survives = nullptr,
       .modify_qp_result = [](ibv_qp* qp, const ibv_qp_attr* attr, int mask, int ret) {
         const bool rtr = (mask & IBV_QP_STATE) && attr->qp_state == IBV_QPS_RTR;
         return ret == 0 && rtr && qp->qp_type == IBV_QPT_RC && !InsideRdmaCm() ? EINVAL : ret;
       }},
      {.name = "modify_qp_errno",
       .what = "a refused ibv_modify_qp returns EPERM where the device said EINVAL",
       .suites = "qp_state", .filter = kIllegalMoves, .devices = "rxe0", .survives = nullptr,
       .modify_qp_result = [](ibv_qp*, const ibv_qp_attr*, int, int ret) { return ret == EINVAL ? EPERM : ret; }},
  };
}

}  // namespace rdmacheck::mutants
