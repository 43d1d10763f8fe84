// junit.xml holds every result that counts (issue 35.9): the run's own results beside the
// suites' tests (BrokenCapability.*, RunFloor.*, --strict's, the kernel's reports outside
// every test) are test cases too, so a CI dashboard that fails the job shows why; the
// totals are the test cases written.
#include <regex>
#include <string>
#include <vector>

#include "capabilities/verdict/broken.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "results/results.h"
#include "runner/conformance_run.h"
#include "runner/kernel_log.h"
#include "runner/run_floor.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAreArray;
using ::testing::UnorderedElementsAreArray;

// What junit.xml says: the <testsuites> totals, each <testsuite>'s, and the test cases.
struct Junit {
  int tests = 0, failures = 0, skipped = 0;           // <testsuites>
  int suite_tests = 0, suite_failures = 0, suite_skipped = 0;  // summed over <testsuite>
  std::vector<std::string> cases;                     // "classname.name"
  int failure_children = 0, skipped_children = 0;
};

int Count(const std::string& xml, const std::string& what) {
  int n = 0;
  for (size_t at = xml.find(what); at != std::string::npos; at = xml.find(what, at + 1)) ++n;
  return n;
}

Junit Read(const std::string& xml) {
  Junit j;
  static const std::regex kTotals(R"re(<testsuites? name="[^"]*" tests="(\d+)" failures="(\d+)" skipped="(\d+)")re");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), kTotals); it != std::sregex_iterator(); ++it) {
    const bool all = it->str(0).rfind("<testsuites ", 0) == 0;
    (all ? j.tests : j.suite_tests) += std::stoi(it->str(1));
    (all ? j.failures : j.suite_failures) += std::stoi(it->str(2));
    (all ? j.skipped : j.suite_skipped) += std::stoi(it->str(3));
  }
  static const std::regex kCase(R"re(<testcase classname="([^"]*)" name="([^"]*)")re");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), kCase); it != std::sregex_iterator(); ++it) {
    j.cases.push_back(it->str(1) + "." + it->str(2));
  }
  j.failure_children = Count(xml, "<failure ");
  j.skipped_children = Count(xml, "<skipped ");
  return j;
}

TestResult Result(const std::string& suite, const std::string& name, TestStatus status) {
  TestResult r;
  r.suite = suite;
  r.name = name;
  r.status = status;
  return r;
}

// A run as `rdmacheck run --strict` leaves it: the suites' tests (suite timings for the
// planned suites only), the probe's broken capability first, the floor, a kernel report
// outside every test and --strict's unread kernel log in the run's own "suite".
RunResults StrictRunWithRunLevelFailures() {
  RunResults run;
  run.device = "rxe0";
  run.suites = {{"datapath", 1000, 10, 1}};
  Profile profile;
  profile.observed[Cap::kSendWithInv] = {Outcome::kBroken, 0, "the receive completion lacks IBV_WC_WITH_INV"};
  run.tests = BrokenCapabilityResults(profile, nullptr);
  run.tests.push_back(Result("datapath", "Sizes/RcSendSizeTest.SendArrivesIntact/64", TestStatus::kSkip));
  run.tests.push_back(Result("datapath", "PdTest.AllocDealloc", TestStatus::kPass));
  run.tests.push_back(OutsideTestsResult("run", {"[ 3.0] WARNING: CPU: 1 PID: 7 at rxe_comp.c:1"}));
  TestResult strict = Result("run", kStrictKernelLogTest, TestStatus::kFail);
  strict.message = "--strict: the kernel log was unreadable";
  run.tests.push_back(strict);
  for (TestResult& r : RunFloorResults({{"datapath", "Sizes/RcSendSizeTest.SendArrivesIntact/64", "", ""}}, run.tests,
                                       IBV_TRANSPORT_IB)) {
    run.tests.push_back(r);
  }
  return run;
}

TEST(JunitTest, EveryResultIsATestCaseWhateverItsSuite) {
  const RunResults run = StrictRunWithRunLevelFailures();
  const RunSummary summary = Summarize(run.tests);
  ASSERT_EQ(summary.fail, 4);  // the broken capability, the kernel report, --strict, the floor
  ASSERT_EQ(ExitCodeFor(summary), 1);

  const Junit junit = Read(ResultsToJunit(run));
  std::vector<std::string> names;
  for (const TestResult& t : run.tests) names.push_back(t.name);
  EXPECT_THAT(junit.cases, UnorderedElementsAreArray(names));
  EXPECT_EQ(junit.failure_children, summary.fail + summary.xpass);
  EXPECT_EQ(junit.skipped_children, summary.skip + summary.xfail + summary.blocked);
}

TEST(JunitTest, TotalsAreTheTestCasesWritten) {
  const Junit junit = Read(ResultsToJunit(StrictRunWithRunLevelFailures()));
  const int cases = static_cast<int>(junit.cases.size());
  EXPECT_EQ(junit.tests, cases);
  EXPECT_EQ(junit.suite_tests, cases);
  EXPECT_EQ(junit.failures, junit.failure_children);
  EXPECT_EQ(junit.suite_failures, junit.failure_children);
  EXPECT_EQ(junit.skipped, junit.skipped_children);
  EXPECT_EQ(junit.suite_skipped, junit.skipped_children);
}

// A suite named twice in the timings (or a result of a suite without one) is still written
// once per result.
TEST(JunitTest, ASuiteTimedTwiceWritesItsTestsOnce) {
  RunResults run;
  run.device = "rxe0";
  run.suites = {{"pd", 1, 0, 1}, {"pd", 2, 0, 1}};
  run.tests = {Result("pd", "PdTest.A", TestStatus::kPass), Result("pd", "PdTest.B", TestStatus::kFail)};
  const Junit junit = Read(ResultsToJunit(run));
  EXPECT_THAT(junit.cases, ElementsAreArray({"PdTest.A", "PdTest.B"}));
  EXPECT_EQ(junit.suite_tests, 2);
  EXPECT_EQ(junit.tests, 2);
}

}  // namespace
}  // namespace rdmacheck
