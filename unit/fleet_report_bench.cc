// How long the fleet report takes, and how much memory it holds, over a synthetic fleet
// (unit/fleet_fixtures.h): 500 nodes of 1000 tests each and 250 pairs by default, held in
// memory. A benchmark, not a test: `build/unit/rdmacheck_fleet_bench` prints the time per
// build (every run folded into a FleetTally, fleet_tally.h, then judged) and per rendering,
// and the process's peak resident set (getrusage ru_maxrss) before the first build (the
// synthetic input) and after the runs (the input plus the tally's). The report over run
// directories on disk, as `rdmacheck fleet report` reads them, is bench/fleet_scale.sh's.
//
//   build/unit/rdmacheck_fleet_bench --benchmark_filter=Build/500
#include <sys/resource.h>

#include "benchmark/benchmark.h"
#include "reports/fleet/fleet_model.h"
#include "reports/fleet/fleet_output.h"
#include "reports/fleet/fleet_tally.h"
#include "unit/fleet_fixtures.h"

namespace rdmacheck {
namespace {

double PeakRssMiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024.0;  // Linux: KiB
}

// Building the model: every run folded into the tally, then the majority per item.
void BM_BuildFleet(benchmark::State& state) {
  const fixtures::SyntheticFleet synthetic = fixtures::MakeSyntheticFleet(static_cast<int>(state.range(0)), 1000);
  const double input_rss = PeakRssMiB();  // the synthetic runs themselves, before any build
  for (auto _ : state) {
    FleetTally tally({});
    for (size_t i = 0; i < synthetic.runs.size(); ++i) tally.Add(synthetic.runs[i], synthetic.bench[i]);
    FleetReport fleet = std::move(tally).Finish();
    benchmark::DoNotOptimize(fleet.nodes.data());
  }
  state.counters["input_rss_MiB"] = input_rss;
  state.counters["peak_rss_MiB"] = PeakRssMiB();
}
BENCHMARK(BM_BuildFleet)->Name("Build")->Arg(100)->Arg(500)->Unit(benchmark::kMillisecond);

// Rendering all three documents of a built fleet.
void BM_RenderFleet(benchmark::State& state) {
  fixtures::SyntheticFleet synthetic = fixtures::MakeSyntheticFleet(static_cast<int>(state.range(0)), 1000);
  const FleetReport fleet = BuildFleet(std::move(synthetic.runs), synthetic.bench, {});
  size_t bytes = 0;
  for (auto _ : state) {
    bytes = FleetToJson(fleet).dump(2).size() + FleetToMarkdown(fleet).size() + FleetToHtml(fleet).size();
    benchmark::DoNotOptimize(bytes);
  }
  state.counters["output_KiB"] = bytes / 1024.0;
  state.counters["peak_rss_MiB"] = PeakRssMiB();
}
BENCHMARK(BM_RenderFleet)->Name("Render")->Arg(500)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace rdmacheck

BENCHMARK_MAIN();
