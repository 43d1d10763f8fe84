// Probes of address handles and of the process environment (RLIMIT_MEMLOCK).
#include <sys/mman.h>
#include <sys/resource.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "capabilities/probes.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// How much memory the suites may pin at once (MRs of a few MiB in several tests).
constexpr int64_t kMemlockWanted = 64 << 20;

ibv_ah_attr AhTo(const ProbeScope& s, const GidEntry& gid) {
  ibv_ah_attr attr{};
  attr.port_num = s.port();
  attr.dlid = s.selection().port_attr.lid;
  attr.is_global = 1;
  attr.grh.dgid = gid.gid;
  attr.grh.sgid_index = gid.index;
  attr.grh.hop_limit = 64;
  return attr;
}

// An address handle to the selected GID (the device's own address).
absl::Status ProbeAddressHandle(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdPtr pd, AllocPd(s.context()));
  errno = 0;  // some providers return NULL without setting errno
  absl::StatusOr<AhPtr> ah = CreateAh(pd.get(), AhTo(s, s.selection().gid));
  s.Tried(Cap::kAddressHandle, ah.status(),
          absl::StrCat("ibv_create_ah to GID ", s.selection().gid.index, " (", s.selection().gid.Address(), ")"));
  return absl::OkStatus();
}

bool HasCapIpcLock() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) != 0) continue;
    uint64_t caps = 0;
    std::istringstream(line.substr(7)) >> std::hex >> caps;
    return caps & (1ULL << 14);  // CAP_IPC_LOCK
  }
  return false;
}

std::string Bytes(int64_t n) {
  if (n >= (1 << 20) && n % (1 << 20) == 0) return absl::StrCat(n >> 20, " MiB");
  if (n >= 1024 && n % 1024 == 0) return absl::StrCat(n >> 10, " KiB");
  return absl::StrCat(n, " bytes");
}

// RLIMIT_MEMLOCK bounds what a process may register (pin). Enough is what the suites may
// pin at once; root with CAP_IPC_LOCK is not bound by it. Then the evidence: pin that much.
absl::Status ProbeMemlock(ProbeScope& s) {
  rlimit limit{};
  if (getrlimit(RLIMIT_MEMLOCK, &limit) != 0) return ErrnoStatus(errno, "getrlimit(RLIMIT_MEMLOCK)");
  const bool unlimited = limit.rlim_cur == RLIM_INFINITY;
  const bool ipc_lock = HasCapIpcLock();
  std::string what = unlimited ? "RLIMIT_MEMLOCK unlimited" : absl::StrCat("RLIMIT_MEMLOCK ", Bytes(limit.rlim_cur));
  s.Measure("memlock_bytes", unlimited ? -1 : static_cast<int64_t>(limit.rlim_cur),
            absl::StrCat(what, ipc_lock ? " (CAP_IPC_LOCK lifts it)" : "", "; -1 means unlimited"));
  if (!unlimited && static_cast<int64_t>(limit.rlim_cur) < kMemlockWanted && !ipc_lock) {
    s.Record(Cap::kMemlock, Outcome::kUnsupported, ENOMEM,
             absl::StrCat(what, " < ", Bytes(kMemlockWanted), " the suites may pin; run `ulimit -l unlimited`"));
    return absl::OkStatus();
  }
  RDMACHECK_ASSIGN_OR_RETURN(PdPtr pd, AllocPd(s.context()));
  void* memory = mmap(nullptr, kMemlockWanted, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return ErrnoStatus(errno, "mmap");
  {
    absl::StatusOr<MrPtr> mr = RegMr(pd.get(), memory, kMemlockWanted, IBV_ACCESS_LOCAL_WRITE);
    if (!mr.ok()) {
      s.Record(Cap::kMemlock, Outcome::kBroken, ErrnoOf(mr.status()).value_or(0),
               absl::StrCat(what, ", but registering ", Bytes(kMemlockWanted), " failed: ", mr.status().message()));
    } else {
      s.Record(Cap::kMemlock, Outcome::kSupported, 0,
               absl::StrCat(what, ipc_lock && !unlimited ? " (CAP_IPC_LOCK lifts it)" : "", "; registered ",
                            Bytes(kMemlockWanted)));
    }
  }  // the MR is gone before its memory
  munmap(memory, kMemlockWanted);
  return absl::OkStatus();
}

}  // namespace

std::vector<ProbeSpec> EnvironmentProbes() {
  return {
      {"address_handle", {Cap::kAddressHandle}, ProbeAddressHandle},
      {"memlock", {Cap::kMemlock}, ProbeMemlock},
  };
}

}  // namespace rdmacheck
