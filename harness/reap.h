// Reaping a child process with a bound, so that a child stuck in the kernel is a failure
// named as such, never a hang.
//
// SIGKILL ends a process at its next return to user space or interruptible sleep. A
// process in an uninterruptible sleep (state D: a driver waiting for its hardware, its
// work queue or a lock) never gets there, and a waitpid() without WNOHANG on it blocks
// for as long as the driver does: forever, when the driver is the bug under test.
//
//   if (absl::Status gone = KillAndReap(pid); !gone.ok()) result.message = gone.message();
//   // "process 1234 did not exit 10s after SIGKILL: state D (...), waiting in ..."
#ifndef RDMACHECK_HARNESS_REAP_H_
#define RDMACHECK_HARNESS_REAP_H_

#include <signal.h>
#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace rdmacheck {

// SIGCHLD at its default for the object's life: a process that ignores it (inherited from
// whatever started it) has its children reaped for it, and their exit status is lost.
class DefaultSigchld {
 public:
  DefaultSigchld();
  ~DefaultSigchld();
  DefaultSigchld(const DefaultSigchld&) = delete;
  DefaultSigchld& operator=(const DefaultSigchld&) = delete;

 private:
  struct sigaction saved_ {};
};

// fork() with a pipe from the child to this process, for a call or a walk that may kill
// its caller. In the child `pid` is 0 and `fd` the pipe's write end, its core dumps are
// off (a crash there is the finding; dumping it only costs time); in the parent `fd` is
// the read end. Both ends are O_CLOEXEC.
struct PipedFork {
  pid_t pid = -1;
  int fd = -1;
};
absl::StatusOr<PipedFork> ForkWithPipe();

// How long a killed process may take to be gone: 10 s, scaled (harness/timeouts.h). A
// dying process still releases what it holds, in the kernel: closing a uverbs file
// destroys every QP, CQ and MR it owned, and rxe and siw wait for their tasks and siw for
// its TCP connections there, which takes a second or two under an emulated CPU. Ten is
// well past that, and short enough that a run never looks hung.
absl::Duration KillReapBound();

// The wait status of `pid` (a child of this process) once it exits, polling up to
// `bound`: DEADLINE_EXCEEDED while it is still there then (it is not reaped), or the
// waitpid() error (ECHILD: not our child, or already reaped).
absl::StatusOr<int> ReapWithin(pid_t pid, absl::Duration bound);

// Sends SIGKILL to `pid` (a child of this process) and reaps it within `bound`. A process
// still there then is DEADLINE_EXCEEDED, with what StuckProcess() says about it; it is left
// unreaped. Any other error is waitpid()'s (ECHILD: not our child).
absl::Status KillAndReap(pid_t pid, absl::Duration bound = KillReapBound());

// "process 1234 did not exit 10s after SIGKILL: state D (uninterruptible sleep, in the
// kernel), waiting in siw_qp_llp_close", from /proc/<pid>/stat and /proc/<pid>/wchan.
std::string StuckProcess(pid_t pid, absl::Duration bound);

// The part of StuckProcess() read from /proc, as a function of the two files' contents
// ("" where unreadable): "state D (uninterruptible sleep, in the kernel), waiting in X".
std::string DescribeProcessState(absl::string_view stat, absl::string_view wchan);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_REAP_H_
