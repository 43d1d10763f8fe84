// Mutants of ATOMIC WRITE (issue 28 item 1): its 8 bytes, and a device that lets an
// operation it does not declare look like success.
//
// Both act through ibv_wr_atomic_write, which only the atomic_write suite calls. On a
// kernel without ATOMIC WRITE (the default image's 6.1) AtomicWriteTest skips as absent,
// so the byte mutant never acts there; UndeclaredAtomicWriteTest runs instead and kills the
// second one.
#include <algorithm>
#include <mutex>
#include <set>
#include <utility>

#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {
namespace {

void SwapBytes(ibv_qp_ex*, uint8_t* bytes) { std::reverse(bytes, bytes + 8); }

// The ATOMIC WRITEs posted, by (QP number, wr_id), so that their completions can be found.
std::mutex posted_mutex;
std::set<std::pair<uint32_t, uint64_t>> posted;

void NoteAtomicWrite(ibv_qp_ex* qp, uint8_t*) {
  std::lock_guard<std::mutex> lock(posted_mutex);
  posted.insert({qp->qp_base.qp_num, qp->wr_id});
}

// An ATOMIC WRITE that failed (refused by the responder, or unknown to the kernel) is
// reported as done.
void AtomicWriteSucceeds(ibv_wc& wc) {
  if (wc.status == IBV_WC_SUCCESS) return;
  std::lock_guard<std::mutex> lock(posted_mutex);
  if (posted.erase({wc.qp_num, wc.wr_id}) == 0) return;
  wc.status = IBV_WC_SUCCESS;
  wc.opcode = IBV_WC_ATOMIC_WRITE;
  wc.vendor_err = 0;
}

}  // namespace

std::vector<Mutant> MemoryOpMutants() {
  return {
      {.name = "atomic_write_bytes_swapped",
       .what = "an ATOMIC WRITE's 8 bytes reach the device in reverse order (a byte-order mistake)",
       .suites = "atomic_write", .filter = "Connect/AtomicWriteTest.*", .devices = "rxe0",
       // Killed by AtomicWriteTest.EightBytesLandAsSent where rxe declares ATOMIC WRITE
       // (kernel 6.2 and later: the sid image). On the default image (6.1) those tests skip
       // as absent and nothing calls ibv_wr_atomic_write: the mutant cannot act there.
       .survives = "acts only where the device declares ATOMIC WRITE (rxe, kernel >= 6.2: the sid image); on "
                   "the default image's 6.1 AtomicWriteTest skips as absent and the mutant never acts",
       .atomic_write = SwapBytes},
      {.name = "atomic_write_undeclared_succeeds",
       .what = "an ATOMIC WRITE that failed (on 6.1: the kernel does not know the opcode; elsewhere: refused by "
               "the responder) completes with IBV_WC_SUCCESS",
       .suites = "atomic_write",
       .filter = "Connect/UndeclaredAtomicWriteTest.*:Connect/AtomicWriteTest.*Refused*", .devices = "rxe0",
       .survives = nullptr, .completion = AtomicWriteSucceeds, .atomic_write = NoteAtomicWrite},
  };
}

}  // namespace rdmacheck::mutants
