// Runs built in code for the report tests (unit/report_*_test.cc), and the fixture run
// directories under unit/testdata/report (see its README.md).
#ifndef RDMACHECK_UNIT_REPORT_FIXTURES_H_
#define RDMACHECK_UNIT_REPORT_FIXTURES_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "reports/report_model.h"

namespace rdmacheck::fixtures {

inline TestResult Result(std::string suite, std::string name, TestStatus status, std::string message = "") {
  TestResult t;
  t.suite = std::move(suite);
  t.name = std::move(name);
  t.status = status;
  t.message = std::move(message);
  t.purpose = "checks " + t.name;
  t.reference = "ref(" + t.name + ")";
  return t;
}

inline TestResult Expected(TestResult t, std::string reason, std::string reference) {
  t.expectation_reason = std::move(reason);
  t.expectation_reference = std::move(reference);
  return t;
}

inline TestResult SkippedFor(TestResult t, std::string capability) {
  t.capability = std::move(capability);
  return t;
}

// A run of `device`; observed: capability -> outcome. Suites are timed in the order the
// tests name them.
inline DeviceRun RunOf(std::string device, std::vector<TestResult> tests,
                       std::map<std::string, std::string> observed = {},
                       std::vector<std::pair<std::string, std::string>> quirks = {}) {
  DeviceRun run;
  run.source = "out/" + device;
  run.results.device = device;
  run.results.environment = {{"driver", device.substr(0, 3)}, {"transport", "InfiniBand"}};
  run.results.duration_ms = 1500;
  for (const TestResult& t : tests) {
    bool timed = false;
    for (const SuiteTiming& s : run.results.suites) timed = timed || s.name == t.suite;
    if (!timed) run.results.suites.push_back({t.suite, 500, 0, 1});
  }
  run.results.tests = std::move(tests);
  // As capabilities.json has it: the model reads its parts from there.
  nlohmann::json caps = {{"schema", "rdmacheck.capabilities/1"},
                         {"identity", {{"device", device}}},
                         {"observed", nlohmann::json::object()},
                         {"quirks", nlohmann::json::array()}};
  for (const auto& [cap, outcome] : observed) {
    caps["observed"][cap] = {{"outcome", outcome}, {"errno", 0}, {"detail", cap + " was tried"}};
  }
  for (const auto& [cap, text] : quirks) caps["quirks"].push_back({{"capability", cap}, {"text", text}});
  (void)SetCapabilities(caps, run);  // cannot fail: an object of the right shape
  return run;
}

inline std::string TestdataDir() { return std::string(RDMACHECK_SOURCE_DIR) + "/unit/testdata/report"; }

}  // namespace rdmacheck::fixtures

#endif  // RDMACHECK_UNIT_REPORT_FIXTURES_H_
