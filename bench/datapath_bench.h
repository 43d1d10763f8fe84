// The measurements of `rdmacheck bench`, over a loopback ConnectedPair (two RC QPs of
// the device under test in this process, wired the way the device needs: by hand, or
// through rdma_cm on iWARP). They use plain verbs in tight loops, as perftest does:
//
//   latency send   ping-pong of SENDs, one thread per side; half the round trip
//           write  ping-pong of RDMA WRITEs, each side polling the last byte of its buffer
//           read   one RDMA READ at a time; its full round trip
//   bandwidth      write / read / send with up to kWindow WRs outstanding, one completion
//                  per kSignalEvery WRs; bytes / wall time
//
// Small messages go inline where the QP allows it (perftest does the same). Every loop is
// bounded by a deadline; a failure makes the point's `error`, never a hang.
#ifndef RDMACHECK_BENCH_DATAPATH_BENCH_H_
#define RDMACHECK_BENCH_DATAPATH_BENCH_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bench/bench_result.h"
#include "harness/connection/connected_pair.h"

namespace rdmacheck {

inline constexpr int kWindow = 128;       // outstanding WRs (perftest's default tx depth)
inline constexpr int kSignalEvery = 16;   // one signaled WR per batch (perftest: cq_mod 100)

// A loopback RC pair with room for messages up to `max_size` and the queues the loops need.
// Each measurement takes a fresh pair: receives left posted by one must not meet the
// messages of the next.
absl::StatusOr<ConnectedPair> BenchPair(ibv_context* context, const Selection& selection, uint32_t max_size);

BenchPoint MeasureLatency(ConnectedPair& pair, const std::string& op, uint32_t size, int iterations,
                          absl::Duration budget);
BenchPoint MeasureBandwidth(ConnectedPair& pair, const std::string& op, uint32_t size, int iterations,
                            absl::Duration budget);

}  // namespace rdmacheck

#endif  // RDMACHECK_BENCH_DATAPATH_BENCH_H_
