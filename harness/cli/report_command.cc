// rdmacheck report: the compatibility report over run directories, and `report diff`.
//
//   rdmacheck report [--out=DIR] RUN_DIR...     writes DIR/report.{json,md,html}, prints a summary
//   rdmacheck report diff [--format=text|json|md] OLD NEW
//                                               OLD/NEW: a run dir, a report.json, or a dir holding one
//
// `report` exits 0 once the report is written (the runs' own failures are `run`'s exit
// status); `report diff` exits 1 when NEW regressed against OLD (reports/report_diff.h).
// Both exit 2 on an unreadable input, naming the file.
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "harness/cli/commands.h"
#include "reports/report_diff.h"
#include "reports/report_json.h"
#include "reports/report_output.h"

namespace rdmacheck {
namespace {

int DiffCommand(const std::vector<std::string>& args) {
  if (args.size() != 2)
    return UsageError("usage: rdmacheck report diff OLD NEW (run directories or report.json files)");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json" && format != "md") return UsageError("--format must be text, json or md");
  absl::StatusOr<Report> before = LoadReportInput(args[0]);
  if (!before.ok()) return UsageError(before.status());
  absl::StatusOr<Report> after = LoadReportInput(args[1]);
  if (!after.ok()) return UsageError(after.status());
  ReportDiff diff = DiffReports(*before, *after);
  if (format == "json") {
    std::cout << DiffToJson(diff, args[0], args[1]).dump(2) << std::endl;
  } else if (format == "md") {
    std::cout << DiffToMarkdown(diff, args[0], args[1]) << std::flush;
  } else {
    std::cout << DiffToText(diff, args[0], args[1]) << std::flush;
  }
  return diff.Regressed() ? kExitFailures : kExitOk;
}

}  // namespace

int ReportCommand(const std::vector<std::string>& positional) {
  if (!positional.empty() && positional[0] == "diff") {
    return DiffCommand(std::vector<std::string>(positional.begin() + 1, positional.end()));
  }
  if (positional.empty())
    return UsageError("report needs one or more run directories (from `rdmacheck run --out=DIR`)");
  std::vector<DeviceRun> runs;
  for (const std::string& dir : positional) {
    absl::StatusOr<DeviceRun> run = LoadRunDir(dir);
    if (!run.ok()) return UsageError(run.status());
    runs.push_back(*std::move(run));
  }
  Report report = BuildReport(std::move(runs));
  report.generated = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  const std::string out = absl::GetFlag(FLAGS_out).empty() ? "out" : absl::GetFlag(FLAGS_out);
  absl::StatusOr<std::vector<std::string>> written = WriteReportFiles(report, out);
  if (!written.ok()) return UsageError(written.status());
  std::cout << SummaryText(report, *written) << std::flush;
  return kExitOk;
}

}  // namespace rdmacheck
