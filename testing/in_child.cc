#include "testing/in_child.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "harness/reap.h"
#include "harness/status.h"

namespace rdmacheck {

absl::StatusOr<int64_t> CallInChild(const std::function<int64_t()>& fn, absl::Duration timeout) {
  DefaultSigchld sigchld;
  absl::StatusOr<PipedFork> forked = ForkWithPipe();
  if (!forked.ok()) return forked.status();
  const pid_t pid = forked->pid;
  if (pid == 0) {
    const int64_t value = fn();
    const ssize_t n = write(forked->fd, &value, sizeof(value));
    _exit(n == sizeof(value) ? 0 : 1);  // no atexit handlers, no GoogleTest teardown
  }
  const int fd = forked->fd;  // the read end
  int64_t value = 0;
  size_t got = 0;
  bool eof = false;  // the child closed its end: it returned (after writing) or died
  pollfd p{fd, POLLIN, 0};
  const absl::Time deadline = absl::Now() + timeout;
  while (!eof) {
    const int64_t left_ms = absl::ToInt64Milliseconds(deadline - absl::Now());
    if (left_ms <= 0 || poll(&p, 1, static_cast<int>(left_ms)) == 0) break;
    const ssize_t n = read(fd, reinterpret_cast<char*>(&value) + got, sizeof(value) - got);
    if (n <= 0) {
      eof = true;
    } else {
      got = std::min(sizeof(value), got + static_cast<size_t>(n));
    }
  }
  close(fd);
  // A child that closed its pipe is ending; its exit (closing the inherited verbs files) may
  // still hang in the driver, so that wait is bounded too.
  absl::StatusOr<int> exited = absl::DeadlineExceededError("still running");
  if (eof) exited = ReapWithin(pid, KillReapBound());
  if (absl::IsDeadlineExceeded(exited.status())) {
    std::string why = eof ? "the child did not exit after the call (killed)"
                          : absl::StrCat("the call did not return within ", absl::FormatDuration(timeout),
                                         " (child killed)");
    if (absl::Status gone = KillAndReap(pid); !gone.ok()) absl::StrAppend(&why, "; ", gone.message());
    return absl::DeadlineExceededError(why);
  }
  if (!exited.ok()) return exited.status();
  const int status = *exited;
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    return absl::AbortedError(
        absl::StrCat("killed by signal ", sig, " (", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", ")"));
  }
  if (got < sizeof(value)) return absl::InternalError("the child exited without returning a value");
  return value;
}

}  // namespace rdmacheck
