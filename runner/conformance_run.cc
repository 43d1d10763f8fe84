#include "runner/conformance_run.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "harness/connection/connected_pair.h"
#include "harness/timeouts.h"
#include "capabilities/verdict/decide.h"
#include "capabilities/system/device_counters.h"
#include "capabilities/system/port_facts.h"
#include "doctor/checks.h"
#include "doctor/facts.h"
#include "gtest/gtest.h"
#include "runner/kernel_log.h"
#include "runner/leak_check.h"
#include "runner/shard_pool.h"
#include "runner/shards.h"
#include "testing/catalogue.h"

namespace rdmacheck {

nlohmann::json RunEnvironment(const Selection& selection, const Profile& profile) {
  nlohmann::json environment = {{"device", selection.device},
                                {"driver", profile.identity.driver},
                                {"transport", TransportName(selection.transport)},
                                {"link_layer", LinkLayerName(selection.port_attr.link_layer)},
                                {"port", selection.port},
                                {"active_mtu", MtuBytes(selection.port_attr.active_mtu)},
                                {"gid_index", selection.gid.index},
                                {"gid", selection.gid.Address()},
                                {"gid_type", selection.gid.TypeName()},
                                {"netdev", selection.gid.netdev},
                                {"connect_method", ConnectMethodName(PreferredConnectMethod(profile))},
                                {"kernel", profile.identity.kernel},
                                {"rdma_core", profile.identity.rdma_core},
                                {"providers", profile.identity.providers},
                                {"os", profile.identity.os},
                                {"fw_ver", profile.identity.fw_ver},
                                {"hostname", profile.identity.hostname}};
  // The link as the kernel states it, for the fleet's drift; each only where it is known.
  const PortFacts port = ReadPortFacts(selection.device, selection.port, selection.gid.netdev);
  if (port.rate) environment["port_rate"] = *port.rate;
  if (port.netdev_mtu) environment["netdev_mtu"] = *port.netdev_mtu;
  if (port.pcie_link) environment["pcie_link"] = *port.pcie_link;
  return environment;
}

nlohmann::json TwoHostEnvironment(const Selection& selection, ibv_mtu peer_active_mtu) {
  // Hand-wired pairs set this as IBV_QP_PATH_MTU; for rdma_cm pairs the kernel takes the
  // path MTU from the resolved route, and this is the value the harness would have used.
  return {{"peer_active_mtu", MtuBytes(peer_active_mtu)},
          {"path_mtu", MtuBytes(TwoHostPathMtu(selection, peer_active_mtu))}};
}

namespace {

void FillCatalogueFields(const std::vector<RegisteredTest>& tests, TestResult& result) {
  if (result.name == kLeakCheckTest) {
    result.purpose = "every verbs object the suite's tests created (PD, CQ, QP, MR, SRQ, rdma_cm id, context) was "
                     "released: the process holds no more of any type than before the first test";
    result.reference = "ibv_dealloc_pd(3), ibv_destroy_qp(3), ...; rdma(8) resource show (the kernel's count)";
    return;
  }
  for (const RegisteredTest& t : tests) {
    if (t.name != result.name) continue;
    if (const TestAbout* about = FindAbout(t.test_suite, t.test_name)) {
      result.purpose = about->purpose;
      result.reference = about->reference;
      for (Cap cap : about->needs) result.needs.emplace_back(CapName(cap));
    }
    return;
  }
}

std::vector<std::string> ProblemLines(const std::vector<KernelProblem>& problems) {
  std::vector<std::string> lines;
  for (const KernelProblem& p : problems) lines.insert(lines.end(), p.lines.begin(), p.lines.end());
  return lines;
}

// The kernel's problem reports since the last suite fail the tests in whose window they
// were logged (shown again, now failed), or the suite's KernelLog.OutsideTests.
void JudgeByKernelLog(KernelLog& log, const std::string& suite, const std::function<void(const TestResult&)>& on_result,
                      std::vector<TestResult>& results) {
  std::vector<KernelProblem> problems = log.ReadProblems();
  if (problems.empty()) return;
  std::vector<size_t> clean;
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].kernel_log.empty()) clean.push_back(i);
  }
  std::vector<std::string> outside = AttachKernelProblems(problems, results);
  if (!outside.empty()) results.push_back(OutsideTestsResult(suite, std::move(outside)));
  if (!on_result) return;
  for (size_t i : clean) {
    if (!results[i].kernel_log.empty()) on_result(results[i]);
  }
  if (!outside.empty()) on_result(results.back());
}

// environment.traffic_counters: how each test's traffic is proven, or why it is not.
std::string TrafficCountersNote(const RunPlan& plan, const DeviceCounters& counters) {
  const Decision d = Decide(plan.profile, Cap::kTrafficCounters);
  if (d.available && counters.any()) return absl::StrCat("read before and after each test: ", counters.evidence());
  return absl::StrCat("unsupported: ", counters.any() ? d.reason : counters.evidence());
}

