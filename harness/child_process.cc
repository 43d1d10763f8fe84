#include "harness/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "harness/reap.h"
#include "harness/status.h"

extern char** environ;

namespace rdmacheck {

absl::StatusOr<ChildProcess> SpawnChild(const std::vector<std::string>& args, Stderr stderr_to) {
  int out[2], err[2] = {-1, -1};
  if (pipe2(out, O_CLOEXEC) != 0) return ErrnoStatus(errno, "pipe2");
  if (stderr_to == Stderr::kSeparate && pipe2(err, O_CLOEXEC) != 0) {
    int e = errno;
    close(out[0]);
    close(out[1]);
    return ErrnoStatus(e, "pipe2");
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, stderr_to == Stderr::kSeparate ? err[1] : out[1], 2);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ChildProcess child;
  int rc = posix_spawnp(&child.pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(out[1]);
  if (err[1] >= 0) close(err[1]);
  if (rc != 0) {
    close(out[0]);
    if (err[0] >= 0) close(err[0]);
    return ErrnoStatus(rc, absl::StrCat("cannot start ", args[0]));
  }
  child.out = out[0];
  child.err = err[0];
  return child;
}

int FinishChild(ChildProcess& child, std::chrono::steady_clock::time_point deadline,
                const std::function<void(absl::string_view)>& on_output) {
  char buf[65536];
  while (child.out >= 0 || child.err >= 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd p[2] = {{child.out, POLLIN, 0}, {child.err, POLLIN, 0}};  // a negative fd is ignored
    if (poll(p, 2, static_cast<int>(std::min<int64_t>(left.count(), 200))) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      int& fd = i == 0 ? child.out : child.err;
      if (fd < 0 || p[i].revents == 0) continue;
      ssize_t n = read(fd, buf, sizeof(buf));
      if (n <= 0) {
        close(fd);
        fd = -1;
      } else if (i == 0 && on_output) {
        on_output(absl::string_view(buf, n));
      } else {
        (i == 0 ? child.output : child.errors).append(buf, n);
      }
    }
  }
  // Output closed: the child is ending, within what is left of the deadline. Otherwise, or
  // if it does not, it is still running at the deadline.
  const bool ending = child.out < 0 && child.err < 0;
  absl::StatusOr<int> exited = absl::DeadlineExceededError("still running");
  if (ending) exited = ReapWithin(child.pid, absl::FromChrono(deadline - std::chrono::steady_clock::now()));
  if (absl::IsDeadlineExceeded(exited.status())) {
    for (int* fd : {&child.out, &child.err}) {
      if (*fd >= 0) close(*fd);
      *fd = -1;
    }
    if (absl::Status gone = KillAndReap(child.pid); !gone.ok()) child.stuck = std::string(gone.message());
    return -1;
  }
  const int status = exited.value_or(0);  // 0 as before when waitpid fails (SIGCHLD ignored: reaped for us)
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string TimedOut(const ChildProcess& child) {
  return child.stuck.empty() ? "timed out" : absl::StrCat("timed out; ", child.stuck);
}

}  // namespace rdmacheck
