#include "bench/stats.h"

#include <algorithm>
#include <cmath>

namespace rdmacheck {
namespace {

// The nearest-rank percentile `p` (0..100) of sorted `v`.
double Percentile(const std::vector<double>& v, double p) {
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * v.size()));
  return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

}  // namespace

LatencySummary SummarizeLatency(std::vector<double> samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  return {samples.front(), Percentile(samples, 50), Percentile(samples, 99)};
}

double MibPerSecond(double bytes, double seconds) {
  return seconds > 0 ? bytes / seconds / (1024.0 * 1024.0) : 0;
}

}  // namespace rdmacheck
