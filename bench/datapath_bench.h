// The measurements of `rdmacheck bench`, over a ConnectedPair of two RC QPs wired the
// way the device needs (by hand, or through rdma_cm on iWARP): a loopback pair in this
// process, or with `--peer` one whose remote side lives in `rdmacheck serve` on the peer
// host. They use plain verbs in tight loops, as perftest does; the remote side's part
// (answering a ping-pong, sinking SENDs) is an EchoSide (bench/echo_side.h).
//
//   latency send   ping-pong of SENDs; half the round trip
//           write  ping-pong of RDMA WRITEs, each side polling the last byte of its buffer
//           read   one RDMA READ at a time; its full round trip
//   bandwidth      write / read / send with up to kWindow WRs outstanding (busy_poll.h), one completion
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
#include "results/bench_result.h"
#include "harness/connection/connected_pair.h"

namespace rdmacheck {

// An RC pair with room for messages up to `max_size` and the queues the loops need; its
// remote side on `peer` when given (two-host mode), else in this process. Each measurement
// takes a fresh pair: receives left posted by one must not meet the messages of the next.
// `event_driven`: both endpoints get a completion channel and every wait for a completion,
// on both sides, sleeps on it instead of busy-polling (`bench --poll=event`).
absl::StatusOr<ConnectedPair> BenchPair(ibv_context* context, const Selection& selection, uint32_t max_size,
                                        RemoteEndpointFactory* peer = nullptr, bool event_driven = false);

// How long one point (ours or perftest's) may take before it counts as stuck: 30 s, plus
// 1 ms per iteration, plus the bytes it moves at 10 MiB/s (a floor far below any device's
// speed, so a large point is not cut short), all scaled by --timeout_multiplier.
absl::Duration PointBudget(const std::string& metric, uint32_t size, int iterations);

BenchPoint MeasureLatency(ConnectedPair& pair, const std::string& op, uint32_t size, int iterations,
                          absl::Duration budget);
BenchPoint MeasureBandwidth(ConnectedPair& pair, const std::string& op, uint32_t size, int iterations,
                            absl::Duration budget);

}  // namespace rdmacheck

#endif  // RDMACHECK_BENCH_DATAPATH_BENCH_H_
