// Coverage of the promises: per verb, which promises a test checks, which no test can
// check on this device (every test that declares it needs a capability the device lacks),
// and which no test checks.
//
//   Coverage c = MeasureCoverage(promises, checks, Catalogue(), run /* or nullptr */);
//
// Without a run every declared promise counts as tested. With a run (`plan --run=DIR`):
// a test skipped for a missing capability in DIR/results.json, or one that needs a
// capability DIR/capabilities.json observed absent, cannot test its promises here; a
// promise that only such tests declare is untestable.
#ifndef RDMACHECK_PLAN_COVERAGE_H_
#define RDMACHECK_PLAN_COVERAGE_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plan/checks.h"
#include "plan/promise.h"
#include "testing/catalogue.h"

namespace rdmacheck {

// What one run directory says about the device.
struct RunEvidence {
  std::string dir;
  std::string driver;                              // the environment's driver ("rxe"), "" when not recorded
  std::map<std::string, std::string> skipped_for;  // "Fixture.Name" -> the capability it was skipped for
  std::set<std::string> ran;                       // "Fixture.Name" of tests that reached a verdict
  std::set<std::string> absent;                    // capability names the probe found not supported
};

// Reads DIR/results.json and DIR/capabilities.json (at least one must be there).
absl::StatusOr<RunEvidence> LoadRunEvidence(const std::string& dir);

enum class CoverageState { kTested, kUntestable, kUntested };
const char* CoverageStateName(CoverageState state);  // "tested", "untestable", "untested"

struct PromiseCoverage {
  const Promise* promise;
  CoverageState state;
  std::vector<std::string> tests;  // "Fixture.Name" declaring it
  std::string why;                 // untestable: "needs atomics (MwType1Test.Foo, ...)"
};

struct VerbCoverage {
  std::string verb;
  std::string page;
  std::vector<PromiseCoverage> promises;
  int tested = 0, untestable = 0, untested = 0;
};

struct Coverage {
  std::string manpages;
  int pages = 0;
  std::vector<VerbCoverage> verbs;
  int promises = 0, tested = 0, untestable = 0, untested = 0;
  int verbs_with_a_test = 0;
  int tests = 0, tests_declaring = 0;            // catalogue entries; those declaring >= 1 promise
  std::vector<std::string> unknown;              // declared ids that name no promise of these pages
  std::map<std::string, int> citations;          // "IBTA Vol 1 10.6.3" -> tests citing it
  std::vector<std::string> dropped_prose;        // prose promises whose verb these pages lack
  bool with_run = false;
  std::string run_dir;
};

Coverage MeasureCoverage(const PromiseSet& promises, const Checks& checks, const std::vector<TestAbout>& catalogue,
                         const RunEvidence* run);

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_COVERAGE_H_
