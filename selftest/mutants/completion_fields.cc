// Mutants of one completion field each: the device reports a work completion whose
// status, opcode, byte_len, wr_id, qp_num, src_qp, slid, wc_flags, imm_data or invalidated
// rkey is wrong. testing/completion_matchers.h checks every one of them (slid: the UD tests
// themselves, ExpectSourceLid in suites/datapath/ud_test.cc).
#include <byteswap.h>

#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

bool Ok(const ibv_wc& wc) { return wc.status == IBV_WC_SUCCESS; }
// IBV_WC_RECV and IBV_WC_RECV_RDMA_WITH_IMM have the IBV_WC_RECV bit (verbs.h).
bool Received(const ibv_wc& wc) { return Ok(wc) && (wc.opcode & IBV_WC_RECV); }

constexpr char kSend[] = "Connect/RcSendTest.MessagesArriveInPostingOrder/RdmaCm";
constexpr char kImm[] =
    "Connect/ImmediateTest.SendWithImmDeliversTheImmediate/RdmaCm:Connect/ImmediateTest.WriteWithImmConsumesAReceive/RdmaCm";
constexpr char kUd[] = "Sizes/UdTest.SendArrivesBehindItsGrh/*";

}  // namespace

std::vector<Mutant> CompletionFieldMutants() {
  return {
      {.name = "wc_status",
       .what = "a successful receive completes with IBV_WC_LOC_LEN_ERR",
       .suites = "datapath", .filter = kSend, .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) { if (Received(wc)) wc.status = IBV_WC_LOC_LEN_ERR; }},
      {.name = "wc_error_status",
       .what = "an error completion (not a flush) reports IBV_WC_GENERAL_ERR instead of its own status",
       // Two tests: rxe's answer to the receive too small already deviates (an expected
       // deviation: only a test that passes without the mutant counts), the access refusal not.
       .suites = "errors,access",
       .filter = "Connect/FaultTest.ReceiveTooSmallIsALengthError/RdmaCm:"
                 "Connect/RemoteMrAccessTest.IsRefusedAndMemoryIsUntouched/RdmaCm_Write_MissingRight",
       .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) {
         if (!Ok(wc) && wc.status != IBV_WC_WR_FLUSH_ERR) wc.status = IBV_WC_GENERAL_ERR;
       }},
      {.name = "wc_opcode",
       .what = "a successful SEND completes as IBV_WC_RDMA_WRITE",
       .suites = "datapath", .filter = kSend, .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) { if (Ok(wc) && wc.opcode == IBV_WC_SEND) wc.opcode = IBV_WC_RDMA_WRITE; }},
      {.name = "wc_opcode_recv_imm",
       .what = "a receive consumed by RDMA WRITE with immediate completes as IBV_WC_RECV",
       .suites = "datapath", .filter = kImm, .devices = "rxe0", .survives = nullptr,
       .completion = [](ibv_wc& wc) {
         if (Ok(wc) && wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM) wc.opcode = IBV_WC_RECV;
       }},
      {.name = "wc_byte_len",
       .what = "a successful receive reports one byte more than arrived",
       .suites = "datapath", .filter = kSend, .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) { if (Received(wc)) ++wc.byte_len; }},
      {.name = "wc_wr_id",
       .what = "a successful send-queue completion carries the wr_id of the next WR (wr_id + 1)",
       .suites = "datapath", .filter = kSend, .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) { if (Ok(wc) && !(wc.opcode & IBV_WC_RECV)) ++wc.wr_id; }},
      {.name = "wc_qp_num",
       .what = "a successful receive names another QP (qp_num + 1)",
       .suites = "datapath", .filter = kSend, .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) { if (Received(wc)) ++wc.qp_num; }},
      {.name = "wc_src_qp",
       .what = "a UD receive names another source QP (src_qp + 1)",
       .suites = "datapath", .filter = kUd, .devices = "rxe0", .survives = nullptr,
       .completion = [](ibv_wc& wc) { if (Received(wc) && (wc.wc_flags & IBV_WC_GRH)) ++wc.src_qp; }},
      {.name = "ud_slid_nonzero",
       .what = "a UD receive reports source LID 0x1234 (on RoCE there are no LIDs: slid is 0)",
       // Killed by UdTest.SendArrivesBehindItsGrh's slid check (IBTA Annex A16/A17; rxe's
       // do_complete() zeroes the CQE and never sets slid). rxe0 only: siw has no UD.
       .suites = "datapath", .filter = kUd, .devices = "rxe0", .survives = nullptr,
       .completion = [](ibv_wc& wc) { if (Received(wc) && (wc.wc_flags & IBV_WC_GRH)) wc.slid = 0x1234; }},
      {.name = "wc_flag_grh",
       .what = "a UD receive lacks IBV_WC_GRH (its first 40 bytes still hold the GRH)",
       .suites = "datapath", .filter = kUd, .devices = "rxe0", .survives = nullptr,
       .completion = [](ibv_wc& wc) { if (Received(wc)) wc.wc_flags &= ~IBV_WC_GRH; }},
      {.name = "wc_flag_imm",
       .what = "a receive that carried immediate data lacks IBV_WC_WITH_IMM",
       .suites = "datapath", .filter = kImm, .devices = "rxe0", .survives = nullptr,
       .completion = [](ibv_wc& wc) { if (Received(wc)) wc.wc_flags &= ~IBV_WC_WITH_IMM; }},
      {.name = "wc_flag_inv",
       .what = "a plain receive claims IBV_WC_WITH_INV (an rkey invalidated that no SEND named)",
       .suites = "datapath", .filter = kSend, .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) {
         if (Received(wc) && !(wc.wc_flags & IBV_WC_WITH_IMM)) wc.wc_flags |= IBV_WC_WITH_INV;
       }},
      {.name = "wc_imm_byte_order",
       .what = "immediate data is delivered in host byte order (byte-swapped) instead of network order",
       .suites = "datapath", .filter = kImm, .devices = "rxe0", .survives = nullptr,
       .completion = [](ibv_wc& wc) {
         if (Received(wc) && (wc.wc_flags & IBV_WC_WITH_IMM)) wc.imm_data = bswap_32(wc.imm_data);
       }},
      {.name = "wc_invalidated_rkey",
       .what = "the receive of a SEND with Invalidate names another rkey (invalidated_rkey + 1)",
       // Not on siw0: no receive there reports an invalidated rkey to alter (measured: it acted
       // in no siw0 run).
       .suites = "datapath", .filter = "Connect/ImmediateTest.SendWithInvalidateRevokesTheRkey/RdmaCm",
       .devices = "rxe0",
       .survives = "on siw0: siw refuses to invalidate the receiver's MR (IBV_WC_REM_INV_REQ_ERR, an expected "
                   "deviation), so no receive reports an invalidated rkey to alter; on rxe0: the one test that "
                   "reads the rkey already fails there (rxe's wc_flags, an expected deviation), and only a test "
                   "that passes without the mutant counts",
       .completion = [](ibv_wc& wc) {
         if (Received(wc) && SentWithInvalidate(wc.invalidated_rkey)) ++wc.invalidated_rkey;
       }},
  };
}

}  // namespace rdmacheck::mutants
