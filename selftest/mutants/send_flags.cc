// Mutants of the send flags: a device that ignores what the caller asked of a work request
// (IBV_SEND_SIGNALED, IBV_SEND_SOLICITED) and does what it likes instead.
#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {

std::vector<Mutant> SendFlagMutants() {
  return {
      {.name = "send_always_signaled",
       .what = "every send WR is signaled: an unsignaled WR still produces a send completion",
       .suites = "datapath", .filter = "Connect/RcSendTest.UnsignaledSendsLeaveNoCompletion/RdmaCm", .devices = "",
       .survives = nullptr,
       .send_wr = [](ibv_send_wr& wr) { wr.send_flags |= IBV_SEND_SIGNALED; }},
      // Not on siw0: siw never raises a solicited-only event at all (siw_rqe_complete passes
      // SIW_WQE_SIGNALLED for SIW_WQE_SOLICITED: its expectation), so neither solicited
      // mutant changes what siw does.
      {.name = "solicited_flag_dropped",
       .what = "IBV_SEND_SOLICITED is ignored: the receiver's solicited-only arming never fires",
       .suites = "comp_channel", .filter = "CompChannelEventTest.SolicitedOnlyFiresOnSolicited", .devices = "rxe0",
       .survives = nullptr,
       .send_wr = [](ibv_send_wr& wr) { wr.send_flags &= ~IBV_SEND_SOLICITED; }},
      {.name = "every_send_solicited",
       .what = "every SEND carries the solicited event bit: an unsolicited one wakes a solicited-only CQ",
       .suites = "comp_channel", .filter = "CompChannelEventTest.SolicitedOnlyIgnoresUnsolicited", .devices = "rxe0",
       .survives = nullptr,
       .send_wr = [](ibv_send_wr& wr) { wr.send_flags |= IBV_SEND_SOLICITED; }},
  };
}

}  // namespace rdmacheck::mutants
