// Running code under a lowered RLIMIT_MEMLOCK, as an unprivileged process would: pinned
// memory is charged to the limit unless the caller has CAP_IPC_LOCK (the lab runs as root).
//
// The capability is dropped on a thread of its own, never on the test's thread: changing
// a thread's credentials makes the kernel refuse write()-based uverbs commands on files
// opened before (ib_safe_file_access() compares the file's credentials with the caller's:
// EACCES), and rxe rings its send doorbell that way, so every later ibv_post_send of the
// process would fail.
#ifndef RDMACHECK_TESTING_MEMLOCK_LIMIT_H_
#define RDMACHECK_TESTING_MEMLOCK_LIMIT_H_

#include <sys/resource.h>

#include <functional>

#include "absl/status/status.h"

namespace rdmacheck {

// Lowers the soft RLIMIT_MEMLOCK (a per-process limit) to `bytes`, runs `body` on a new thread
// without CAP_IPC_LOCK, and restores the limit. An error says which step failed; `body` did
// not run then.
absl::Status RunUnderMemlockLimit(rlim_t bytes, const std::function<void()>& body);

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_MEMLOCK_LIMIT_H_
