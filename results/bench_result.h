// What `rdmacheck bench` measures, as data: one point per (tool, operation, metric,
// message size), and the run they belong to. bench.json holds a BenchRun.
//
// Definitions follow perftest, so the two are comparable:
//   latency   send and write: half a ping-pong round trip; read: one READ's round trip.
//             min / median / p99 over the iterations, in microseconds.
//   bandwidth bytes moved / wall time with a window of outstanding work requests, in
//             MiB/s (perftest's "MB/sec" is 2^20 bytes per second).
#ifndef RDMACHECK_RESULTS_BENCH_RESULT_H_
#define RDMACHECK_RESULTS_BENCH_RESULT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

struct BenchPoint {
  std::string tool;    // "rdmacheck", or the perftest program ("ib_send_lat", ...)
  std::string op;      // "send", "write", "read"
  std::string metric;  // "latency", "bandwidth"
  uint32_t size = 0;   // message size, bytes
  int iterations = 0;
  double min_us = 0, median_us = 0, p99_us = 0;  // latency
  double mib_per_s = 0;                           // bandwidth
  std::string error;                              // non-empty: not measured, and why

  bool ok() const { return error.empty(); }
  // The number compared across tools and runs: median latency, or bandwidth.
  double Headline() const { return metric == "latency" ? median_us : mib_per_s; }
  // Whether `other` measures the same thing (operation, metric, size).
  bool SameKind(const BenchPoint& other) const { return op == other.op && metric == other.metric && size == other.size; }
};

struct BenchRun {
  std::string device;
  std::string transport;
  std::string method;  // how the pair was connected: "manual" or "rdma_cm"
  std::string peer;    // two-host mode: the `rdmacheck serve` the remote side ran on ("" = loopback)
  std::string poll = "busy";  // how completions were waited for: "busy" or "event" (busy_poll.h)
  std::string started;
  std::vector<BenchPoint> points;    // rdmacheck's
  std::vector<BenchPoint> perftest;  // --compare-perftest: the same points measured by perftest
};

nlohmann::json BenchRunToJson(const BenchRun& run);
absl::StatusOr<BenchRun> BenchRunFromJson(const nlohmann::json& json);

// The benchmark runs of a report input: RUN_DIR/bench.json, or the "bench" section of a
// report.json (the file, or a directory holding one). None found: an empty list.
absl::StatusOr<std::vector<BenchRun>> LoadBenchRuns(const std::string& path);

}  // namespace rdmacheck

#endif  // RDMACHECK_RESULTS_BENCH_RESULT_H_
