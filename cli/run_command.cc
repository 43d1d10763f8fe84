// rdmacheck run: the conformance run on one device.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "absl/flags/flag.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_join.h"
#include "capabilities/verdict/broken.h"
#include "capabilities/expectations/expectations.h"
#include "capabilities/probes/probe.h"
#include "capabilities/profile/identity_match.h"
#include "gtest/gtest.h"
#include "cli/commands.h"
#include "cli/expectation_flags.h"
#include "cli/flag_parser.h"
#include "doctor/link_flaps.h"
#include "harness/remote/peer_link.h"
#include "harness/status.h"
#include "runner/conformance_run.h"
#include "runner/kernel_log.h"
#include "runner/peer_watch.h"
#include "runner/run_floor.h"
#include "runner/shards.h"
#include "harness/selection_flags.h"
#include "harness/timeouts.h"

ABSL_FLAG(std::vector<std::string>, suites, {}, "Comma-separated suites to run (default: all), e.g. device,pd");
ABSL_FLAG(std::string, capabilities, "",
          "Use this capability profile (capabilities.json of an earlier run or `probe --format=json`) instead of probing; "
          "it must have been probed on this device (driver, node GUID, firmware, kernel, rdma-core)");
ABSL_FLAG(std::string, link_flap_state, rdmacheck::kDefaultLinkFlapState,
          "run, health: the node's history of its ports' link_downed counters (doctor/link_flaps.h), which `run` "
          "samples at its start and end and `health` checks against the profile's link_flaps");
ABSL_FLAG(int, jobs, 0,
          "Supervised children running tests at once, over shards of the suites (0: one per CPU, at most 8; 1: "
          "one suite at a time). Tests marked RDMACHECK_RUNS_ALONE run after the others, alone");
ABSL_FLAG(bool, strict, false,
          "Missing evidence fails the run: a kernel log that could not be read, device counters that could not be "
          "read (on in CI and the lab)");
ABSL_FLAG(std::string, floor, "on",
          "on: tests of the run's floor (RC SEND, RDMA WRITE, RDMA READ; runner/run_floor.h) the selection lacks are "
          "added to it; off: for a caller that knowingly runs a slice: nothing is added and RunFloor.Selection fails");
ABSL_FLAG(int, test_timeout, 300, "Watchdog: seconds one test may run before it is killed and failed (scaled by --timeout_multiplier)");

namespace rdmacheck {
namespace {

void PrintResult(const TestResult& r) {
  std::string line = absl::StrFormat("[%s] %-5s %s (%.0f ms)", r.suite, absl::AsciiStrToUpper(TestStatusName(r.status)),
                                     r.name, r.duration_ms);
  if (r.status == TestStatus::kSkip || r.status == TestStatus::kBlocked) absl::StrAppend(&line, ": ", r.message);
  if (r.status == TestStatus::kXfail || r.status == TestStatus::kXpass) {
    absl::StrAppend(&line, " (expected to fail: ", r.expectation_reason, ")");
  }
  if (r.status == TestStatus::kFail || r.status == TestStatus::kXpass) {
    absl::StrAppend(&line, "\n    ", absl::StrReplaceAll(r.message, {{"\n", "\n    "}}));
  }
  std::cout << line << std::endl;
}

// The profile the run decides its skips by: probed now, or --capabilities FILE when that was
// probed on this device under this software (capabilities/profile/identity_match.h).
absl::StatusOr<Profile> RunProfile(ibv_context* context, const Selection& selection) {
  const std::string path = absl::GetFlag(FLAGS_capabilities);
  if (path.empty()) return ProbeDevice(context, selection);
  RDMACHECK_ASSIGN_OR_RETURN(Profile profile, LoadProfile(path));
  RDMACHECK_ASSIGN_OR_RETURN(const Profile here, ReadDeclared(context, selection));
  if (const std::string differs = IdentityMismatch(profile.identity, here.identity); !differs.empty()) {
    return absl::FailedPreconditionError(absl::StrCat("error: --capabilities ", path, " was probed on ", differs));
  }
  return profile;
}

std::string Executable() {
  std::error_code ec;
  std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "rdmacheck" : self.string();
}

}  // namespace

int RunCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError("run takes no positional arguments: " + positional[0]);
  if (absl::GetFlag(FLAGS_timeout_multiplier) <= 0) return UsageError("--timeout_multiplier must be > 0");
  if (absl::GetFlag(FLAGS_test_timeout) <= 0) return UsageError("--test_timeout must be > 0 seconds");
  if (absl::GetFlag(FLAGS_jobs) < 0) return UsageError("--jobs must be >= 0 (0: one per CPU)");
  const std::string floor_flag = absl::GetFlag(FLAGS_floor);
  if (floor_flag != "on" && floor_flag != "off") return UsageError("--floor must be on or off, got '" + floor_flag + "'");

