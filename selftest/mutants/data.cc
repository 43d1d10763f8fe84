// Data mutants: the completion is right, the bytes it describes are not: a received byte
// corrupted, a byte written past a received message, a byte of an RDMA READ corrupted, the
// responder's byte just past a READ's source range changed, a byte of an RDMA WRITE's target
// corrupted or the one just past it changed, an atomic's original value wrong, a FETCH_ADD
// that never reaches the remote word. The buffers come from the posted work requests
// (posted_buffers.cc) and the MRs of this process (registered_memory.cc); only registered
// bytes are touched.
#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

constexpr uint32_t kGrh = 40;  // a UD receive starts with the GRH (or room for it)

void Flip(uint64_t addr) {
  if (!addr) return;
  *reinterpret_cast<volatile uint8_t*>(addr) ^= 0xff;
  Acted();
}

// A received message's first byte, or the byte just past it in the receive's SGEs.
void ReceivedByte(const ibv_wc& wc, bool past_the_end) {
  if (wc.status != IBV_WC_SUCCESS || !(wc.opcode & IBV_WC_RECV)) return;
  const Buffer b = TakeRecv(wc.qp_num, wc.wr_id);
  const uint32_t first = (wc.wc_flags & IBV_WC_GRH) ? kGrh : 0;
  if (!b.found || wc.byte_len <= first) return;
  Flip(b.At(past_the_end ? wc.byte_len : first));
}

// The local buffer of a successful send-queue WR of `opcode` (READ, atomics).
Buffer SendBuffer(const ibv_wc& wc, ibv_wc_opcode opcode) {
  if (wc.status != IBV_WC_SUCCESS || wc.opcode != opcode) return {};
  return TakeSend(wc.qp_num, wc.wr_id);
}

// The responder's byte at the start of a successful RDMA READ's or WRITE's remote range, or
// the one just past it. Loopback only: the responder's MR is in this process.
void RemoteByte(const ibv_wc& wc, ibv_wc_opcode opcode, bool past_the_end) {
  const Buffer b = SendBuffer(wc, opcode);
  if (!b.found || (!past_the_end && b.Length() == 0)) return;
  Flip(LocalAddress(b.rkey, b.remote_addr + (past_the_end ? b.Length() : 0), 1));
}

}  // namespace

std::vector<Mutant> DataMutants() {
  return {
      {.name = "data_recv_byte",
       .what = "the first byte of every received message is corrupted (bits flipped)",
       .suites = "datapath", .filter = "Connect/RcSendSizeTest.SendArrivesIntact/RdmaCm_MtuPlusOne", .devices = "",
       .survives = nullptr,
       .completion = [](ibv_wc& wc) { ReceivedByte(wc, false); }},
      {.name = "data_recv_overrun",
       .what = "the byte just past a received message (inside the receive's buffers) is overwritten",
       .suites = "datapath", .filter = "Connect/RcSendTest.ReceiveWithMoreRoomThanNeeded/RdmaCm", .devices = "",
       .survives = nullptr,
       .completion = [](ibv_wc& wc) { ReceivedByte(wc, true); }},
      {.name = "data_read_byte",
       .what = "the first byte an RDMA READ brings back is corrupted",
       .suites = "datapath", .filter = "Connect/RdmaReadSizeTest.ReadReturnsRemoteBytes/RdmaCm_MtuPlusOne", .devices = "",
       .survives = nullptr,
       .completion = [](ibv_wc& wc) { Flip(SendBuffer(wc, IBV_WC_RDMA_READ).At(0)); }},
      {.name = "read_source_overrun",
       .what = "after a successful RDMA READ, the responder's byte just past the source range is changed (its "
               "memory written beyond what was read)",
       // Loopback only: the responder's MR is in this process. Survives the tests of 2026-11
       // alone (they check the requester's side); meant to be killed by the guard bytes
       // around a READ's source range (issue 30, item 6; branch vsuites).
       .suites = "datapath", .filter = "Connect/RdmaReadSizeTest.ReadReturnsRemoteBytes/RdmaCm_MtuPlusOne",
       .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) { RemoteByte(wc, IBV_WC_RDMA_READ, true); }},
      // A successful send completion of an RC WRITE means the bytes are placed (IBTA Vol 1
      // 9.7.5.1.3).
      {.name = "data_write_byte",
       .what = "the first byte an RDMA WRITE puts at the remote address is corrupted",
       .suites = "datapath", .filter = "Connect/RdmaWriteSizeTest.WriteLandsIntact/RdmaCm_MtuPlusOne", .devices = "",
       .survives = nullptr,
       .completion = [](ibv_wc& wc) { RemoteByte(wc, IBV_WC_RDMA_WRITE, false); }},
      {.name = "write_target_overrun",
       .what = "after a successful RDMA WRITE, the remote byte just past the written range is changed",
       .suites = "datapath", .filter = "Connect/RdmaWriteSizeTest.WriteLandsIntact/RdmaCm_MtuPlusOne", .devices = "",
       .survives = nullptr,
       .completion = [](ibv_wc& wc) { RemoteByte(wc, IBV_WC_RDMA_WRITE, true); }},
      {.name = "atomic_original_value",
       .what = "the original value a FETCH_ADD returns is off by one",
       .suites = "atomics", .filter = "Connect/AtomicsTest.FetchAddAddsAndReturnsTheOriginal/RdmaCm", .devices = "rxe0",
       .survives = nullptr,
       .completion = [](ibv_wc& wc) {
         if (uint64_t addr = SendBuffer(wc, IBV_WC_FETCH_ADD).At(0)) {
           ++*reinterpret_cast<volatile uint64_t*>(addr);
           Acted();
         }
       }},
      {.name = "fetch_add_not_applied",
       .what = "a FETCH_ADD returns the original value but the remote word keeps it (the add is lost)",
       .suites = "atomics", .filter = "Connect/AtomicsTest.FetchAddAddsAndReturnsTheOriginal/RdmaCm", .devices = "rxe0",
       .survives = nullptr,
       .completion = [](ibv_wc& wc) {
         const Buffer add = SendBuffer(wc, IBV_WC_FETCH_ADD);
         const uint64_t original = add.At(0), word = LocalAddress(add.rkey, add.remote_addr, 8);
         if (!original || !word) return;
         *reinterpret_cast<volatile uint64_t*>(word) = *reinterpret_cast<volatile uint64_t*>(original);
         Acted();
       }},
  };
}

}  // namespace rdmacheck::mutants
