#include "capabilities/system/memlock.h"

#include <sys/resource.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace rdmacheck {
namespace {

bool HasCapIpcLock() { return HasEffectiveCapability(14); }  // CAP_IPC_LOCK

}  // namespace

bool HasEffectiveCapability(int bit) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    uint64_t caps = 0;
    std::istringstream(line.substr(7)) >> std::hex >> caps;
    return (caps >> bit) & 1;
  }
  return false;
}

std::string ByteCount(int64_t n) {
  if (n >= (1 << 20) && n % (1 << 20) == 0) return absl::StrCat(n >> 20, " MiB");
  if (n >= 1024 && n % 1024 == 0) return absl::StrCat(n >> 10, " KiB");
  return absl::StrCat(n, " bytes");
}

std::string MemlockLimit::ToString() const {
  return bytes < 0 ? "RLIMIT_MEMLOCK unlimited" : absl::StrCat("RLIMIT_MEMLOCK ", ByteCount(bytes));
}

MemlockLimit CurrentMemlockLimit() {
  MemlockLimit m;
  rlimit limit{};
  if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0) {
    m.bytes = 0;
  } else {
    m.bytes = limit.rlim_cur == RLIM_INFINITY ? -1 : static_cast<int64_t>(limit.rlim_cur);
  }
  m.cap_ipc_lock = HasCapIpcLock();
  return m;
}

}  // namespace rdmacheck
