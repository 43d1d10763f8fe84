// report.json: the report model as data, schema "rdmacheck.report/1" (reports/report.schema.json).
//
// Each device entry is its results.json (without "schema") plus "label", "source", per-suite
// counts and the verbatim capabilities.json under "capabilities", so a report.json holds
// everything needed to rebuild the report; the matrices, quirks and catalogue are derived
// and written for readers that do not want to derive them.
#ifndef RDMACHECK_REPORTS_REPORT_JSON_H_
#define RDMACHECK_REPORTS_REPORT_JSON_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "reports/report_model.h"

namespace rdmacheck {

nlohmann::json ReportToJson(const Report& report);

// The runs in a report.json; `source` names the file in errors.
absl::StatusOr<std::vector<DeviceRun>> RunsFromReportJson(const nlohmann::json& json, const std::string& source);

// What `report diff` compares: a run directory (results.json + capabilities.json), a
// report.json, or a directory holding report.json but no results.json (the lab's out/).
absl::StatusOr<Report> LoadReportInput(const std::string& path);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_REPORT_JSON_H_
