// rdmacheck health: a node health check fast enough for Slurm's HealthCheckProgram (LBNL
// NHC's convention: one line, exit non-zero when the node must not take work; the caller,
// ci/slurm/healthcheck.sh, drains the node with that line as the reason).
//
//   rdmacheck health [--devices=mlx5_0,mlx5_1] [--out=DIR] [--timeout_multiplier=X]
//
// Three steps, stopping at the first that fails: the doctor (RLIMIT_MEMLOCK, device nodes,
// ports, GIDs, rdma_cm: doctor/checks.h) over every device; then per device `rdmacheck run`
// (which probes first: a declared capability that misbehaves fails as
// BrokenCapability.<name>) limited to HealthTests(), a handful of traffic tests: RC SEND,
// WRITE and READ through the pair builder (manual wiring or rdma_cm, as the device needs),
// an rdma_cm connect/disconnect, and the port and GID the traffic uses. Each run is
// --strict (a kernel log or counters it could not read fail the node: a health check that
// saw nothing says so) and bounded (kRunDeadline, scaled); its results stay in DIR/<device> (default
// /tmp/rdmacheck-health) for a closer look.
//
// Prints "rdmacheck health: OK host: rxe0 9 passed, siw0 ..." and exits 0, or
// "rdmacheck health: FAIL host: <the first reason>" and exits 1. Exit 2: bad flags.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "doctor/checks.h"
#include "harness/child_process.h"
#include "harness/timeouts.h"
#include "results/failure_line.h"
#include "results/results.h"
#include "runner/run_floor.h"

ABSL_FLAG(std::vector<std::string>, devices, {},
          "health: the devices this node must have, comma-separated (default: every device there is)");

namespace rdmacheck {
namespace {

// The traffic tests a health check runs (a --gtest_filter): seconds, not minutes, and each
// one exercises a path a broken NIC breaks (link, GID/route, QP connection, data movement).
// It includes the run's floor (runner/run_floor.h: the basic RC SEND, WRITE and READ tests,
// their 1-byte instances, FloorInstancesFilter), so a node whose every traffic test skipped
// — its RC QP refused, every pair absent — fails RunFloor.* instead of reporting OK with
// nothing run.
std::string HealthTests() {
  return absl::StrCat(
      "PortQueryTest.SelectedPortIsActive:GidTableTest.SelectedPortHasUsableGid:", FloorInstancesFilter(),
      ":*RcSendTest.MessagesArriveInPostingOrder*:*RdmaWriteTest.WriteIsVisibleWhenLaterSendArrives*:"
      "*RdmaReadTest.ReadAfterWriteSeesTheWrite*:*CmEventsTest.ConnectAndDisconnectInOrder*");
}
constexpr auto kRunDeadline = std::chrono::seconds(120);

std::string Host() {
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

int Say(bool ok, const std::string& text) {
  std::cout << "rdmacheck health: " << (ok ? "OK " : "FAIL ") << Host() << ": " << text << std::endl;
  return ok ? kExitOk : kExitFailures;
}

std::string Executable() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "rdmacheck" : self.string();
}

// The first failure of a run, as "DEVICE: TEST: what went wrong" (results/failure_line.h).
std::string FirstFailure(const std::string& device, const RunResults& results) {
  for (const TestResult& t : results.tests) {
    if (!IsFailure(t.status)) continue;
    return absl::StrCat(device, ": ", t.name, ": ",
                        t.status == TestStatus::kXpass ? "passed, but listed as failing" : FailureLine(t.message, 120));
  }
  return "";
}

}  // namespace

int HealthCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError("health takes no arguments, got '" + positional[0] + "'");
  if (absl::GetFlag(FLAGS_timeout_multiplier) <= 0) return UsageError("--timeout_multiplier must be > 0");
  const std::string out = absl::GetFlag(FLAGS_out).empty() ? "/tmp/rdmacheck-health" : absl::GetFlag(FLAGS_out);

  const HostFacts facts = GatherFacts("");
  std::vector<std::string> devices = absl::GetFlag(FLAGS_devices);
  if (devices.empty()) devices = facts.sysfs_devices;
  if (devices.empty()) return Say(false, facts.sysfs_error.empty() ? "no RDMA device" : facts.sysfs_error);
  for (const std::string& d : devices) {
    if (std::find(facts.sysfs_devices.begin(), facts.sysfs_devices.end(), d) == facts.sysfs_devices.end()) {
      return Say(false, absl::StrCat(d, " is gone (devices here: ",
                                         facts.sysfs_devices.empty() ? "none" : absl::StrJoin(facts.sysfs_devices, ","), ")"));
    }
  }
  const Diagnosis diagnosis = Diagnose(facts);
  if (diagnosis.verdict != Verdict::kReady) return Say(false, absl::StrCat("doctor: ", diagnosis.headline));

  std::vector<std::string> passed;
  for (const std::string& device : devices) {
    const std::string dir = absl::StrCat(out, "/", device);
    std::filesystem::remove(dir + "/results.json");  // never read an older run's verdict
    absl::StatusOr<ChildProcess> child =
        SpawnChild({Executable(), "run", "--device=" + device, "--out=" + dir, absl::StrCat("--gtest_filter=", HealthTests()),
                    absl::StrCat("--timeout_multiplier=", absl::GetFlag(FLAGS_timeout_multiplier)), "--strict"},
                   Stderr::kWithStdout);
    if (!child.ok()) return UsageError(child.status());
    const auto deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(kRunDeadline * absl::GetFlag(FLAGS_timeout_multiplier));
    const int exit = FinishChild(*child, deadline);
    absl::StatusOr<RunResults> results = LoadResults(dir + "/results.json");
    if (exit == -1) return Say(false, absl::StrCat(device, ": the health run ", TimedOut(*child)));
    if (!results.ok()) {
      std::string last = child->output.substr(0, child->output.find_last_not_of('\n') + 1);
      last = last.substr(last.find_last_of('\n') + 1);
      return Say(false, absl::StrCat(device, ": the health run could not start: ", last));
    }
    if (const std::string failure = FirstFailure(device, *results); !failure.empty()) return Say(false, failure);
    if (exit != 0) return Say(false, absl::StrCat(device, ": the health run exited ", exit));
    const RunSummary summary = Summarize(results->tests);
    passed.push_back(absl::StrCat(device, " ", summary.pass + summary.xfail, " passed"));
  }
  return Say(true, absl::StrCat(absl::StrJoin(passed, ", "), "; doctor ", diagnosis.headline));
}

}  // namespace rdmacheck
