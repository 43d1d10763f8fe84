// The memory regions this process registered, by rkey: in a loopback pair the target of an
// RDMA READ or WRITE is one of them, and a mutant can reach it. An MR's entry goes when it
// is deregistered (its rkey may be reused).
#include <map>
#include <mutex>

#include "selftest/mutants/mutant.h"

namespace rdmacheck::mutants {
namespace {

struct Region {
  uint64_t iova, addr, length;
};
std::mutex mutex;
std::map<uint32_t, Region>& Regions() {
  static auto* regions = new std::map<uint32_t, Region>;  // never destroyed: children exit with MRs
  return *regions;
}

}  // namespace

void RecordMr(const ibv_mr* mr, uint64_t iova) {
  std::lock_guard<std::mutex> lock(mutex);
  Regions()[mr->rkey] = {iova, reinterpret_cast<uintptr_t>(mr->addr), mr->length};
}

void ForgetMr(const ibv_mr* mr) {
  std::lock_guard<std::mutex> lock(mutex);
  Regions().erase(mr->rkey);
}

uint64_t LocalAddress(uint32_t rkey, uint64_t iova, uint64_t length) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = Regions().find(rkey);
  if (it == Regions().end()) return 0;
  const Region& r = it->second;
  if (iova < r.iova || iova - r.iova > r.length || length > r.length - (iova - r.iova)) return 0;
  return r.addr + (iova - r.iova);
}

}  // namespace rdmacheck::mutants
