// Expected deviations, as data: per driver, the tests whose outcome on that driver differs
// from the specification, and why. The files live in capabilities/expectations/<driver>.json
// (format: capabilities/expectations/README.md); the driver is the profile's
// identity.driver (the kernel's name for it: "rxe", "siw").
//
// What an entry does to a test it matches (first matching entry wins):
//   kind "fails":  a failure *whose message matches the entry's signature* becomes `xfail`
//                  (not a failure of the run); a pass becomes `xpass`, which *is* a
//                  failure: the list is stale or the device got fixed.
//   kind "flaky":  a failure matching the signature becomes `xfail`; a pass stays a pass.
//   Any other failure of the test stays `fail`, its message prefixed "not the known
//   deviation": a different wrong value, a crash, a watchdog kill, a leak or a kernel
//   splat (TestResult::abnormal) is never absorbed by an entry.
//   A skip stays a skip. An entry with a kernel / rdma_core range applies only inside it.
//
// Every pattern must match a registered test: a pattern that matches none is an error at
// start-up (StaleEntries), so lists cannot rot silently.
#ifndef RDMACHECK_CAPABILITIES_EXPECTATIONS_EXPECTATIONS_H_
#define RDMACHECK_CAPABILITIES_EXPECTATIONS_EXPECTATIONS_H_

#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "capabilities/expectations/signature_lint.h"
#include "results/results.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

enum class ExpectationKind { kFails, kFlaky };
const char* ExpectationKindName(ExpectationKind kind);

// [from, before) of dotted version numbers ("6.1", "44.0"); either end may be open.
struct VersionRange {
  std::string from;    // inclusive, "" = no lower bound
  std::string before;  // exclusive, "" = no upper bound
  bool Contains(absl::string_view version) const;
  bool IsOpen() const { return from.empty() && before.empty(); }
};

struct Expectation {
  // GoogleTest-style pattern ('*', '?') over the test's full name
  // ("Inst/CqTest.Create/1") or its catalogue name ("CqTest.Create").
  std::string test;
  // Instead of `test`: a capability the probe finds broken on this driver ("send_with_inv");
  // the signature is then matched against the probe's evidence (broken.h).
  std::string capability;
  ExpectationKind kind = ExpectationKind::kFails;
  std::string reason;     // what deviates, in one line
  std::string reference;  // where the expected behaviour comes from, or the kernel commit
  // ECMAScript regular expression, searched in the failure message: what this deviation
  // makes the test print (the WC status, the errno, the value seen), e.g.
  // "status IBV_WC_SUCCESS .*want.*IBV_WC_REM_ACCESS_ERR".
  std::string signature;
  std::shared_ptr<const std::regex> signature_re;
  VersionRange kernel;
  VersionRange rdma_core;
  // A deviation of the packets the test puts on a wire (the two-node lab's wire check,
  // reports/wire_verdict.h), signature over its violations: it judges only the wire's part
  // of the verdict, never the test's own outcome.
  bool on_the_wire = false;
  // On a wire entry, both required: the wire rule (wire/rules.h) every violation it absorbs
  // names ("roce.read_response"), and how many violations of one test it absorbs at most: a
  // test with more has more than the known deviation and fails.
  std::string wire_rule;
  int absorbs = 0;

  bool Matches(absl::string_view test_name) const;
  // Whether a failure with this message is the deviation this entry describes: every
  // failed assertion in it (each part of FailureParts) contains a match.
  bool MatchesFailure(absl::string_view message) const;
  // Whether a wire entry absorbs these violations of one test (reports/wire_verdict.h parts,
  // "link.pcap:FRAME: rule: ..."): at most `absorbs` of them, each naming `wire_rule` and
  // matching the signature. Otherwise false, and `why` (if given) says which condition broke.
  bool AbsorbsWire(const std::vector<std::string>& parts, std::string* why = nullptr) const;
};

struct ExpectationFile {
  std::string path;
  std::string driver;
  std::vector<Expectation> entries;
};

// Parsing checks the format strictly (unknown keys, missing reason, reference or signature,
// a signature that is not a valid regular expression, a bad kind or version are errors
// naming the file and the entry). An entry must be specific: its test pattern names a
// fixture (no "*", no "*Test."), no alternative of its signature, groups multiplied out,
// is broader than a deviation (signature_lint.h: nearly anything, what any failure prints,
// a timeout that names neither what was awaited nor the count), and a wire entry has its
// "rule" and "absorbs". A user's --expectations file loads through the same checks. How
// specific each signature is against the tests' own messages needs the sources:
// unit/expectation_lint_test.cc and unit/expectation_sites_test.cc.

absl::StatusOr<ExpectationFile> ParseExpectations(const nlohmann::json& json, const std::string& path);
absl::StatusOr<ExpectationFile> LoadExpectations(const std::string& path);

// Where the shipped files are: <prefix>/share/rdmacheck/expectations next to an installed
// binary, else the source tree's capabilities/expectations.
std::string ExpectationsDir();
// The shipped file for `driver`, or nullopt when there is none.
absl::StatusOr<std::optional<ExpectationFile>> ExpectationsForDriver(const std::string& driver);
// Every shipped file (for `rdmacheck list --check`).
absl::StatusOr<std::vector<ExpectationFile>> AllShippedExpectations();

// "siw.json entry 3: pattern 'PdTest.Gone*' matches no registered test", one per stale entry.
// `test_names`: GoogleTest full names of every registered test.
std::vector<std::string> StaleEntries(const ExpectationFile& file, const std::vector<std::string>& test_names);

// The "capability" entry for `capability` in this environment, or nullptr.
const Expectation* FindCapabilityExpectation(const ExpectationFile& file, absl::string_view capability,
                                             absl::string_view kernel, absl::string_view rdma_core);

// The entry that applies to `test_name` in this environment, or nullptr; `on_the_wire`:
// the entries about the test's packets on a wire instead.
const Expectation* FindExpectation(const ExpectationFile& file, absl::string_view test_name,
                                   absl::string_view kernel, absl::string_view rdma_core, bool on_the_wire = false);
// Every on_the_wire entry that applies to `test_name` in this environment, in file order.
std::vector<const Expectation*> FindWireExpectations(const ExpectationFile& file, absl::string_view test_name,
                                                     absl::string_view kernel, absl::string_view rdma_core);

// The first entry for `name` in this environment whose signature matches `message` (the
// walk's findings: one name, "Walk.modify_qp", may carry several known deviations), or nullptr.
const Expectation* FindMatchingExpectation(const ExpectationFile& file, absl::string_view name,
                                           absl::string_view message, absl::string_view kernel,
                                           absl::string_view rdma_core);

// The parts of a failure message, one per failed assertion (for MatchesFailure): the
// runner's parts, split at its blank lines (AppendFailurePart, results/results.h), each with
// its "Google Test trace:" lines; inside one, a line that starts "file.cc:LINE: " (outside a
// trace) or "link.pcap:FRAME: " (a wire violation) starts another.
std::vector<absl::string_view> FailureParts(absl::string_view message);

// Turns a result into xfail / xpass as its expectation says (see above); no entry: as is.
void ApplyExpectation(const Expectation* expectation, TestResult& result);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_EXPECTATIONS_EXPECTATIONS_H_
