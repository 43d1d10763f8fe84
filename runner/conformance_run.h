// `rdmacheck run`: probe the device, run the selected suites in supervised child
// processes (one per suite, or `jobs` at once over shards of the suites: shards.h), and
// collect one result per test, in the run's order whatever order they ended in; the
// kernel log fails the tests it was written during (kernel_log.h), and the run when it was
// written while the device was probed (opened before: RunPlan::kernel_log), the device's counters
// prove their traffic (counters.h). In two-host mode a peer that stops answering stops
// the run (peer_watch.h): the tests not run are listed in environment.lab_failure, and
// the run is not complete.
#ifndef RDMACHECK_RUNNER_CONFORMANCE_RUN_H_
#define RDMACHECK_RUNNER_CONFORMANCE_RUN_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "capabilities/profile/profile.h"
#include "harness/device.h"
#include "results/results.h"
#include "runner/fork_server.h"
#include "runner/kernel_log.h"
#include "runner/peer_watch.h"
#include "runner/test_selection.h"

namespace rdmacheck {

inline constexpr char kCountersReadTest[] = "TrafficCounters.ReadAroundEveryTest";
inline constexpr char kStrictKernelLogTest[] = "Strict.KernelLogWasRead";
inline constexpr char kStrictCountersTest[] = "Strict.TrafficCountersWereRead";

struct RunPlan {
  Selection selection;
  Profile profile;
  std::vector<RegisteredTest> tests;
  std::string out_dir;
  std::string executable;                 // this binary, re-run as `__child`
  std::vector<std::string> child_flags;   // selection and other flags the children need
  // Where set, the children are forked from it (fork_server.h), else each is an exec of
  // `executable`. Started before the process touched a device: a child must open its own.
  ForkServer* fork_server = nullptr;
  absl::Duration test_timeout;
  std::function<void(const TestResult&)> on_result;  // as each result arrives (again when the kernel log fails it)
  std::function<void(const RunResults&)> on_suite;   // after each suite, with every result so far (complete=false)
  std::string kernel_log_path = "/dev/kmsg";         // kernel_log.h
  // Opened before the device was opened and probed: what the probes made the kernel report
  // fails the run (KernelLog.WhileProbing). Null: Execute opens kernel_log_path itself.
  KernelLog* kernel_log = nullptr;
  int jobs = 1;                                      // children at once (shards.h)
  // The kernel log that could not be read or lost records, the device's counters that could
  // not be read: notes by default; with `strict` (CI, the lab) each is a failing result of the run.
  bool strict = false;
  // Two-host mode: asked after every failing result; once it finds the peer gone, the run
  // stops and environment.lab_failure lists the tests it did not run.
  PeerWatch* peer_watch = nullptr;
};

// Runs the plan; writes logs under out_dir/logs. Catalogue fields are filled in. Per
// suite, tests whose counters could not be read around them fail the suite's
// kCountersReadTest (a test's traffic is unproven, not proven).
RunResults Execute(const RunPlan& plan);

// The environment block of results.json: selection, identity, versions, and the port's
// rate, netdev MTU and PCIe link where the kernel states them (capabilities/system/port_facts.h).
nlohmann::json RunEnvironment(const Selection& selection, const Profile& profile);

// What a two-host run (`run --peer`) adds to it: "peer_active_mtu", the serving port's
// active MTU, and "path_mtu", the one the run's pairs use (TwoHostPathMtu), in bytes.
nlohmann::json TwoHostEnvironment(const Selection& selection, ibv_mtu peer_active_mtu);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_CONFORMANCE_RUN_H_
