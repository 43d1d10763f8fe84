#include "reports/report_json.h"

#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace rdmacheck {

namespace {


nlohmann::json DeviceJson(const DeviceSection& d) {
  nlohmann::json j = ResultsToJson(d.run.results);
  j.erase("schema");
  j["label"] = d.label;
  j["source"] = d.run.source;
  j["suites"] = nlohmann::json::array();
  for (const SuiteCounts& s : d.suites) {
    j["suites"].push_back({{"name", s.suite},
                           {"duration_ms", s.duration_ms},
                           {"setup_ms", s.setup_ms},
                           {"processes", s.processes},
                           {"summary", SummaryToJson(s.summary)}});
  }
  j["capabilities"] = d.run.capabilities;
  return j;
}

nlohmann::json Labels(const Report& report) {
  nlohmann::json labels = nlohmann::json::array();
  for (const DeviceSection& d : report.devices) labels.push_back(d.label);
  return labels;
}

}  // namespace

nlohmann::json ReportToJson(const Report& report) {
  nlohmann::json devices = nlohmann::json::array();
  for (const DeviceSection& d : report.devices) devices.push_back(DeviceJson(d));

  nlohmann::json cap_rows = nlohmann::json::array();
  for (const CapabilityRow& row : report.capabilities) {
    nlohmann::json cells = nlohmann::json::array();
    for (const auto& cell : row.cells) {
      cells.push_back(cell ? nlohmann::json{{"outcome", cell->outcome}, {"errno", cell->err}, {"detail", cell->detail}}
                           : nlohmann::json(nullptr));
    }
    cap_rows.push_back(
        {{"capability", row.capability}, {"differs", row.differs}, {"quirk", row.quirk}, {"cells", cells}});
  }

  nlohmann::json test_rows = nlohmann::json::array();
  for (const MatrixRow& row : report.matrix) {
    nlohmann::json cells = nlohmann::json::array();
    for (size_t d = 0; d < report.devices.size(); ++d) {
      const TestResult* t = report.Cell(row, d);
      cells.push_back(t ? nlohmann::json(TestStatusName(t->status)) : nlohmann::json(nullptr));
    }
    test_rows.push_back({{"suite", row.suite},
                         {"test", row.test},
                         {"catalogue", row.catalogue_id},
                         {"differs", row.differs},
                         {"cells", cells}});
  }

  nlohmann::json quirks = nlohmann::json::array();
  for (const ReportQuirk& q : report.quirks) {
    quirks.push_back({{"device", report.devices[q.device].label},
                      {"kind", QuirkKindName(q.kind)},
                      {"subject", q.subject},
                      {"suite", q.suite},
                      {"catalogue", q.catalogue_id},
                      {"text", q.text},
                      {"reference", q.reference}});
  }

  nlohmann::json catalogue = nlohmann::json::array();
  for (const CatalogueEntry& e : report.catalogue) {
    catalogue.push_back(
        {{"id", e.id}, {"suite", e.suite}, {"purpose", e.purpose}, {"reference", e.reference}, {"needs", e.needs}});
  }

  nlohmann::json extra = nlohmann::json::object();
  for (const ExtraSection& s : report.extra_sections) extra[s.id] = s.data;

  return {{"schema", kReportSchema},
          {"generated", report.generated},
          {"devices", devices},
          {"capability_matrix", {{"devices", Labels(report)}, {"rows", cap_rows}}},
          {"test_matrix", {{"devices", Labels(report)}, {"rows", test_rows}}},
          {"differences", {{"tests", report.DifferingTests()}, {"capabilities", report.DifferingCapabilities()}}},
          {"quirks", quirks},
          {"catalogue", catalogue},
          {"extra", extra}};
}

absl::StatusOr<std::vector<DeviceRun>> RunsFromReportJson(const nlohmann::json& json, const std::string& source) {
  if (!json.is_object() || json.value("schema", "") != kReportSchema) {
    return absl::InvalidArgumentError(absl::StrCat(source, ": not a report.json (schema ", kReportSchema, ")"));
  }
  std::vector<DeviceRun> runs;
  const nlohmann::json devices = json.value("devices", nlohmann::json::array());
  for (size_t i = 0; i < devices.size(); ++i) {
    const std::string where = absl::StrCat(source, ": devices[", i, "]");
    absl::StatusOr<RunResults> results = ResultsFromJson(devices[i]);
    if (!results.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", results.status().message()));
    DeviceRun run;
    run.source = devices[i].value("source", source);
    run.results = *std::move(results);
    absl::Status s = SetCapabilities(devices[i].value("capabilities", nlohmann::json::object()), run);
    if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", s.message()));
    runs.push_back(std::move(run));
  }
  return runs;
}

absl::StatusOr<Report> LoadReportInput(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::string report_path;
  if (fs::is_directory(path, ec)) {
    if (fs::exists(path + "/results.json", ec) || !fs::exists(path + "/report.json", ec)) {
      absl::StatusOr<DeviceRun> run = LoadRunDir(path);
      if (!run.ok()) return run.status();
      std::vector<DeviceRun> runs;
      runs.push_back(*std::move(run));
      return BuildReport(std::move(runs));
    }
    report_path = path + "/report.json";
  } else if (fs::path(path).filename() == "results.json") {
    return LoadReportInput(fs::path(path).parent_path().string());
  } else {
    report_path = path;
  }
  absl::StatusOr<nlohmann::json> json = ReadJsonFile(report_path);
  if (!json.ok()) return json.status();
  absl::StatusOr<std::vector<DeviceRun>> runs = RunsFromReportJson(*json, report_path);
  if (!runs.ok()) return runs.status();
  Report report = BuildReport(*std::move(runs));
  report.generated = json->value("generated", "");
  return report;
}

}  // namespace rdmacheck
