#include "testing/memlock_limit.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "harness/status.h"

namespace rdmacheck {
namespace {

// Runs `body` on a new thread whose effective capabilities lack CAP_IPC_LOCK (capabilities
// are per thread).
absl::Status RunWithoutIpcLock(const std::function<void()>& body) {
  absl::Status status;
  std::thread worker([&] {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (syscall(SYS_capget, &header, data) != 0) {
      status = ErrnoStatus(errno, "capget");
      return;
    }
    data[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
    if (syscall(SYS_capset, &header, data) != 0) {
      status = ErrnoStatus(errno, "capset");
      return;
    }
    body();
  });
  worker.join();
  return status;
}

}  // namespace

absl::Status RunUnderMemlockLimit(rlim_t bytes, const std::function<void()>& body) {
  rlimit saved{};
  if (getrlimit(RLIMIT_MEMLOCK, &saved) != 0) return ErrnoStatus(errno, "getrlimit(RLIMIT_MEMLOCK)");
  rlimit lowered = saved;
  lowered.rlim_cur = bytes;
  if (setrlimit(RLIMIT_MEMLOCK, &lowered) != 0) return ErrnoStatus(errno, "setrlimit(RLIMIT_MEMLOCK)");
  absl::Status ran = RunWithoutIpcLock(body);
  if (setrlimit(RLIMIT_MEMLOCK, &saved) != 0 && ran.ok()) ran = ErrnoStatus(errno, "setrlimit (restore)");
  return ran;
}

}  // namespace rdmacheck
