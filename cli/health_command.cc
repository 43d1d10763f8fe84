// rdmacheck health: a node health check fast enough for Slurm's HealthCheckProgram (LBNL
// NHC's convention: one line, exit non-zero when the node must not take work; the caller,
// ci/slurm/healthcheck.sh, drains the node with that line as the reason).
//
//   rdmacheck health [--devices=mlx5_0,mlx5_1] [--out=DIR] [--timeout_multiplier=X] [--profile=FILE]
//
// Steps, stopping at the first that fails: the doctor (RLIMIT_MEMLOCK, device nodes,
// ports, GIDs, rdma_cm: doctor/checks.h) over every device; then each port's link_downed
// counter, sampled into the node's history (--link_flap_state, doctor/link_flaps.h) and, with
// a profile's link_flaps, judged: more downs within its window than it allows fail the node
// ("rxe0 port 1 went down 3 times in the last 3600 s, the profile allows 1"); then per device `rdmacheck run`
// (which probes first: a declared capability that misbehaves fails as
// BrokenCapability.<name>) limited to HealthTests(), a handful of traffic tests: RC SEND,
// WRITE and READ through the pair builder (manual wiring or rdma_cm, as the device needs),
// an rdma_cm connect/disconnect, and the port and GID the traffic uses. Each run is
// --strict (a kernel log or counters it could not read fail the node: a health check that
// saw nothing says so) and bounded (kRunDeadline, scaled); its results stay in DIR/<device> (default
// /tmp/rdmacheck-health) for a closer look. With --profile, the node's devices as those runs
// recorded them (count, model, port rate and MTUs, GID type, link layer, firmware,
// capabilities) against the machine profile (machine/profile_check.h; health runs no pair,
// so a profile's pair points are not checked here): a node below it fails with the first
// violation, "rxe0: active_mtu 1024, the profile's machine type gpu-a needs 4096".
//
// Prints "rdmacheck health: OK host: rxe0 9 passed, siw0 ..." and exits 0, or
// "rdmacheck health: FAIL host: <the first reason>" and exits 1. Exit 2: bad flags.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "doctor/checks.h"
#include "doctor/link_flaps.h"
#include "harness/child_process.h"
#include "harness/timeouts.h"
#include "machine/profile_check.h"
#include "results/failure_line.h"
#include "results/results.h"
#include "runner/run_floor.h"

ABSL_DECLARE_FLAG(std::string, link_flap_state);
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
  std::optional<MachineProfile> profile;
  if (!absl::GetFlag(FLAGS_profile).empty()) {  // read first: a bad file is a usage error, not a sick node
    absl::StatusOr<MachineProfile> loaded = LoadMachineProfile(absl::GetFlag(FLAGS_profile));
    if (!loaded.ok()) return UsageError(loaded.status());
    profile = *std::move(loaded);
  }

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

  // Every port's link_downed into the node's history (also without a profile: the next
  // check's baseline); past the profile's limit the link is flapping, which explains
  // whatever the traffic would show, so it is judged first.
  const std::string flap_state = absl::GetFlag(FLAGS_link_flap_state);
  const absl::Duration flap_window = absl::Seconds(profile && profile->link_flaps ? profile->link_flaps->window_s : 3600);
  absl::StatusOr<std::vector<PortFlaps>> flaps = SampleLinkFlaps(devices, flap_state, absl::Now(), flap_window);
  if (!flaps.ok()) return Say(false, absl::StrCat("link flaps: ", flaps.status().message()));
  if (profile && profile->link_flaps) {
    for (const PortFlaps& f : *flaps) {
      if (f.counted && f.downs > static_cast<uint64_t>(profile->link_flaps->max)) {
        return Say(false, absl::StrCat(f.device, " port ", f.port, " went down ", f.downs, " times in the last ",
                                       profile->link_flaps->window_s, " s, the profile",
                                       profile->machine_type.empty() ? "" : " of " + profile->machine_type, " allows ",
                                       profile->link_flaps->max));
      }
    }
  }

  std::vector<std::string> passed;
  NodeFacts node{Host(), {}, {}};
  for (const std::string& device : devices) {
    const std::string dir = absl::StrCat(out, "/", device);
    std::filesystem::remove(dir + "/results.json");  // never read an older run's verdict
    absl::StatusOr<ChildProcess> child =
        SpawnChild({Executable(), "run", "--device=" + device, "--out=" + dir, absl::StrCat("--gtest_filter=", HealthTests()),
                    absl::StrCat("--timeout_multiplier=", absl::GetFlag(FLAGS_timeout_multiplier)), "--strict",
                    "--link_flap_state=" + flap_state},
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
    if (!profile) continue;
    absl::StatusOr<DeviceFacts> facts = LoadDeviceFacts(dir);
    if (!facts.ok()) {
      return Say(false, absl::StrCat(device, ": its run cannot be checked against the profile: ", facts.status().message()));
    }
    node.devices.push_back(*std::move(facts));
  }
  std::string met;
  if (profile) {
    if (const std::vector<std::string> violations = CheckNode(*profile, node); !violations.empty()) {
      return Say(false, violations.front());
    }
    met = absl::StrCat("; meets the profile", profile->machine_type.empty() ? "" : " of " + profile->machine_type);
  }
  return Say(true, absl::StrCat(absl::StrJoin(passed, ", "), "; doctor ", diagnosis.headline, met));
}

}  // namespace rdmacheck
