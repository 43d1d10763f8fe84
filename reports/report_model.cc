#include "reports/report_model.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rdmacheck {

absl::StatusOr<nlohmann::json> ReadJsonFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  return json;
}

absl::Status SetCapabilities(const nlohmann::json& capabilities, DeviceRun& run) {
  if (!capabilities.is_object()) return absl::InvalidArgumentError("a capability profile must be a JSON object");
  try {
    run.capabilities = capabilities;
    run.identity = capabilities.value("identity", nlohmann::json::object());
    run.declared = capabilities.value("declared", nlohmann::json::object());
    run.measured = capabilities.value("measured", nlohmann::json::object());
    run.observed.clear();
    const nlohmann::json observed = capabilities.value("observed", nlohmann::json::object());
    for (const auto& [name, o] : observed.items()) {
      run.observed[name] = {o.value("outcome", "unknown"), o.value("errno", 0), o.value("detail", "")};
    }
    run.profile_quirks.clear();
    for (const auto& q : capabilities.value("quirks", nlohmann::json::array())) {
      run.profile_quirks.emplace_back(q.value("capability", ""), q.value("text", ""));
    }
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("capability profile: ", e.what()));
  }
  return absl::OkStatus();
}

absl::StatusOr<DeviceRun> LoadRunDir(const std::string& dir) {
  DeviceRun run;
  run.source = dir;
  absl::StatusOr<RunResults> results = LoadResults(dir + "/results.json");
  if (!results.ok()) return results.status();
  run.results = *std::move(results);
  if (absl::Status s = LoadCapabilities(dir, run); !s.ok()) return s;
  return run;
}

absl::Status LoadCapabilities(const std::string& dir, DeviceRun& run) {
  const std::string caps_path = dir + "/capabilities.json";
  absl::StatusOr<nlohmann::json> caps = ReadJsonFile(caps_path);
  if (!caps.ok()) return caps.status();
  if (absl::Status s = SetCapabilities(*caps, run); !s.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(caps_path, ": ", s.message()));
  }
  return absl::OkStatus();
}

std::string CatalogueId(const std::string& test_name) { return TestBodyName(test_name); }

const char* QuirkKindName(QuirkKind kind) {
  switch (kind) {
    case QuirkKind::kProfile:
      return "profile";
    case QuirkKind::kBroken:
      return "broken";
    case QuirkKind::kXfail:
      return "xfail";
    case QuirkKind::kXpass:
      return "xpass";
  }
  return "unknown";
}

const char* StatusWord(TestStatus status) {
  switch (status) {
    case TestStatus::kPass:
      return "passed";
    case TestStatus::kFail:
      return "failed";
    case TestStatus::kSkip:
      return "skipped";
    case TestStatus::kXfail:
      return "xfail";
    case TestStatus::kXpass:
      return "xpass";
    case TestStatus::kBlocked:
      return "blocked";
  }
  return "unknown";
}

const SuiteCounts* DeviceSection::FindSuite(const std::string& suite) const {
  for (const SuiteCounts& s : suites) {
    if (s.suite == suite) return &s;
  }
  return nullptr;
}

std::vector<std::string> Report::SuiteNames() const {
  std::vector<std::string> names;
  for (const DeviceSection& d : devices) {
    for (const SuiteCounts& s : d.suites) {
      if (std::find(names.begin(), names.end(), s.suite) == names.end()) names.push_back(s.suite);
    }
  }
  return names;
}

int Report::DifferingTests() const {
  int n = 0;
  for (const MatrixRow& row : matrix) n += row.differs;
  return n;
}

int Report::DifferingCapabilities() const {
  int n = 0;
  for (const CapabilityRow& row : capabilities) n += row.differs;
  return n;
}

const TestResult* Report::Cell(const MatrixRow& row, size_t device) const {
  if (device >= row.cells.size() || !row.cells[device]) return nullptr;
  return &devices[device].run.results.tests[*row.cells[device]];
}

const CatalogueEntry* Report::FindCatalogue(const std::string& id) const {
  for (const CatalogueEntry& e : catalogue) {
    if (e.id == id) return &e;
  }
  return nullptr;
}

