// Starts suite children by fork instead of exec.
//
// Every child `run` starts used to be a fresh exec of rdmacheck: under the lab's emulated
// CPU that costs 0.45 s before the first test (loading 48 shared libraries, registering a
// thousand tests), and a device's run starts 20 or more of them. A ForkServer is a process
// forked from `run` while it is still single-threaded, with the program loaded and the
// tests registered; each child is forked from it and runs `body` with its arguments.
//
// The server forks twice (server -> helper -> child) and the helper exits at once, so the
// child is reparented to `run`, which made itself a child subreaper: `run` waits for and
// kills its children as it always did (waitpid, SIGKILL), whichever way they started.
#ifndef RDMACHECK_RUNNER_FORK_SERVER_H_
#define RDMACHECK_RUNNER_FORK_SERVER_H_

#include <sys/types.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rdmacheck {

// Set to "1" in each forked child's environment: its command line is its parent's, so a
// library preloaded into `run` (selftest/mutants) tells a child from its parent by this.
inline constexpr char kForkedChildEnv[] = "RDMACHECK_FORKED_CHILD";

// In a child, before it runs: stdout and stderr appended to `log`, stdin from /dev/null
// (a forked or an exec'd child alike).
void AttachChildOutput(const std::string& log);

class ForkServer {
 public:
  // What a child runs: its arguments (flags) in, its exit status out.
  using Body = std::function<int(const std::vector<std::string>& args)>;

  // Forks the server. Refused (FailedPrecondition) when this process has more than one
  // thread: a fork copies only the calling thread, and a lock another thread held would
  // stay locked in every child.
  static absl::StatusOr<std::unique_ptr<ForkServer>> Start(Body body);
  ~ForkServer();  // the server exits when its socket closes

  // Starts a child running the body with `args`, its stdout and stderr appended to `log`
  // and stdin from /dev/null. The child is this process's child: waitpid() it.
  absl::StatusOr<pid_t> Spawn(const std::vector<std::string>& args, const std::string& log);

 private:
  ForkServer(int socket, pid_t pid) : socket_(socket), pid_(pid) {}

  std::mutex lock_;  // one request at a time on the socket
  int socket_;
  pid_t pid_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_FORK_SERVER_H_
