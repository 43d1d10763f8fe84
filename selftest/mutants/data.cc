// Data mutants: the completion is right, the bytes it describes are not: a received byte
// corrupted, a byte written past a received message, a byte of an RDMA READ corrupted, an
// atomic's original value wrong. The buffers come from the posted work requests
// (posted_buffers.cc); only the first SGE is touched, and only inside it.
#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

constexpr uint32_t kGrh = 40;  // a UD receive starts with the GRH (or room for it)

void Flip(uint64_t addr) { *reinterpret_cast<volatile uint8_t*>(addr) ^= 0xff; }

// The received message's first byte, and its offset past the message.
void ReceivedBytes(const ibv_wc& wc, bool past_the_end) {
  if (wc.status != IBV_WC_SUCCESS || !(wc.opcode & IBV_WC_RECV)) return;
  Buffer b = TakeRecv(wc.qp_num, wc.wr_id);
  if (!b.found || b.length == 0) return;
  const uint32_t first = (wc.wc_flags & IBV_WC_GRH) ? kGrh : 0;
  if (!past_the_end && wc.byte_len > first && first < b.length) Flip(b.addr + first);
  if (past_the_end && b.num_sge == 1 && wc.byte_len < b.length) Flip(b.addr + wc.byte_len);
}

Buffer SendBuffer(const ibv_wc& wc, ibv_wc_opcode opcode) {
  if (wc.status != IBV_WC_SUCCESS || wc.opcode != opcode) return {};
  return TakeSend(wc.qp_num, wc.wr_id);
}

}  // namespace

std::vector<Mutant> DataMutants() {
  return {
      {.name = "data_recv_byte",
       .what = "the first byte of every received message is corrupted (bits flipped)",
       .suites = "datapath", .filter = "*RcSendSizeTest.SendArrivesIntact/*_MtuPlusOne",
       .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) { ReceivedBytes(wc, false); }},
      {.name = "data_recv_overrun",
       .what = "the byte just past a received message (inside the receive buffer) is overwritten",
       .suites = "datapath", .filter = "*RcSendTest.ReceiveWithMoreRoomThanNeeded*",
       .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) { ReceivedBytes(wc, true); }},
      {.name = "data_read_byte",
       .what = "the first byte an RDMA READ brings back is corrupted",
       .suites = "datapath", .filter = "*RdmaReadSizeTest.ReadReturnsRemoteBytes/*_MtuPlusOne", .devices = "", .survives = nullptr,
       .completion = [](ibv_wc& wc) {
         if (Buffer b = SendBuffer(wc, IBV_WC_RDMA_READ); b.found && b.length > 0) Flip(b.addr);
       }},
      {.name = "atomic_original_value",
       .what = "the original value a FETCH_ADD returns is off by one",
       .suites = "atomics", .filter = "*AtomicsTest.FetchAddAddsAndReturnsTheOriginal*", .devices = "rxe0",
       .survives = nullptr,
       .completion = [](ibv_wc& wc) {
         if (Buffer b = SendBuffer(wc, IBV_WC_FETCH_ADD); b.found && b.length >= 8) {
           ++*reinterpret_cast<volatile uint64_t*>(b.addr);
         }
       }},
  };
}

}  // namespace rdmacheck::mutants