namespace {

std::vector<SuiteCounts> CountSuites(const RunResults& results) {
  std::vector<SuiteCounts> suites;
  for (const SuiteTiming& t : results.suites) suites.push_back({t.name, {}, t.duration_ms, t.setup_ms, t.processes});
  for (const TestResult& t : results.tests) {  // a suite with results but no timing still counts
    bool known = false;
    for (const SuiteCounts& s : suites) known = known || s.suite == t.suite;
    if (!known) suites.push_back({t.suite, {}, 0, 0, 0});
  }
  for (SuiteCounts& s : suites) {
    std::vector<TestResult> of_suite;
    for (const TestResult& t : results.tests) {
      if (t.suite == s.suite) of_suite.push_back(t);
    }
    s.summary = Summarize(of_suite);
  }
  return suites;
}

std::vector<DeviceSection> MakeSections(std::vector<DeviceRun> runs) {
  std::map<std::string, int> seen;
  for (const DeviceRun& run : runs) ++seen[run.results.device];
  std::vector<DeviceSection> devices;
  for (DeviceRun& run : runs) {
    DeviceSection d;
    d.label =
        seen[run.results.device] > 1 ? absl::StrCat(run.results.device, " (", run.source, ")") : run.results.device;
    d.summary = Summarize(run.results.tests);
    d.suites = CountSuites(run.results);
    d.run = std::move(run);
    devices.push_back(std::move(d));
  }
  return devices;
}

// Rows in suite order (as the first device that ran a suite ran it), tests in run order.
std::vector<MatrixRow> MakeMatrix(const std::vector<DeviceSection>& devices) {
  std::vector<std::string> suites;
  std::vector<MatrixRow> rows;
  std::map<std::pair<std::string, std::string>, size_t> index;
  for (size_t d = 0; d < devices.size(); ++d) {
    const std::vector<TestResult>& tests = devices[d].run.results.tests;
    for (size_t i = 0; i < tests.size(); ++i) {
      auto [it, inserted] = index.emplace(std::make_pair(tests[i].suite, tests[i].name), rows.size());
      if (inserted) {
        rows.push_back({tests[i].suite, tests[i].name, CatalogueId(tests[i].name),
                        std::vector<std::optional<size_t>>(devices.size()), false});
        if (std::find(suites.begin(), suites.end(), tests[i].suite) == suites.end()) suites.push_back(tests[i].suite);
      }
      rows[it->second].cells[d] = i;
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [&](const MatrixRow& a, const MatrixRow& b) {
    return std::find(suites.begin(), suites.end(), a.suite) < std::find(suites.begin(), suites.end(), b.suite);
  });
  for (MatrixRow& row : rows) {
    std::set<int> outcomes;  // -1: not run
    for (size_t d = 0; d < devices.size(); ++d) {
      outcomes.insert(row.cells[d] ? static_cast<int>(devices[d].run.results.tests[*row.cells[d]].status) : -1);
    }
    row.differs = outcomes.size() > 1;
  }
  return rows;
}

bool HasProfileQuirk(const DeviceRun& run, const std::string& capability) {
  for (const auto& [cap, text] : run.profile_quirks) {
    if (cap == capability) return true;
  }
  return false;
}

std::vector<CapabilityRow> MakeCapabilityRows(const std::vector<DeviceSection>& devices) {
  std::set<std::string> names;
  for (const DeviceSection& d : devices) {
    for (const auto& [name, o] : d.run.observed) names.insert(name);
  }
  std::vector<CapabilityRow> rows;
  for (const std::string& name : names) {
    CapabilityRow row{name, {}, false, false};
    std::set<std::string> outcomes;
    for (const DeviceSection& d : devices) {
      auto it = d.run.observed.find(name);
      if (it == d.run.observed.end()) {
        row.cells.push_back(std::nullopt);
        outcomes.insert("");
      } else {
        row.cells.push_back(it->second);
        outcomes.insert(it->second.outcome);
        row.quirk = row.quirk || it->second.outcome == "broken";
      }
      row.quirk = row.quirk || HasProfileQuirk(d.run, name);
    }
    row.differs = outcomes.size() > 1;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::string ErrnoText(int err) {
  if (err == 0) return "";
  return absl::StrCat(" (errno ", err, ": ", std::strerror(err), ")");
}

std::vector<ReportQuirk> MakeQuirks(const std::vector<DeviceSection>& devices) {
  std::vector<ReportQuirk> quirks;
  for (size_t d = 0; d < devices.size(); ++d) {
    const DeviceRun& run = devices[d].run;
    for (const auto& [cap, text] : run.profile_quirks) {
      quirks.push_back({d, QuirkKind::kProfile, cap, "", "", text, ""});
    }
    for (const auto& [cap, o] : run.observed) {
      if (o.outcome != "broken" || HasProfileQuirk(run, cap)) continue;  // the probe already explained it
      quirks.push_back({d, QuirkKind::kBroken, cap, "", "",
                        absl::StrCat("The device declares ", cap, ", but it did not work when the probe tried it: ",
                                     o.detail.empty() ? "no detail recorded" : o.detail, ErrnoText(o.err), "."),
                        ""});
    }
    for (const TestResult& t : run.results.tests) {
      if (t.status == TestStatus::kXfail) {
        quirks.push_back({d, QuirkKind::kXfail, t.name, t.suite, CatalogueId(t.name),
                          absl::StrCat("Fails on this device, as its driver's expectation file says: ",
                                       t.expectation_reason.empty() ? "(no reason given)" : t.expectation_reason),
                          t.expectation_reference});
      } else if (t.status == TestStatus::kXpass) {
        quirks.push_back({d, QuirkKind::kXpass, t.name, t.suite, CatalogueId(t.name),
                          absl::StrCat("Listed as failing on this device (", t.expectation_reason,
                                       ") but it passed: the expectation is stale, or the device changed."),
                          t.expectation_reference});
      }
    }
  }
  return quirks;
}

std::vector<CatalogueEntry> MakeCatalogue(const std::vector<DeviceSection>& devices,
                                          const std::vector<MatrixRow>& matrix) {
  std::vector<CatalogueEntry> entries;
  std::map<std::string, size_t> index;
  for (const MatrixRow& row : matrix) {
    auto [it, inserted] = index.emplace(row.catalogue_id, entries.size());
    if (inserted) entries.push_back({row.catalogue_id, row.suite, "", "", {}});
    CatalogueEntry& e = entries[it->second];
    for (size_t d = 0; d < devices.size() && e.purpose.empty(); ++d) {
      if (!row.cells[d]) continue;
      const TestResult& t = devices[d].run.results.tests[*row.cells[d]];
      e.purpose = t.purpose;
      e.reference = t.reference;
      e.needs = t.needs;
    }
  }
  return entries;
}

}  // namespace

Report BuildReport(std::vector<DeviceRun> runs) {
  Report report;
  report.devices = MakeSections(std::move(runs));
  report.matrix = MakeMatrix(report.devices);
  report.capabilities = MakeCapabilityRows(report.devices);
  report.quirks = MakeQuirks(report.devices);
  report.catalogue = MakeCatalogue(report.devices, report.matrix);
  return report;
}

}  // namespace rdmacheck
