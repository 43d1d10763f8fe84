#include "runner/conformance_run.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "capabilities/decide.h"
#include "capabilities/device_counters.h"
#include "doctor/checks.h"
#include "doctor/facts.h"
#include "gtest/gtest.h"
#include "runner/kernel_log.h"
#include "runner/leak_check.h"
#include "runner/supervisor.h"
#include "testing/catalogue.h"

namespace rdmacheck {

nlohmann::json RunEnvironment(const Selection& selection, const Profile& profile) {
  return {{"device", selection.device},
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
          {"fw_ver", profile.identity.fw_ver},
          {"hostname", profile.identity.hostname}};
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

  ChildOptions options;
  options.executable = plan.executable;
  options.args = {"__child"};
  options.args.insert(options.args.end(), plan.child_flags.begin(), plan.child_flags.end());
  options.log_dir = log_dir;
  options.test_timeout = plan.test_timeout;
  options.on_result = plan.on_result;

  KernelLog kernel_log(plan.kernel_log_path);
  const DeviceCounters counters = DeviceCounters::Find(plan.selection.device, plan.selection.port);
  results.environment["traffic_counters"] = TrafficCountersNote(plan, counters);
  const absl::StatusOr<CounterValues> counters_before =
      counters.any() ? counters.Read() : absl::StatusOr<CounterValues>(CounterValues{});
  results.complete = false;
  for (const std::string& suite : SuitesOf(plan.tests)) {
    SuitePlan suite_plan{suite, {}};
    for (const RegisteredTest& t : plan.tests) {
      if (t.suite == suite) suite_plan.tests.push_back(t.name);
    }
    kernel_log.Mark(absl::StrCat("suite ", suite, " on ", plan.selection.device, " starts"));
    SuiteOutcome outcome = RunSuite(suite_plan, options);
    JudgeByKernelLog(kernel_log, suite, plan.on_result, outcome.results);
    double setup_ms = 0;
    for (const TestResult& r : outcome.results) setup_ms += r.setup_ms;
    results.suites.push_back({suite, outcome.duration_ms, setup_ms, outcome.processes});
    for (TestResult& r : outcome.results) {
      FillCatalogueFields(plan.tests, r);
      results.tests.push_back(std::move(r));
    }
    results.environment["kernel_log"] = kernel_log.Describe();
    results.duration_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
    if (plan.on_suite) plan.on_suite(results);
  }
  results.environment["kernel_log"] = kernel_log.Describe();
  if (nlohmann::json totals = RunTotals(counters, counters_before); !totals.is_null()) {
    results.environment["traffic_run_totals"] = std::move(totals);
  }
  results.duration_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  results.complete = true;
  return results;
}

}  // namespace rdmacheck
