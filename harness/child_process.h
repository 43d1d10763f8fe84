// A child process with its output read through pipes, every wait bounded by a deadline.
//
// Used where rdmacheck runs another program and reads what it prints: perftest beside the
// benchmarks, tshark under the wire checks. Usage:
//   ASSIGN_OR_RETURN(ChildProcess child, SpawnChild({"tshark", "-r", path}, Stderr::kSeparate));
//   int exit = FinishChild(child, deadline);   // -1: still running at the deadline, killed
//   ... child.output, child.errors
#ifndef RDMACHECK_HARNESS_CHILD_PROCESS_H_
#define RDMACHECK_HARNESS_CHILD_PROCESS_H_

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rdmacheck {

// Where the child's stderr goes: into `output` with stdout (a program whose last line says
// why it failed), or into `errors` (a program whose stdout is data to parse).
enum class Stderr { kWithStdout, kSeparate };

struct ChildProcess {
  pid_t pid = -1;
  int out = -1;  // read end of stdout (and stderr with kWithStdout)
  int err = -1;  // read end of stderr with kSeparate
  std::string output;
  std::string errors;
  // Set by FinishChild when the child it killed could not be reaped, mostly because it
  // outlived SIGKILL (stuck in the kernel, harness/reap.h): "process 1234 did not exit 10s
  // after SIGKILL: state D ...". A caller reporting the timeout names this (TimedOut).
  std::string stuck;
};

// Starts args[0] (looked up in PATH) with stdin from /dev/null.
absl::StatusOr<ChildProcess> SpawnChild(const std::vector<std::string>& args, Stderr stderr_to);

// Reads the child's output until it exits or `deadline`; a child still running then is
// killed (SIGKILL; one that outlives it sets `stuck`). Returns its exit status, 128+signal
// when a signal ended it, -1 when it was killed at the deadline. With `on_output`, stdout
// goes to it chunk by chunk instead of into `output` (a program that prints more than is
// worth holding).
int FinishChild(ChildProcess& child, std::chrono::steady_clock::time_point deadline,
                const std::function<void(absl::string_view)>& on_output = nullptr);

// For a caller's message after FinishChild returned -1: "timed out", and where the child is
// stuck when it outlived SIGKILL ("timed out; process 1234 did not exit 10s after SIGKILL: ...").
std::string TimedOut(const ChildProcess& child);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CHILD_PROCESS_H_
