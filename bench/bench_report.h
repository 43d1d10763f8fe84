// Benchmark results in reports and diffs.
//
//   rdmacheck report RUN_DIR...   a run directory holding bench.json (from `rdmacheck bench
//                                 --out=RUN_DIR/bench.json`) adds a "Benchmark" section
//   rdmacheck report diff OLD NEW a bandwidth lower, or a median latency higher, by more
//                                 than --bench_threshold is a regression
#ifndef RDMACHECK_BENCH_BENCH_REPORT_H_
#define RDMACHECK_BENCH_BENCH_REPORT_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "results/bench_result.h"
#include "reports/report_model.h"

namespace rdmacheck {

// A table of `run`: each point, perftest's value beside it and the ratio rdmacheck/perftest
// when --compare-perftest measured it. Plain text for a terminal.
std::string BenchTable(const BenchRun& run);

// The report section over every run that has benchmark results (none: nullopt).
std::optional<ExtraSection> BenchSection(const std::vector<BenchRun>& runs);


struct BenchChange {
  std::string device;
  BenchPoint before, after;
  double change = 0;  // after/before - 1 of the headline number
  bool regression = false;
};

// Points of the same device, operation, metric and size in both; a regression when the
// headline got worse by more than `threshold` (0.10 = 10%).
std::vector<BenchChange> DiffBench(const std::vector<BenchRun>& before, const std::vector<BenchRun>& after,
                                   double threshold);
std::string BenchChangesText(const std::vector<BenchChange>& changes, double threshold);
nlohmann::json BenchChangesJson(const std::vector<BenchChange>& changes, double threshold);

}  // namespace rdmacheck

#endif  // RDMACHECK_BENCH_BENCH_REPORT_H_
