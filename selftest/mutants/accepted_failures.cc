// Mutants of work the device accepts and then fails: ibv_post_send returns 0, and the work
// request completes in error. A probe that calls such a capability "absent" hides it (the
// tests skip); it is broken (issue 30, item 1), and its tests must run and fail.
#include <algorithm>

#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

// Every RDMA WRITE with immediate is NAKed by the responder as an invalid request: the
// requester's completion says IBV_WC_REM_INV_REQ_ERR (IBTA Vol 1 9.9.3, NAK-Invalid
// Request) and the responder consumes no receive: its RECV_RDMA_WITH_IMM never comes.
int PollFailingWriteWithImm(PollFn real, ibv_cq* cq, int n, ibv_wc* wc) {
  int got = real(cq, n, wc);
  for (int i = got - 1; i >= 0; --i) {
    if (wc[i].status != IBV_WC_SUCCESS) continue;
    if (wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
      std::copy(wc + i + 1, wc + got, wc + i);
      --got;
      Acted();
    } else if (wc[i].opcode == IBV_WC_RDMA_WRITE &&
               TakeSend(wc[i].qp_num, wc[i].wr_id).opcode == IBV_WR_RDMA_WRITE_WITH_IMM) {
      wc[i].status = IBV_WC_REM_INV_REQ_ERR;
      Acted();
    }
  }
  return got;
}

}  // namespace

std::vector<Mutant> AcceptedFailureMutants() {
  return {
      {.name = "write_imm_completes_in_error",
       .what = "ibv_post_send accepts an RDMA WRITE with immediate, which then completes with "
               "IBV_WC_REM_INV_REQ_ERR (no receive consumed)",
       // Killed by the immediate tests. Its @probe variant is the hole of issue 30 item 1:
       // the probe's attempt fails after it was accepted, which must make write_with_imm
       // broken (BrokenCapability.write_with_imm fails, the tests run), never unsupported.
       .suites = "datapath", .filter = "Connect/ImmediateTest.WriteWithImmConsumesAReceive/RdmaCm",
       .devices = "rxe0", .survives = nullptr, .poll = PollFailingWriteWithImm},
  };
}

}  // namespace rdmacheck::mutants
