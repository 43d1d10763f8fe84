// What a run produced: one record per test, written as results.json and junit.xml.
//
// results.json is the contract between `rdmacheck run` and everything after it (reports,
// diffs, CI): its schema is "rdmacheck.results/1"; fields are only ever added.
#ifndef RDMACHECK_RESULTS_RESULTS_H_
#define RDMACHECK_RESULTS_RESULTS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "harness/files.h"  // WriteFile, used by every writer of results
#include "nlohmann/json.hpp"

namespace rdmacheck {

enum class TestStatus {
  kPass,
  kFail,
  kSkip,   // a capability the test needs is absent (or the test chose to skip, with a reason)
  kXfail,  // failed, and the driver's expectation file says it does, with a reason
  kXpass,  // passed, but listed as failing: the list is stale or the device changed (a failure)
  // Could not run because another test's expected deviation (an xfail) made its start
  // impossible ("consequence of X: ..."): not a pass, not a skip for an absent capability;
  // counted and shown on its own. Only while the same instance of X xfailed in this run;
  // otherwise it is a failure (JudgeConsequences).
  kBlocked,
};
const char* TestStatusName(TestStatus status);
absl::StatusOr<TestStatus> TestStatusFromName(absl::string_view name);
bool IsFailure(TestStatus status);  // kFail and kXpass fail a run

struct TestResult {
  std::string suite;  // rdmacheck suite: the folder under suites/
  std::string name;   // GoogleTest full name, e.g. "PdTest.AllocDealloc" or "Inst/CqTest.Create/1"
  TestStatus status = TestStatus::kPass;
  std::string message;     // the failure's parts (AppendFailurePart), or the skip reason
  std::string capability;  // the missing capability of a skip
  // The failure is not the test's own verdict: the child crashed, the watchdog killed it,
  // it never ran, it leaked, or the kernel logged a splat. No expectation ever covers such
  // a failure, whatever its message says.
  bool abnormal = false;
  double duration_ms = 0;
  double setup_ms = 0;  // of duration_ms: fixture set-up and connecting pairs
  // Two-host mode: the pairs whose remote endpoint the test built on the peer (0: none, or
  // loopback). A test with any ran across the side channel (and, between hosts, the wire).
  int peer_pairs = 0;
  // From the catalogue.
  std::string purpose;
  std::string reference;
  std::vector<std::string> needs;
  // From the expectation file, for xfail / xpass.
  std::string expectation_reason;
  std::string expectation_reference;
  // The kernel's problem reports (WARNING, BUG, Oops, ...) logged in the test's window;
  // any line fails the test, and no expectation turns that into xfail (runner/kernel_log.h).
  std::vector<std::string> kernel_log;
  // The device's counters around the test (runner/counters.h); null where it keeps none.
  nlohmann::json traffic;
  // The test's window on CLOCK_MONOTONIC in microseconds (0: unknown); not in results.json.
  int64_t start_us = 0, end_us = 0;
};

// A failed test's message holds one part per failed assertion: GoogleTest's "file.cc:LINE: ..."
// with its "Google Test trace:" lines, or a failure without a location (an exception's
// "C++ exception with description ..."). Parts are separated by one blank line and hold no
// blank line of their own (it is dropped), so they split back exactly (FailureParts,
// capabilities/expectations/expectations.h) and an expectation matches each on its own.
inline constexpr char kFailurePartSeparator[] = "\n\n";
void AppendFailurePart(std::string& message, absl::string_view part);

struct SuiteTiming {
  std::string name;
  double duration_ms = 0;
  double setup_ms = 0;  // the tests' set-up overhead, summed
  int processes = 0;  // child processes the suite needed (more than 1 after a crash or hang)
};

// A test's body, the check it runs, without the instantiation and the parameter:
// "Connect/FaultTest.ReceiveTooSmall/RdmaCm" -> "FaultTest.ReceiveTooSmall". One TEST_P
// body runs as many instances; counts show both.
std::string TestBodyName(const std::string& test_name);

// A test's instance, without the instantiation: "Types/QpSqeTest.Sqe/UC" -> "QpSqeTest.Sqe/UC";
// "PdTest.A" (not parameterised) stays "PdTest.A".
std::string InstanceName(const std::string& test_name);

// A skip that is the consequence of another test's failure (not of an absent capability)
// says so first, naming the instance of that test whose deviation stands in the way (its
// InstanceName): "consequence of QpSqeTest.SendErrorEntersSqeAndRtsRecovers/UC: ...". The
// summary groups such skips under that test's body.
inline constexpr char kConsequenceOf[] = "consequence of ";
// The instance named by such a skip's (or blocked result's) message, or "".
std::string ConsequenceOf(const TestResult& result);

// Judges every consequence skip against the instance it names: `blocked` only when that
// instance xfailed in this run (its failure is the expected deviation that stood in the
// way). Otherwise -- it failed unexpectedly, xpassed, passed, skipped, or did not run here
// (filtered out, or no test has that name) -- nothing known explains why this test could
// not start: it is a failure, saying what the cause did. Call after expectations are applied.
void JudgeConsequences(std::vector<TestResult>& tests);

// A skip because the test needs both endpoints in one process, which two-host mode does
// not give (a limitation of that mode, not of the device), says so first.
inline constexpr char kLoopbackOnly[] = "loopback only";

// Per suite, how a two-host run's tests used the peer: `peer` built a pair on it and ran
// to a verdict (not a skip), `loopback_only` skipped as kLoopbackOnly, `other` neither (no
// remote side, or skipped for a capability).
struct PeerUse {
  int peer = 0, loopback_only = 0, other = 0;
};
std::map<std::string, PeerUse> PeerUseBySuite(const std::vector<TestResult>& tests);

struct RunSummary {
  int total = 0, pass = 0, fail = 0, skip = 0, xfail = 0, xpass = 0, blocked = 0;
  int bodies = 0;  // distinct TestBodyName() names among the results
  std::map<std::string, int> skipped_by_capability;      // absent capabilities ("(none)": other reasons)
  // Skips and blocked, by the body (TestBodyName) whose failure made them impossible.
  std::map<std::string, int> skipped_as_consequence_of;
};

struct RunResults {
  std::string device;
  nlohmann::json environment = nlohmann::json::object();  // selection, versions, flags
  std::string started;  // RFC 3339
  double duration_ms = 0;
  std::vector<SuiteTiming> suites;
  std::vector<TestResult> tests;
  // false while the run is under way: results.json is rewritten after every suite, so a
  // run that dies (a kernel panic) keeps the suites before it.
  bool complete = true;
};

RunSummary Summarize(const std::vector<TestResult>& tests);
// The summary as results.json and report.json write it.
nlohmann::json SummaryToJson(const RunSummary& summary);
int ExitCodeFor(const RunSummary& summary);  // 0: no failure, 1: some test failed or xpassed

nlohmann::json ResultsToJson(const RunResults& results);
absl::StatusOr<RunResults> ResultsFromJson(const nlohmann::json& json);
absl::StatusOr<RunResults> LoadResults(const std::string& path);

// JUnit XML as CI systems read it: one <testsuite> per rdmacheck suite, and one <testcase>
// per result whatever its suite (the run's own results too: "capabilities"'s
// BrokenCapability.*, "run"'s RunFloor.*, --strict's, the kernel's reports outside every
// test), so every failure that fails the run is a failed test case; the totals count the
// test cases written.
std::string ResultsToJunit(const RunResults& results);

}  // namespace rdmacheck

#endif  // RDMACHECK_RESULTS_RESULTS_H_
