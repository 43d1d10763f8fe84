// perftest (the linux-rdma benchmark suite) beside rdmacheck's own numbers: runs
// ib_send_lat, ib_write_bw or ib_read_bw as a server and a client process on the same
// device, with the same message size and iteration count, and reads their result line.
//
// On iWARP, perftest must connect through rdma_cm (-R) to an address of the device's
// netdev; elsewhere it uses the GID index rdmacheck selected (-x).
#ifndef RDMACHECK_BENCH_PERFTEST_H_
#define RDMACHECK_BENCH_PERFTEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "results/bench_result.h"

namespace rdmacheck {

struct PerftestRun {
  std::string program;  // "ib_send_lat", "ib_write_bw", "ib_read_bw"
  std::string device;
  int gid_index = -1;        // -x; unused with rdma_cm
  bool rdma_cm = false;      // -R
  std::string server_address = "127.0.0.1";
  uint32_t size = 0;
  int iterations = 0;
  int tcp_port = 18515;
};

// The perftest program measuring (op, metric), or "" when perftest has none we use.
std::string PerftestProgram(absl::string_view op, absl::string_view metric);

// The two command lines (server first).
std::vector<std::string> PerftestServerArgs(const PerftestRun& run);
std::vector<std::string> PerftestClientArgs(const PerftestRun& run);

// The point a perftest client printed: the result row under the "#bytes" header.
// Latency: t_min, t_typical (median), 99% percentile; bandwidth: BW average [MB/sec].
absl::StatusOr<BenchPoint> ParsePerftestOutput(absl::string_view program, absl::string_view output);

// Runs server and client, both bounded by `budget`; the point carries `error` when
// perftest failed (its last output line says why).
BenchPoint RunPerftest(const PerftestRun& run, absl::Duration budget);

}  // namespace rdmacheck

#endif  // RDMACHECK_BENCH_PERFTEST_H_
