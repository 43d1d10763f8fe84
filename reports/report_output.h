// Writing a report: report.json, report.md and report.html into a directory, beside them
// the hand-over rows integrators.csv and integrators.md (reports/integrators.h), and the
// one-screen summary `rdmacheck report` prints.
#ifndef RDMACHECK_REPORTS_REPORT_OUTPUT_H_
#define RDMACHECK_REPORTS_REPORT_OUTPUT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/report_model.h"

namespace rdmacheck {

// Creates `dir` if needed; returns the paths written (json, md, html, integrators csv, md).
absl::StatusOr<std::vector<std::string>> WriteReportFiles(const Report& report, const std::string& dir);

// Writes each (file name, content) into `dir`, created if needed; returns the paths written.
absl::StatusOr<std::vector<std::string>> WriteFilesInto(const std::string& dir,
                                                        const std::vector<std::pair<std::string, std::string>>& files);

// Per device: counts, time, skips; then differences, quirks, the first failures and the paths.
std::string SummaryText(const Report& report, const std::vector<std::string>& written);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_REPORT_OUTPUT_H_
