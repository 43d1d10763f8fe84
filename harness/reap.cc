#include "harness/reap.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "harness/status.h"
#include "harness/timeouts.h"

namespace rdmacheck {

DefaultSigchld::DefaultSigchld() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGCHLD, &dfl, &saved_);
}

DefaultSigchld::~DefaultSigchld() { sigaction(SIGCHLD, &saved_, nullptr); }

absl::StatusOr<PipedFork> ForkWithPipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return ErrnoStatus(errno, "pipe2");
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(fds[0]);
    close(fds[1]);
    return ErrnoStatus(err, "fork");
  }
  if (pid == 0) {
    close(fds[0]);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    return PipedFork{0, fds[1]};
  }
  close(fds[1]);
  return PipedFork{pid, fds[0]};
}

namespace {

std::string ReadProcFile(pid_t pid, const char* name) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/", name));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// proc(5)'s state letters; D is the one SIGKILL cannot end.
const char* StateMeaning(char state) {
  switch (state) {
    case 'D': return "uninterruptible sleep, in the kernel";
    case 'S': return "sleeping";
    case 'R': return "running";
    case 'Z': return "zombie, exited and not reaped";
    case 'T': return "stopped";
    case 't': return "stopped by a tracer";
    case 'X': return "dead";
    default: return "unknown";
  }
}

}  // namespace

absl::Duration KillReapBound() { return Scaled(absl::Seconds(10)); }

absl::StatusOr<int> ReapWithin(pid_t pid, absl::Duration bound) {
  const absl::Time deadline = absl::Now() + bound;
  while (true) {
    int wstatus = 0;
    const pid_t reaped = waitpid(pid, &wstatus, WNOHANG);
    if (reaped == pid) return wstatus;
    if (reaped < 0 && errno != EINTR) return ErrnoStatus(errno, absl::StrCat("waitpid(", pid, ")"));
    if (absl::Now() >= deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("process ", pid, " still there after ", absl::FormatDuration(bound)));
    }
    absl::SleepFor(absl::Milliseconds(10));
  }
}

absl::Status KillAndReap(pid_t pid, absl::Duration bound) {
  kill(pid, SIGKILL);
  const absl::Status reaped = ReapWithin(pid, bound).status();
  return absl::IsDeadlineExceeded(reaped) ? absl::DeadlineExceededError(StuckProcess(pid, bound)) : reaped;
}

std::string StuckProcess(pid_t pid, absl::Duration bound) {
  return absl::StrCat("process ", pid, " did not exit ", absl::FormatDuration(bound), " after SIGKILL: ",
                      DescribeProcessState(ReadProcFile(pid, "stat"), ReadProcFile(pid, "wchan")));
}

std::string DescribeProcessState(absl::string_view stat, absl::string_view wchan) {
  // "1234 (comm) S ...": the command may hold spaces and parentheses, the state follows the last ')'.
  const size_t paren = stat.rfind(')');
  const bool readable = paren != absl::string_view::npos && paren + 2 < stat.size();
  const char state = readable ? stat[paren + 2] : '?';
  wchan = absl::StripAsciiWhitespace(wchan);
  // wchan is "0" for a process not waiting, or when kallsyms are hidden from this reader.
  const std::string where = wchan.empty() || wchan == "0" ? "waiting in an unknown place (no wchan)"
                                                          : absl::StrCat("waiting in ", wchan);
  if (!readable) return absl::StrCat("its state is unreadable (/proc/PID/stat), ", where);
  return absl::StrCat("state ", std::string(1, state), " (", StateMeaning(state), "), ", where);
}

}  // namespace rdmacheck
