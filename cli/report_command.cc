// rdmacheck report: the compatibility report over run directories, and `report diff`.
//
//   rdmacheck report [--out=DIR] [--format=text|integrators] RUN_DIR...
//                                               writes DIR/report.{json,md,html} and the hand-over
//                                               rows DIR/integrators.{csv,md}; prints a summary
//                                               (text) or the integrators.csv rows (integrators)
//   rdmacheck report diff [--format=text|json|md] [--bench_threshold=F] OLD NEW
//                                               OLD/NEW: a run dir, a report.json, or a dir holding one
//
// A run dir with bench.json (`rdmacheck bench`) adds the benchmark section; a mutation run
// (a dir holding mutation.json, or the file: `ctest -L mutation`) adds the mutation score and
// brings its plain runs as the devices.
// `report` exits 0 once the report is written (the runs' own failures are `run`'s exit
// status); `report diff` exits 1 when NEW regressed against OLD (reports/report_diff.h), or
// when a benchmark number got worse by more than --bench_threshold (bench/bench_report.h).
// Both exit 2 on an unreadable input, naming the file.
#include <algorithm>
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/bench_report.h"
#include "cli/commands.h"
#include "reports/image_section.h"
#include "reports/integrators.h"
#include "reports/kernel_section.h"
#include "reports/recovery_section.h"
#include "reports/mutation_section.h"
#include "reports/report_diff.h"
#include "reports/report_json.h"
#include "reports/report_output.h"

ABSL_FLAG(double, bench_threshold, 0.10,
          "report diff: a bandwidth lower or a median latency higher by more than this fraction is a regression");

namespace rdmacheck {
namespace {

// The benchmark runs of every input, for the report's section or the diff.
absl::StatusOr<std::vector<BenchRun>> BenchRunsOf(const std::vector<std::string>& inputs) {
  std::vector<BenchRun> runs;
  for (const std::string& input : inputs) {
    absl::StatusOr<std::vector<BenchRun>> found = LoadBenchRuns(input);
    if (!found.ok()) return found.status();
    runs.insert(runs.end(), found->begin(), found->end());
  }
  return runs;
}

int DiffCommand(const std::vector<std::string>& args) {
  if (args.size() != 2)
    return UsageError("usage: rdmacheck report diff OLD NEW (run directories or report.json files)");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json" && format != "md") return UsageError("--format must be text, json or md");
  absl::StatusOr<Report> before = LoadReportInput(args[0]);
  if (!before.ok()) return UsageError(before.status());
  absl::StatusOr<Report> after = LoadReportInput(args[1]);
  if (!after.ok()) return UsageError(after.status());
  const double threshold = absl::GetFlag(FLAGS_bench_threshold);
  if (threshold < 0) return UsageError("--bench_threshold must be >= 0");
  absl::StatusOr<std::vector<BenchRun>> bench_before = BenchRunsOf({args[0]});
  if (!bench_before.ok()) return UsageError(bench_before.status());
  absl::StatusOr<std::vector<BenchRun>> bench_after = BenchRunsOf({args[1]});
  if (!bench_after.ok()) return UsageError(bench_after.status());
  const std::vector<BenchChange> bench = DiffBench(*bench_before, *bench_after, threshold);
  const bool bench_regressed =
      std::any_of(bench.begin(), bench.end(), [](const BenchChange& c) { return c.regression; });

  ReportDiff diff = DiffReports(*before, *after);
  if (format == "json") {
    nlohmann::json json = DiffToJson(diff, args[0], args[1]);
    if (!bench.empty()) json["bench"] = BenchChangesJson(bench, threshold);
    std::cout << json.dump(2) << std::endl;
  } else if (format == "md") {
    std::cout << DiffToMarkdown(diff, args[0], args[1]);
    if (!bench.empty()) std::cout << "\n```\n" << BenchChangesText(bench, threshold) << "```\n";
    std::cout << std::flush;
  } else {
    std::cout << DiffToText(diff, args[0], args[1]) << BenchChangesText(bench, threshold) << std::flush;
  }
  return diff.Regressed() || bench_regressed ? kExitFailures : kExitOk;
}

}  // namespace

int ReportCommand(const std::vector<std::string>& positional) {
  if (!positional.empty() && positional[0] == "diff") {
    return DiffCommand(std::vector<std::string>(positional.begin() + 1, positional.end()));
  }
  if (positional.empty())
    return UsageError("report needs one or more run directories (from `rdmacheck run --out=DIR`)");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "integrators") return UsageError("report: --format must be text or integrators");
  std::vector<DeviceRun> runs;
  std::vector<MutationRun> mutations;
  std::vector<std::string> run_dirs;
  for (const std::string& input : positional) {
    absl::StatusOr<std::optional<MutationRun>> mutation = LoadMutationRun(input);
    if (!mutation.ok()) return UsageError(mutation.status());
    if (!mutation->has_value()) {
      run_dirs.push_back(input);
      continue;
    }
    run_dirs.insert(run_dirs.end(), (*mutation)->plain_runs.begin(), (*mutation)->plain_runs.end());
    mutations.push_back(**std::move(mutation));
  }
  for (const std::string& dir : run_dirs) {
    absl::StatusOr<DeviceRun> run = LoadRunDir(dir);
    if (!run.ok()) return UsageError(run.status());
    runs.push_back(*std::move(run));
  }
  Report report = BuildReport(std::move(runs));
  absl::StatusOr<std::vector<BenchRun>> bench = BenchRunsOf(run_dirs);
  if (!bench.ok()) return UsageError(bench.status());
  if (std::optional<ExtraSection> section = ImageSection(report)) report.extra_sections.push_back(*section);
  report.extra_sections.push_back(KernelSection(report));
  if (std::optional<ExtraSection> section = RecoverySection(report)) report.extra_sections.push_back(*section);
  if (std::optional<ExtraSection> section = BenchSection(*bench)) report.extra_sections.push_back(*section);
  if (!mutations.empty()) report.extra_sections.push_back(MutationSection(mutations));
  report.generated = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  const std::string out = absl::GetFlag(FLAGS_out).empty() ? "out" : absl::GetFlag(FLAGS_out);
  absl::StatusOr<std::vector<std::string>> written = WriteReportFiles(report, out);
  if (!written.ok()) return UsageError(written.status());
  std::cout << (format == "integrators" ? IntegratorsCsv(report) : SummaryText(report, *written)) << std::flush;
  return kExitOk;
}

}  // namespace rdmacheck
