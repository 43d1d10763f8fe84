// How much memory a process may pin (RLIMIT_MEMLOCK, CAP_IPC_LOCK) against what the suites
// pin at once. Shared by the memlock probe and `rdmacheck doctor`.
#ifndef RDMACHECK_CAPABILITIES_SYSTEM_MEMLOCK_H_
#define RDMACHECK_CAPABILITIES_SYSTEM_MEMLOCK_H_

#include <cstdint>
#include <string>

namespace rdmacheck {

// Whether capability `bit` (linux/capability.h: CAP_IPC_LOCK 14, CAP_NET_ADMIN 12) is in
// this process's effective set (/proc/self/status CapEff).
bool HasEffectiveCapability(int bit);

// What the suites may pin at once (MRs of a few MiB in several tests).
inline constexpr int64_t kMemlockWanted = 64 << 20;

struct MemlockLimit {
  int64_t bytes = -1;        // RLIMIT_MEMLOCK's soft limit; -1: unlimited
  bool cap_ipc_lock = false;  // CAP_IPC_LOCK in the effective set lifts the limit
  bool Enough() const { return bytes < 0 || bytes >= kMemlockWanted || cap_ipc_lock; }
  std::string ToString() const;  // "RLIMIT_MEMLOCK 64 KiB", "RLIMIT_MEMLOCK unlimited"
};

// This process's limit; errno-style failure of getrlimit is reported as unlimited = false,
// bytes = 0 (it does not happen on Linux for RLIMIT_MEMLOCK).
MemlockLimit CurrentMemlockLimit();

// "64 MiB", "8 KiB", "100 bytes".
std::string ByteCount(int64_t n);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_SYSTEM_MEMLOCK_H_