  RunPlan plan;
  // Children are forked from this server (runner/fork_server.h): started first, while this
  // process has one thread and has opened no device (a verbs context, librdmacm's too,
  // belongs to the process that opened it: a forked child must open its own).
  absl::StatusOr<std::unique_ptr<ForkServer>> fork_server = ForkServer::Start(RunCommandLine);
  if (fork_server.ok()) {
    plan.fork_server = fork_server->get();
  } else {
    std::cerr << "rdmacheck run: children are exec'd: " << fork_server.status().message() << std::endl;
  }
  // Read from before the device is opened and probed: a WARN a probe raises fails the run
  // (runner/kernel_log.h). After the fork server, whose children must not share the reader.
  KernelLog kernel_log(plan.kernel_log_path);
  plan.kernel_log = &kernel_log;
  FloorSelection floor;
  {
    absl::StatusOr<SelectedDevice> device = OpenSelectedDevice();
    if (!device.ok()) return UsageError(device.status());
    plan.selection = device->selection;

    const std::vector<RegisteredTest> all = RegisteredTests();
    absl::StatusOr<std::vector<RegisteredTest>> tests = SelectTests(all, absl::GetFlag(FLAGS_suites), GTEST_FLAG_GET(filter));
    if (!tests.ok()) return UsageError(tests.status());
    if (tests->empty()) return UsageError("no test matches --suites / --gtest_filter");
    // The floor is run whatever the selection (runner/run_floor.h), or the run says why not.
    floor = SelectFloor(all, *std::move(tests), plan.selection.transport,
                        floor_flag == "off" ? FloorMode::kOff : FloorMode::kOn);
    plan.tests = std::move(floor.tests);
    if (floor.added || floor.failure) std::cerr << "rdmacheck run: floor: " << floor.note << std::endl;

    absl::StatusOr<Profile> profile = RunProfile(device->context.get(), plan.selection);
    if (!profile.ok()) return UsageError(profile.status());
    plan.profile = *std::move(profile);
  }  // the children open the device themselves

  absl::StatusOr<std::optional<ExpectationFile>> expectations = SelectedExpectations(plan.profile.identity.driver);
  if (!expectations.ok()) return UsageError(expectations.status());
  const Identity& identity = plan.profile.identity;
  auto judge = [&](TestResult& r) {
    if (*expectations) ApplyExpectation(FindExpectation(**expectations, r.name, identity.kernel, identity.rdma_core), r);
  };

  // Declared but misbehaving: a result each, before the suites' (capabilities/verdict/broken.h).
  const std::vector<TestResult> broken =
      BrokenCapabilityResults(plan.profile, *expectations ? &**expectations : nullptr);

  plan.out_dir = absl::GetFlag(FLAGS_out).empty() ? "out/" + plan.selection.device : absl::GetFlag(FLAGS_out);
  std::error_code ec;
  std::filesystem::create_directories(plan.out_dir, ec);
  if (ec) return UsageError(absl::StrCat("cannot create ", plan.out_dir, ": ", ec.message()));
  const std::string profile_path = plan.out_dir + "/capabilities.json";
  if (absl::Status s = SaveProfile(plan.profile, profile_path); !s.ok()) return UsageError(s);

