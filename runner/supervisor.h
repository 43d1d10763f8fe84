// Runs one suite's tests in child processes, so that nothing a test does can lose the
// results of the others.
//
// A child runs the tests it is given and reports them through an events file. When it
// crashes (a signal), exits early, or a test outlives the watchdog, the test it was
// running is recorded as failed with what happened, and a new child runs the tests that
// had not run yet.
//
// The end of a child is judged too: after its last test it must write its leak check and
// exit 0 within `teardown_timeout` (closing the device, the leak check). A child that
// crashes or hangs there, exits non-zero, or leaves no leak check fails the suite with
// kChildEndTest / a failing kLeakCheckTest, with the reason.
//
// Two-host mode (`peer_watch` set): every failing result has the peer checked before it is
// recorded (the child runs on; what it reports meanwhile is read after); a peer that does not answer ends
// the suite at once (the child killed, no new one) and every other supervisor's too. The
// tests without a result then are the run's "not run" (runner/peer_watch.h).
#ifndef RDMACHECK_RUNNER_SUPERVISOR_H_
#define RDMACHECK_RUNNER_SUPERVISOR_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "results/results.h"
#include "runner/fork_server.h"
#include "runner/peer_watch.h"

namespace rdmacheck {

// The result that judges how a child ended after its last test.
inline constexpr char kChildEndTest[] = "ChildEnd.ExitsCleanlyAfterItsTests";

struct SuitePlan {
  std::string suite;
  std::vector<std::string> tests;  // GoogleTest full names
  std::string log_name;            // stem of its files under log_dir; default: the suite's name
};

struct ChildOptions {
  std::string executable;              // the rdmacheck binary
  std::vector<std::string> args;       // e.g. {"__child", "--device=rxe0", ...}
  ForkServer* fork_server = nullptr;   // where set, children are forked from it, not exec'd
  std::string log_dir;                 // <log_name>.log (child output) and <log_name>.<n>.events
  absl::Duration test_timeout;         // the watchdog, per test
  absl::Duration teardown_timeout = absl::Seconds(30);  // after the last test: close, leak check, exit
  std::function<void(const TestResult&)> on_result;  // progress, called as results arrive
  PeerWatch* peer_watch = nullptr;     // two-host mode: checks the peer after each failure
};

// True once a peer_watch found the peer dead: start nothing more.
inline bool RunStopping(const ChildOptions& options) {
  return options.peer_watch != nullptr && options.peer_watch->stopped();
}

struct SuiteOutcome {
  std::vector<TestResult> results;  // in run order; catalogue fields not filled in
  int processes = 0;
  double duration_ms = 0;
};

SuiteOutcome RunSuite(const SuitePlan& plan, const ChildOptions& options);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_SUPERVISOR_H_
