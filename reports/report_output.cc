#include "reports/report_output.h"

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/integrators.h"
#include "reports/presentation.h"
#include "reports/report_html.h"
#include "reports/report_json.h"
#include "reports/report_markdown.h"

namespace rdmacheck {

absl::StatusOr<std::vector<std::string>> WriteFilesInto(const std::string& dir,
                                                        const std::vector<std::pair<std::string, std::string>>& files) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  std::vector<std::string> written;
  for (const auto& [name, content] : files) {
    const std::string path = dir + "/" + name;
    if (absl::Status s = WriteFile(path, content); !s.ok()) return s;
    written.push_back(path);
  }
  return written;
}

absl::StatusOr<std::vector<std::string>> WriteReportFiles(const Report& report, const std::string& dir) {
  return WriteFilesInto(dir, {{"report.json", ReportToJson(report).dump(2) + "\n"},
                              {"report.md", ReportToMarkdown(report)},
                              {"report.html", ReportToHtml(report)},
                              {"integrators.csv", IntegratorsCsv(report)},
                              {"integrators.md", IntegratorsMarkdown(report)}});
}

std::string SummaryText(const Report& report, const std::vector<std::string>& written) {
  std::string out =
      absl::StrCat("rdmacheck report: ", report.devices.size(), " device(s), ", report.matrix.size(), " tests\n");
  size_t width = 6;
  for (const DeviceSection& d : report.devices) width = std::max(width, d.label.size());
  for (const DeviceSection& d : report.devices) {
    const RunSummary& s = d.summary;
    absl::StrAppend(&out, absl::StrFormat("  %-*s %4d passed %4d failed %4d skipped %3d blocked %3d xfail %3d xpass  %s\n",
                                          static_cast<int>(width), d.label, s.pass, s.fail, s.skip, s.blocked, s.xfail, s.xpass,
                                          FormatDuration(d.run.results.duration_ms)));
  }
  if (report.devices.size() > 1) {
    absl::StrAppend(&out, "  differences: ", report.DifferingTests(), " tests, ", report.DifferingCapabilities(),
                    " capabilities differ between devices\n");
  }
  absl::StrAppend(&out, "  quirks: ", report.quirks.size(), "\n");
  int failures = 0;
  for (const DeviceSection& d : report.devices) {
    for (const TestResult& t : d.run.results.tests) {
      if (!IsFailure(t.status)) continue;
      if (++failures <= 8) {
        std::string line = t.status == TestStatus::kXpass ? std::string("passed, but listed as failing")
                                                          : t.message.substr(0, t.message.find('\n'));
        if (line.size() > 100) line = line.substr(0, 97) + "...";
        absl::StrAppend(&out, "  ", TestStatusName(t.status), " ", d.label, " ", t.name, ": ", line, "\n");
      }
    }
  }
  if (failures > 8) absl::StrAppend(&out, "  ... ", failures - 8, " more failures in the report\n");
  for (const std::string& path : written) absl::StrAppend(&out, "rdmacheck report: wrote ", path, "\n");
  return out;
}

}  // namespace rdmacheck
