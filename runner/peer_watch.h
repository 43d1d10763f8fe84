// Two-host mode: one stuck peer must not poison the rest of the run.
//
// After a test fails (its own verdict, a crash, the watchdog) in a run with --peer, the
// supervisor asks the peer's `rdmacheck serve` for a pong on a fresh side-channel
// connection (PingPeer, harness/remote/peer_link.h) before it records the result; the child
// runs on meanwhile (runner/supervisor.cc says why it is not stopped). A peer that answers
// is alive, whatever the failed test's own session did. A peer silent for
// the whole window stops the run within seconds:
//   - the failed test keeps its failure, with the reason appended (abnormal: no
//     expectation turns it into an xfail);
//   - the tests not run yet are not run, and are not results: results.json lists them in
//     environment.lab_failure (LabFailure(); the shape the wire lab's stall writes too,
//     reports/wire_slices.h) and says "complete": false, so nothing about the device is
//     read into them;
//   - `run` prints LabFailureLine() on stderr and exits kExitPeerUnreachable (cli/commands.h).
#ifndef RDMACHECK_RUNNER_PEER_WATCH_H_
#define RDMACHECK_RUNNER_PEER_WATCH_H_

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"
#include "results/results.h"
#include "runner/test_selection.h"

namespace rdmacheck {

class PeerWatch {
 public:
  // OK when the peer answered within `window` (PingPeer in `run`; a fake in unit tests).
  using Probe = std::function<absl::Status(absl::Duration window)>;

  PeerWatch(std::string peer, absl::Duration window, Probe probe)
      : peer_(std::move(peer)), window_(window), probe_(std::move(probe)) {}

  // Called with a result before it is recorded; results that did not fail pass through.
  // After a failure it asks the peer (once: a peer found dead stays dead) and returns true
  // while the peer answers. When it does not, `failed` gets the reason appended and is
  // marked abnormal, and the answer is false: stop the run. Thread-safe: the supervisors
  // of `--jobs` children call it at once; one probe runs at a time.
  bool AfterResult(TestResult& failed);

  bool stopped() const { return stopped_.load(); }

  // environment.lab_failure of a stopped run, once every supervisor is done: {"reason",
  // "peer", "after", "silent_s", "not_run": [the tests that got no result: TestsNotRun]}.
  nlohmann::json LabFailure(const std::vector<std::string>& not_run) const;

 private:
  const std::string peer_;
  const absl::Duration window_;
  const Probe probe_;
  std::mutex mutex_;  // one probe at a time; guards the fields below
  std::atomic<bool> stopped_{false};
  std::string after_;   // the failed test after which the peer did not answer
  std::string reason_;  // "the peer HOST:PORT stopped answering its side channel (...)"
  double silent_s_ = 0;  // how long the probe waited for it
};

// The planned tests that have no result in `results`, in the planned order.
std::vector<std::string> TestsNotRun(const std::vector<RegisteredTest>& planned,
                                     const std::vector<TestResult>& results);

// The planned tests less those environment.lab_failure lists as not run (all of them in a
// run without one): what the run's floor judges (run_floor.h), so that a test the peer's
// end kept from running fails no floor item on the device.
std::vector<RegisteredTest> TestsRun(const std::vector<RegisteredTest>& planned, const nlohmann::json& environment);

// The one stderr line of a run that stopped: "rdmacheck: peer HOST:PORT unreachable (side
// channel silent for N s) after TEST; M tests not run".
std::string LabFailureLine(const nlohmann::json& lab_failure);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_PEER_WATCH_H_
