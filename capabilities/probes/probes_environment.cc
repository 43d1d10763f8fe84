// Probes of address handles, of the process environment (RLIMIT_MEMLOCK) and of the
// device's traffic counters.
#include <sys/mman.h>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "capabilities/system/device_counters.h"
#include "capabilities/system/memlock.h"
#include "capabilities/probes/probes.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// An address handle to the selected GID (the device's own address).
absl::Status ProbeAddressHandle(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdPtr pd, AllocPd(s.context()));
  errno = 0;  // some providers return NULL without setting errno
  absl::StatusOr<AhPtr> ah = CreateAh(pd.get(), AhAttrToOwnGid(s.selection()));
  s.Tried(Cap::kAddressHandle, ah.status(),
          absl::StrCat("ibv_create_ah to GID ", s.selection().gid.index, " (", s.selection().gid.Address(), ")"));
  return absl::OkStatus();
}

// RLIMIT_MEMLOCK bounds what a process may register (pin). Enough is what the suites may
// pin at once; root with CAP_IPC_LOCK is not bound by it. Then the evidence: pin that much.
absl::Status ProbeMemlock(ProbeScope& s) {
  const MemlockLimit limit = CurrentMemlockLimit();
  const bool unlimited = limit.bytes < 0;
  const bool ipc_lock = limit.cap_ipc_lock;
  const std::string what = limit.ToString();
  s.Measure("memlock_bytes", limit.bytes,
            absl::StrCat(what, ipc_lock ? " (CAP_IPC_LOCK lifts it)" : "", "; -1 means unlimited"));
  if (!limit.Enough()) {
    s.Record(Cap::kMemlock, Outcome::kUnsupported, ENOMEM,
             absl::StrCat(what, " < ", ByteCount(kMemlockWanted), " the suites may pin; run `ulimit -l unlimited`"));
    return absl::OkStatus();
  }
  RDMACHECK_ASSIGN_OR_RETURN(PdPtr pd, AllocPd(s.context()));
  void* memory = mmap(nullptr, kMemlockWanted, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return ErrnoStatus(errno, "mmap");
  {
    absl::StatusOr<MrPtr> mr = RegMr(pd.get(), memory, kMemlockWanted, IBV_ACCESS_LOCAL_WRITE);
    if (!mr.ok()) {
      s.Record(Cap::kMemlock, Outcome::kBroken, ErrnoOf(mr.status()).value_or(0),
               absl::StrCat(what, ", but registering ", ByteCount(kMemlockWanted), " failed: ", mr.status().message()));
    } else {
      s.Record(Cap::kMemlock, Outcome::kSupported, 0,
               absl::StrCat(what, ipc_lock && !unlimited ? " (CAP_IPC_LOCK lifts it)" : "", "; registered ",
                            ByteCount(kMemlockWanted)));
    }
  }  // the MR is gone before its memory
  munmap(memory, kMemlockWanted);
  return absl::OkStatus();
}

// Whether the port keeps traffic counters: present and readable is supported; a device
// that keeps none (siw) is unsupported. Never grades them: that is what each test's
// before/after reading does (runner/counters.h).
absl::Status ProbeTrafficCounters(ProbeScope& s) {
  const DeviceCounters counters = DeviceCounters::Find(s.selection().device, s.port());
  if (!counters.any()) {
    s.Record(Cap::kTrafficCounters, Outcome::kUnsupported, EOPNOTSUPP, counters.evidence());
    return absl::OkStatus();
  }
  absl::StatusOr<CounterValues> values = counters.Read();
  if (!values.ok()) {
    s.Record(Cap::kTrafficCounters, Outcome::kBroken, ErrnoOf(values.status()).value_or(0),
             absl::StrCat(counters.evidence(), "; reading them failed: ", values.status().message()));
    return absl::OkStatus();
  }
  s.Record(Cap::kTrafficCounters, Outcome::kSupported, 0, counters.evidence());
  return absl::OkStatus();
}

// fork() beside registered memory (ibv_fork_init(3)): safe when the kernel copies pinned
// pages for the child at fork (copy-on-fork, Linux 5.13; libibverbs then says
// IBV_FORK_UNNEEDED), or when ibv_fork_init / RDMAV_FORK_SAFE=1 made libibverbs mark
// registered memory MADV_DONTFORK (IBV_FORK_ENABLED). Neither: fork is not safe here and
// the fork tests are skipped. That the parent's memory then really stays its own is
// ForkTest's to grade.
absl::Status ProbeForkSafe(ProbeScope& s) {
  switch (ibv_is_fork_initialized()) {
    case IBV_FORK_UNNEEDED:
      s.Record(Cap::kForkSafe, Outcome::kSupported, 0,
               "ibv_is_fork_initialized()=IBV_FORK_UNNEEDED: the kernel copies pinned pages at fork");
      break;
    case IBV_FORK_ENABLED:
      s.Record(Cap::kForkSafe, Outcome::kSupported, 0,
               "ibv_is_fork_initialized()=IBV_FORK_ENABLED (ibv_fork_init or RDMAV_FORK_SAFE)");
      break;
    default:
      s.Record(Cap::kForkSafe, Outcome::kUnsupported, 0,
               "ibv_is_fork_initialized()=IBV_FORK_DISABLED: no kernel copy-on-fork, and neither ibv_fork_init "
               "nor RDMAV_FORK_SAFE in effect");
      break;
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<ProbeSpec> EnvironmentProbes() {
  return {
      {"address_handle", {Cap::kAddressHandle}, ProbeAddressHandle},
      {"memlock", {Cap::kMemlock}, ProbeMemlock},
      {"traffic_counters", {Cap::kTrafficCounters}, ProbeTrafficCounters},
      {"fork_safe", {Cap::kForkSafe}, ProbeForkSafe},
  };
}

}  // namespace rdmacheck
