// Summaries of latency samples: what perftest prints as t_min, t_typical (median) and the
// 99% percentile.
#ifndef RDMACHECK_BENCH_STATS_H_
#define RDMACHECK_BENCH_STATS_H_

#include <vector>

namespace rdmacheck {

struct LatencySummary {
  double min = 0;
  double median = 0;
  double p99 = 0;
};

// Nearest-rank percentiles over `samples` (any unit); all zero when there are none.
LatencySummary SummarizeLatency(std::vector<double> samples);

// Bytes per second as MiB/s.
double MibPerSecond(double bytes, double seconds);

}  // namespace rdmacheck

#endif  // RDMACHECK_BENCH_STATS_H_