// The counters' movement over the whole run, for a cross-check with what a capture of the
// wire saw (the two-node lab: rxe's sent_pkts against the RoCEv2 frames the node sent).
// Null where the device keeps none.
nlohmann::json RunTotals(const DeviceCounters& counters, const absl::StatusOr<CounterValues>& before) {
  if (!counters.any() || !before.ok()) return nullptr;
  absl::StatusOr<CounterValues> after = counters.Read();
  if (!after.ok()) return nullptr;
  return CounterDeltas(*before, *after);
}

// One suite's results as its shards finish: the tests, one leak check (a failing one
// kept over a passing one), and the children's time.
struct SuiteBucket {
  std::vector<TestResult> tests;
  std::vector<std::string> counters_unread;  // tests whose counters could not be read around them
  std::optional<TestResult> leak_check;
  std::vector<TestResult> kernel_outside;  // kKernelLogOutsideTests
  SuiteTiming timing;
};

void AddOutcome(SuiteBucket& bucket, SuiteOutcome outcome) {
  for (TestResult& r : outcome.results) {
    if (r.traffic.is_object() && r.traffic.contains("error")) {
      bucket.counters_unread.push_back(absl::StrCat(r.name, ": ", r.traffic["error"].get<std::string>()));
    }
    if (r.name == kLeakCheckTest) {
      if (!bucket.leak_check || r.status == TestStatus::kFail) bucket.leak_check = std::move(r);
    } else if (r.name == kKernelLogOutsideTests) {
      bucket.kernel_outside.push_back(std::move(r));
    } else {
      bucket.tests.push_back(std::move(r));
    }
  }
  bucket.timing.duration_ms += outcome.duration_ms;
  bucket.timing.processes += outcome.processes;
}

TestResult RunFailure(const std::string& suite, const char* name, std::string message) {
  TestResult r;
  r.suite = suite;
  r.name = name;
  r.status = TestStatus::kFail;
  r.abnormal = true;  // the run's own evidence is missing: no expectation covers it
  r.message = std::move(message);
  return r;
}

TestResult CountersUnread(const std::string& suite, const std::vector<std::string>& tests) {
  return RunFailure(suite, kCountersReadTest,
                    absl::StrCat("the device's counters could not be read around ", tests.size(),
                                 " test(s), so their traffic is unproven; first: ", tests.front()));
}

// Every result so far, in the run's order: suites as planned, each suite's tests in their
// registration order, then its leak check and kernel findings.
void Collect(const std::vector<RegisteredTest>& planned, std::map<std::string, SuiteBucket>& buckets,
             RunResults& results) {
  std::map<std::string, size_t> order;
  for (size_t i = 0; i < planned.size(); ++i) order.emplace(planned[i].name, i);
  auto position = [&](const TestResult& r) { return order.count(r.name) ? order.at(r.name) : planned.size(); };
  results.tests.clear();
  results.suites.clear();
  for (const std::string& suite : SuitesOf(planned)) {
    auto it = buckets.find(suite);
    if (it == buckets.end()) continue;
    SuiteBucket& bucket = it->second;
    std::stable_sort(bucket.tests.begin(), bucket.tests.end(),
                     [&](const TestResult& a, const TestResult& b) { return position(a) < position(b); });
    results.tests.insert(results.tests.end(), bucket.tests.begin(), bucket.tests.end());
    if (bucket.leak_check) results.tests.push_back(*bucket.leak_check);
    if (!bucket.counters_unread.empty()) results.tests.push_back(CountersUnread(suite, bucket.counters_unread));
    results.tests.insert(results.tests.end(), bucket.kernel_outside.begin(), bucket.kernel_outside.end());
    SuiteTiming timing = bucket.timing;
    timing.name = suite;
    for (const TestResult& r : bucket.tests) timing.setup_ms += r.setup_ms;
    results.suites.push_back(timing);
  }
}

}  // namespace