  plan.executable = Executable();
  plan.child_flags = {absl::StrCat("--device=", plan.selection.device), absl::StrCat("--port=", plan.selection.port),
                      absl::StrCat("--gid_index=", plan.selection.gid.index),
                      absl::StrCat("--capabilities=", std::filesystem::absolute(profile_path).string())};
  for (std::string& flag : NonDefaultFlags({"timeout_multiplier", "peer", "impaired_wire"})) plan.child_flags.push_back(std::move(flag));
  plan.test_timeout = Scaled(absl::Seconds(absl::GetFlag(FLAGS_test_timeout)));
  plan.jobs = absl::GetFlag(FLAGS_jobs) == 0 ? DefaultJobs() : absl::GetFlag(FLAGS_jobs);
  plan.strict = absl::GetFlag(FLAGS_strict);
  plan.on_result = [&](const TestResult& r) {
    TestResult judged = r;
    judge(judged);
    PrintResult(judged);
  };

  const Selection& s = plan.selection;
  std::cout << absl::StrFormat("rdmacheck run: %s port %d GID %d (%s %s), transport %s, link %s; %d tests, %d at once\n",
                               s.device, s.port, s.gid.index, s.gid.TypeName(), s.gid.Address(),
                               TransportName(s.transport), LinkLayerName(s.port_attr.link_layer), plan.tests.size(), plan.jobs)
            << std::flush;

  for (const TestResult& r : broken) PrintResult(r);
  if (floor.failure) PrintResult(*floor.failure);

  // Two-host mode: the peer must answer before any child relies on it, and again after
  // every failure; one that stops answering stops the run (runner/peer_watch.h).
  std::optional<PeerWatch> peer_watch;
  nlohmann::json peer_mtus = nlohmann::json::object();  // the peer's MTU and the path's
  if (const std::string peer = absl::GetFlag(FLAGS_peer); !peer.empty()) {
    absl::StatusOr<std::unique_ptr<PeerLink>> link = PeerLink::Connect(peer, s.transport);
    if (!link.ok()) return UsageError(link.status());
    peer_mtus = TwoHostEnvironment(s, (*link)->active_mtu());
    std::cout << "rdmacheck run: two-host mode: remote endpoints on " << (*link)->Describe() << std::endl;
    peer_watch.emplace(peer, DefaultWait(), [peer](absl::Duration window) { return PingPeer(peer, window); });
    plan.peer_watch = &*peer_watch;
  }

  // The port's flaps in the hour before the run, from the node's history; the samples
  // also serve the health check (doctor/link_flaps.h). A history it cannot keep (not root)
  // is recorded as such, not a failure.
  constexpr absl::Duration kFlapWindow = absl::Hours(1);
  const std::string flap_state = absl::GetFlag(FLAGS_link_flap_state);
  nlohmann::json link_flaps;
  if (absl::StatusOr<PortFlaps> f = SamplePortFlaps(flap_state, s.device, s.port, absl::Now(), kFlapWindow); !f.ok()) {
    link_flaps = {{"unavailable", f.status().message()}};
  } else if (!f->counted) {
    link_flaps = {{"unavailable", f->why}};
  } else {
    link_flaps = {{"port", s.port}, {"downs", f->downs}, {"window_s", absl::ToInt64Seconds(kFlapWindow)}};
  }

