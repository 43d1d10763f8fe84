#include "runner/conformance_run.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "capabilities/decide.h"
#include "doctor/checks.h"
#include "doctor/facts.h"
#include "gtest/gtest.h"
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

  for (const std::string& suite : SuitesOf(plan.tests)) {
    SuitePlan suite_plan{suite, {}};
    for (const RegisteredTest& t : plan.tests) {
      if (t.suite == suite) suite_plan.tests.push_back(t.name);
    }
    SuiteOutcome outcome = RunSuite(suite_plan, options);
    double setup_ms = 0;
    for (const TestResult& r : outcome.results) setup_ms += r.setup_ms;
    results.suites.push_back({suite, outcome.duration_ms, setup_ms, outcome.processes});
    for (TestResult& r : outcome.results) {
      FillCatalogueFields(plan.tests, r);
      results.tests.push_back(std::move(r));
    }
  }
  results.duration_ms = absl::ToDoubleMilliseconds(absl::Now() - start);
  return results;
}

}  // namespace rdmacheck