RunResults Execute(const RunPlan& plan) {
  RunResults results;
  results.device = plan.selection.device;
  results.environment = RunEnvironment(plan.selection, plan.profile);
  // What `rdmacheck doctor` says about this host and device, so a report shows the set-up.
  results.environment["doctor"] = DiagnosisJson(Diagnose(GatherFacts(plan.selection.device)));
  results.started = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  const absl::Time start = absl::Now();
  const std::string log_dir = plan.out_dir + "/logs";
  std::filesystem::create_directories(log_dir);

  const int jobs = std::max(1, plan.jobs);
  const std::vector<Shard> shards = PlanShards(plan.tests, jobs, [](const RegisteredTest& t) {
    return FindRunsAlone(t.test_suite, t.test_name) != nullptr;
  });
  results.environment["jobs"] = jobs;

  results.environment["children"] = plan.fork_server != nullptr ? "forked from a fork server" : "exec";
  std::mutex print_lock;  // results arrive from several supervising threads
  ChildOptions options;
  options.executable = plan.executable;
  options.fork_server = plan.fork_server;
  options.args = {"__child"};
  options.args.insert(options.args.end(), plan.child_flags.begin(), plan.child_flags.end());
  options.log_dir = log_dir;
  options.test_timeout = plan.test_timeout;
  options.teardown_timeout = Scaled(absl::Seconds(30));  // close the device, count objects, exit
  options.peer_watch = plan.peer_watch;
  if (plan.on_result) {
    options.on_result = [&](const TestResult& r) {
      std::lock_guard<std::mutex> hold(print_lock);
      plan.on_result(r);
    };
  }

  std::optional<KernelLog> own_log;
  KernelLog& kernel_log = plan.kernel_log != nullptr ? *plan.kernel_log : own_log.emplace(plan.kernel_log_path);
  // Before the first suite's marker: what the log holds now was written while probing.
  std::vector<TestResult> while_probing;
  if (std::vector<std::string> lines = ProblemLines(kernel_log.ReadProblems()); !lines.empty()) {
    while_probing.push_back(WhileProbingResult(std::move(lines)));
    if (options.on_result) options.on_result(while_probing.back());
  }
  const DeviceCounters counters = DeviceCounters::Find(plan.selection.device, plan.selection.port);
  results.environment["traffic_counters"] = TrafficCountersNote(plan, counters);
  const absl::StatusOr<CounterValues> counters_before =
      counters.any() ? counters.Read() : absl::StatusOr<CounterValues>(CounterValues{});
  results.complete = false;

  std::map<std::string, SuiteBucket> buckets;
  ShardCallbacks callbacks;
  callbacks.on_start = [&](const Shard& shard) {
    kernel_log.Mark(absl::StrCat("suite ", shard.suite, shard.index > 0 ? absl::StrCat(" shard ", shard.index) : "",
                                 " on ", plan.selection.device, " starts"));
  };
  callbacks.on_done = [&](const Shard& shard, SuiteOutcome outcome) {
    // With one child at a time, the log since the last shard belongs to this one's tests;
    // with several, a problem can be logged in a test that has not ended yet: read it at the end.
    if (jobs == 1) JudgeByKernelLog(kernel_log, shard.suite, options.on_result, outcome.results);
    AddOutcome(buckets[shard.suite], std::move(outcome));
    Collect(plan.tests, buckets, results);
    results.tests.insert(results.tests.begin(), while_probing.begin(), while_probing.end());
    for (TestResult& r : results.tests) FillCatalogueFields(plan.tests, r);
    results.environment["kernel_log"] = kernel_log.Describe();
    results.duration_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
    if (plan.on_suite) plan.on_suite(results);
  };
  RunShards(shards, jobs, options, callbacks);

  if (jobs > 1) {  // every test has its window now; what fell in none goes to the run
    std::vector<TestResult> all = std::move(results.tests);
    JudgeByKernelLog(kernel_log, "run", options.on_result, all);
    results.tests = std::move(all);
  }
  results.environment["kernel_log"] = kernel_log.Describe();
  if (plan.peer_watch != nullptr && plan.peer_watch->stopped()) {
    results.environment["lab_failure"] = plan.peer_watch->LabFailure(TestsNotRun(plan.tests, results.tests));
  }
  if (plan.strict && !kernel_log.readable()) {
    results.tests.push_back(RunFailure("run", kStrictKernelLogTest,
                                       absl::StrCat("--strict: the kernel log was ", kernel_log.Describe(),
                                                    ": a WARN, BUG or KASAN report during the run would go unseen")));
  } else if (plan.strict && kernel_log.lost().any()) {
    results.tests.push_back(RunFailure("run", kStrictKernelLogTest,
                                       absl::StrCat("--strict: the kernel log lost records: ",
                                                    kernel_log.lost().Describe(),
                                                    "; a WARN, BUG or KASAN report among them went unseen")));
  }
  if (plan.strict && counters.any() && !counters_before.ok()) {
    results.tests.push_back(RunFailure("run", kStrictCountersTest,
                                       absl::StrCat("--strict: the device keeps counters (", counters.evidence(),
                                                    "), but they could not be read: ",
                                                    counters_before.status().message())));
  }
  if (nlohmann::json totals = RunTotals(counters, counters_before); !totals.is_null()) {
    results.environment["traffic_run_totals"] = std::move(totals);
  }
  results.duration_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  results.complete = !results.environment.contains("lab_failure");  // stopped by a dead peer: not all ran
  return results;
}

}  // namespace rdmacheck