  const std::string json_path = plan.out_dir + "/results.json";
  // Judged and written after every suite (complete=false) and at the end: a run that dies
  // with the machine (a kernel panic) keeps what it had.
  auto finish = [&](RunResults& results, bool last) {
    if (!absl::GetFlag(FLAGS_peer).empty()) results.environment["peer"] = absl::GetFlag(FLAGS_peer);
    results.environment.update(peer_mtus);
    results.environment["link_flaps"] = link_flaps;
    results.environment["floor"] = floor.note;
    for (TestResult& r : results.tests) judge(r);
    JudgeConsequences(results.tests);  // after the expectations: blocked only behind an xfail
    if (last) {  // over the tests that ran: one a dead peer kept from running fails no floor item
      for (TestResult& r : RunFloorResults(TestsRun(plan.tests, results.environment), results.tests,
                                           plan.selection.transport)) {
        if (r.status != TestStatus::kPass) PrintResult(r);
        results.tests.push_back(std::move(r));
      }
    }
    if (floor.failure) results.tests.push_back(*floor.failure);  // known from the start: in every write
    results.tests.insert(results.tests.begin(), broken.begin(), broken.end());
    results.environment["expectations"] = ExpectationsInUse(*expectations);
    absl::Status written = WriteFile(json_path, ResultsToJson(results).dump(2) + "\n");
    if (written.ok()) written = WriteFile(plan.out_dir + "/junit.xml", ResultsToJunit(results));
    return written;
  };
  plan.on_suite = [&](const RunResults& so_far) {
    RunResults copy = so_far;
    if (absl::Status s = finish(copy, /*last=*/false); !s.ok()) std::cerr << "rdmacheck run: " << s.message() << std::endl;
  };

  RunResults results = Execute(plan);
  if (absl::Status written = finish(results, /*last=*/true); !written.ok()) return UsageError(written);
  if (link_flaps.contains("downs")) {  // the end's sample: the link tests' own downs are excused
    uint64_t own = 0;
    for (const TestResult& r : results.tests) {
      if (r.suite == "link_events" && r.traffic.is_object()) {
        own += r.traffic.value("counters", nlohmann::json::object()).value("link_downed", 0);
      }
    }
    (void)SamplePortFlaps(flap_state, s.device, s.port, absl::Now(), kFlapWindow, own);
  }
  RunSummary sum = Summarize(results.tests);

  std::string skips;
  for (const auto& [cap, n] : sum.skipped_by_capability) absl::StrAppend(&skips, skips.empty() ? "" : ", ", cap, " ", n);
  for (const auto& [cause, n] : sum.skipped_as_consequence_of) {
    absl::StrAppend(&skips, skips.empty() ? "" : ", ", "as a consequence of ", cause, " ", n);
  }
  std::cout << absl::StrFormat(
      "rdmacheck run: %s: %d tests (%d test bodies): %d passed, %d failed, %d skipped, %d blocked, %d xfail, %d xpass "
      "in %.1f s",
      s.device, sum.total, sum.bodies, sum.pass, sum.fail, sum.skip, sum.blocked, sum.xfail, sum.xpass,
      results.duration_ms / 1000);
  if (!skips.empty()) std::cout << " (skipped or blocked for: " << skips << ")";
  const bool two_host = !absl::GetFlag(FLAGS_peer).empty();
  const std::map<std::string, PeerUse> peer_use = PeerUseBySuite(results.tests);
  for (const SuiteTiming& suite : results.suites) {
    std::cout << absl::StrFormat("\nrdmacheck run: suite %s: %.1f s, of it %.1f s test set-up (fixtures, pairs)",
                                 suite.name, suite.duration_ms / 1000, suite.setup_ms / 1000);
    if (auto u = peer_use.find(suite.name); two_host && u != peer_use.end()) {
      std::cout << absl::StrFormat("; two-host: %d ran with the peer, %d loopback only, %d other", u->second.peer,
                                   u->second.loopback_only, u->second.other);
    }
  }
  std::cout << "\nrdmacheck run: kernel log: " << results.environment.value("kernel_log", "")
            << "\nrdmacheck run: traffic counters: " << results.environment.value("traffic_counters", "");
  std::cout << "\nrdmacheck run: results in " << json_path << std::endl;
  if (results.environment.contains("lab_failure")) {
    std::cerr << LabFailureLine(results.environment["lab_failure"]) << std::endl;
    return kExitPeerUnreachable;
  }
  return ExitCodeFor(sum);
}

}  // namespace rdmacheck
