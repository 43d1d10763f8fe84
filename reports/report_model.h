// The report model: one or more runs of `rdmacheck run`, side by side.
//
// A run directory holds results.json (results/results.h) and capabilities.json
// (capabilities/profile/profile.h). The model keeps both as the run wrote them and derives what a
// reader compares: the test matrix (rows: tests grouped by suite, columns: devices), the
// capability matrix, the rows where devices differ, and the quirks (every deviation a run
// found, in words). Renderers (report_json.h, report_markdown.h, report_html.h) and the diff
// (report_diff.h) only read this model.
//
// Capabilities are open: the report shows whatever names the probe wrote and never lists
// them itself, so a probe that learns a new capability needs no change here.
#ifndef RDMACHECK_REPORTS_REPORT_MODEL_H_
#define RDMACHECK_REPORTS_REPORT_MODEL_H_

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "results/results.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

inline constexpr char kReportSchema[] = "rdmacheck.report/1";

// One capability as the probe saw it on one device.
struct CapabilityObservation {
  std::string outcome;  // "supported", "unsupported", "broken" (or what a newer probe writes)
  int err = 0;          // errno of the failing call, 0 if none
  std::string detail;   // what was tried and what happened
};

// One run of one device, as `rdmacheck run` left it.
struct DeviceRun {
  std::string source;                                      // the run directory or report.json
  RunResults results;                                      // results.json
  nlohmann::json capabilities = nlohmann::json::object();  // capabilities.json, verbatim
  // Read from `capabilities`: the parts the report shows.
  nlohmann::json identity = nlohmann::json::object();
  nlohmann::json declared = nlohmann::json::object();               // open: whatever the probe declares
  std::map<std::string, CapabilityObservation> observed;            // open: capability name -> what happened
  nlohmann::json measured = nlohmann::json::object();               // open: limit name -> {value, detail}
  std::vector<std::pair<std::string, std::string>> profile_quirks;  // (capability or topic, text)
};

// The run in DIR: DIR/results.json and DIR/capabilities.json. Errors name the file.
absl::StatusOr<DeviceRun> LoadRunDir(const std::string& dir);
// Fills run.capabilities and the parts read from it, from a capabilities.json document.
absl::Status SetCapabilities(const nlohmann::json& capabilities, DeviceRun& run);
// Reads DIR/capabilities.json into `run` (SetCapabilities); the error names the file.
absl::Status LoadCapabilities(const std::string& dir, DeviceRun& run);
// A JSON file; errors name it ("cannot read PATH", "PATH: not valid JSON").
absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path);

struct SuiteCounts {
  std::string suite;
  RunSummary summary;
  double duration_ms = 0;
  double setup_ms = 0;  // of duration_ms: the tests' set-up (fixtures, connecting pairs)
  int processes = 0;
};

struct DeviceSection {
  std::string label;  // column title: the device name, made unique when a device appears twice
  DeviceRun run;
  RunSummary summary;
  std::vector<SuiteCounts> suites;  // in run order

  const SuiteCounts* FindSuite(const std::string& suite) const;  // nullptr: not run on this device
};

// "Inst/CqTest.Create/1" -> "CqTest.Create": the catalogue entry a test belongs to, also the
// anchor every report links a test to.
std::string CatalogueId(const std::string& test_name);

// One test across devices. A cell is an index into that device's results.tests, or empty
// when the device did not run the test.
struct MatrixRow {
  std::string suite;
  std::string test;
  std::string catalogue_id;
  std::vector<std::optional<size_t>> cells;
  bool differs = false;  // devices disagree (not running it counts as an outcome)
};

// One capability across devices.
struct CapabilityRow {
  std::string capability;
  std::vector<std::optional<CapabilityObservation>> cells;
  bool differs = false;
  bool quirk = false;  // some device is broken here or has a profile quirk about it
};

// What the catalogue says about a test: purpose, reference, required capabilities.
struct CatalogueEntry {
  std::string id;  // CatalogueId
  std::string suite;
  std::string purpose;
  std::string reference;
  std::vector<std::string> needs;
};

// A deviation a run found, told for a person learning the device.
enum class QuirkKind {
  kProfile,  // the probe saw the device differ from what it declares
  kBroken,   // a capability the device declares failed when tried
  kXfail,    // a test fails as the driver's expectation file says
  kXpass,    // a test listed as failing passed: the list is stale or the device changed
};
const char* QuirkKindName(QuirkKind kind);  // "profile", "broken", "xfail", "xpass"

struct ReportQuirk {
  size_t device = 0;  // index into Report::devices
  QuirkKind kind = QuirkKind::kProfile;
  std::string subject;       // the capability (kProfile, kBroken) or the test (kXfail, kXpass)
  std::string suite;         // of a test
  std::string catalogue_id;  // of a test
  std::string text;          // the explanation, a sentence or two
  std::string reference;     // where the expectation comes from, if known
};

// A section a later layer adds (e.g. benchmark results): already rendered by its producer,
// placed after the standard sections, and stored in report.json under "extra"/<id>.
struct ExtraSection {
  std::string id;
  std::string title;
  nlohmann::json data;
  std::string markdown;
  std::string html;  // trusted: the producer escapes it
};

struct Report {
  std::string generated;  // RFC 3339, when the report was made
  std::vector<DeviceSection> devices;
  std::vector<CapabilityRow> capabilities;  // sorted by name
  std::vector<MatrixRow> matrix;            // grouped by suite, in run order
  std::vector<ReportQuirk> quirks;          // by device, then profile / broken / xfail / xpass
  std::vector<CatalogueEntry> catalogue;    // every test in the report, in matrix order
  std::vector<ExtraSection> extra_sections;

  std::vector<std::string> SuiteNames() const;  // every suite any device ran, first seen first
  int DifferingTests() const;
  int DifferingCapabilities() const;
  const TestResult* Cell(const MatrixRow& row, size_t device) const;
  const CatalogueEntry* FindCatalogue(const std::string& id) const;
};

// Builds the derived parts (matrix, capability rows, quirks, catalogue) from the runs, in
// the order given. `generated` is left empty for the caller to set.
Report BuildReport(std::vector<DeviceRun> runs);

// "pass" -> "passed", ...: the words the renderers print.
const char* StatusWord(TestStatus status);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_REPORT_MODEL_H_
