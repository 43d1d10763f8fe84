#include "bench/datapath_bench.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/busy_poll.h"
#include "bench/echo_side.h"
#include "bench/stats.h"
#include "harness/connection/work_requests.h"
#include "harness/status.h"
#include "harness/timeouts.h"

namespace rdmacheck {
namespace {

double Micros(BenchClock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

// ---- latency

// SEND ping-pong: `ping` sends and waits for the answer; the echo side answers each message.
absl::Status SendPingPong(Endpoint& ping, Endpoint& pong, uint32_t size, int iterations, absl::Duration budget,
                          std::vector<double>& samples) {
  RDMACHECK_RETURN_IF_ERROR(PostRecvs(ping, PingPongRecvOffset(ping), size, 8));
  PingPongWrs wrs(ping, size);
  RDMACHECK_ASSIGN_OR_RETURN(std::unique_ptr<EchoSide> echo, EchoSide::Start(pong, {"send", size, iterations, 8}, budget));
  Deadline deadline(budget);
  absl::Status status;
  for (int i = 0; i < iterations && status.ok(); ++i) {
    BenchClock::time_point start = BenchClock::now();
    status = wrs.PostSend(i);
    if (status.ok()) status = WaitFor(ping, ping.recv_cq(), IsRecv, deadline, "waiting for a pong").status();
    samples.push_back(Micros(BenchClock::now() - start) / 2);
    if (status.ok()) status = wrs.PostRecv();
    if (status.ok()) status = ReapSends(ping);
  }
  absl::Status echo_status = echo->Finish();
  return status.ok() ? echo_status : status;
}

// RDMA WRITE ping-pong: `ping` writes and polls its buffer for the answer's mark.
absl::Status WritePingPong(Endpoint& ping, Endpoint& pong, uint32_t size, int iterations, absl::Duration budget,
                           std::vector<double>& samples) {
  if (size == 0) return absl::InvalidArgumentError("a write ping-pong needs at least one byte");
  RDMACHECK_ASSIGN_OR_RETURN(std::unique_ptr<EchoSide> echo, EchoSide::Start(pong, {"write", size, iterations, 0}, budget));
  Deadline deadline(budget);
  absl::Status status;
  for (int i = 0; i < iterations && status.ok(); ++i) {
    BenchClock::time_point start = BenchClock::now();
    status = PostPingPongWrite(ping, size, i);
    if (status.ok()) status = AwaitMark(ping, size, Mark(i), deadline);
    samples.push_back(Micros(BenchClock::now() - start) / 2);
  }
  absl::Status echo_status = echo->Finish();
  return status.ok() ? echo_status : status;
}

absl::Status ReadRoundTrips(Endpoint& e, uint32_t size, int iterations, Deadline& deadline,
                            std::vector<double>& samples) {
  for (int i = 0; i < iterations; ++i) {
    ibv_sge sge = e.Sge(0, size);
    ibv_send_wr wr = RdmaWr(i, &sge, size ? 1 : 0, IBV_WR_RDMA_READ, e.peer_buffer().At(0, size));
    BenchClock::time_point start = BenchClock::now();
    RDMACHECK_RETURN_IF_ERROR(e.PostSend(wr));
    RDMACHECK_RETURN_IF_ERROR(WaitFor(e, e.send_cq(), IsSend, deadline, "waiting for an RDMA READ").status());
    samples.push_back(Micros(BenchClock::now() - start));
  }
  return absl::OkStatus();
}

// ---- bandwidth

// Posts `iterations` WRs of `opcode` with at most kWindow outstanding; returns the seconds
// from the first post to the last completion.
absl::StatusOr<double> Stream(Endpoint& e, ibv_wr_opcode opcode, uint32_t size, int iterations, Deadline& deadline) {
  BenchClock::time_point start = BenchClock::now();
  int posted = 0, completed = 0;
  while (completed < iterations) {
    while (posted < iterations && posted - completed < kWindow) {
      ibv_sge sge = e.Sge(0, size);
      const bool last = posted == iterations - 1;
      unsigned flags = (last ? static_cast<unsigned>(IBV_SEND_SIGNALED) : Signal(posted)) |
                       (opcode == IBV_WR_RDMA_READ ? 0 : InlineFlag(e, size));
      ibv_send_wr wr = opcode == IBV_WR_SEND ? SendWr(posted + 1, &sge, size ? 1 : 0, opcode, flags)
                                             : RdmaWr(posted + 1, &sge, size ? 1 : 0, opcode, e.peer_buffer().At(0, size), flags);
      RDMACHECK_RETURN_IF_ERROR(e.PostSend(wr));
      ++posted;
    }
    // A signaled completion with wr_id k means WRs 1..k are done.
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t done, WaitFor(e, e.send_cq(), IsSend, deadline, "waiting for a send completion"));
    completed = static_cast<int>(done);
  }
  return std::chrono::duration<double>(BenchClock::now() - start).count();
}

BenchPoint Point(const std::string& op, const std::string& metric, uint32_t size, int iterations) {
  BenchPoint p;
  p.tool = "rdmacheck";
  p.op = op;
  p.metric = metric;
  p.size = size;
  p.iterations = iterations;
  return p;
}

constexpr uint32_t kRecvDepth = 512;

// Send bandwidth: the echo side sinks the SENDs, with up to kRecvDepth receives posted.
absl::StatusOr<double> SendStream(ConnectedPair& pair, uint32_t size, int iterations, absl::Duration budget) {
  const EchoJob sink{"sink", size, iterations, std::min<int>(iterations, kRecvDepth)};
  RDMACHECK_ASSIGN_OR_RETURN(std::unique_ptr<EchoSide> echo, EchoSide::Start(pair.remote(), sink, budget));
  Deadline deadline(budget);
  absl::StatusOr<double> seconds = Stream(pair.local(), IBV_WR_SEND, size, iterations, deadline);
  absl::Status sink_status = echo->Finish();
  if (seconds.ok() && !sink_status.ok()) return sink_status;
  return seconds;
}

}  // namespace

absl::StatusOr<ConnectedPair> BenchPair(ibv_context* context, const Selection& selection, uint32_t max_size,
                                        RemoteEndpointFactory* peer, bool event_driven) {
  PairOptions options;
  options.use_comp_channel = event_driven;  // both sides then wait on it (busy_poll.h WaitFor)
  options.max_send_wr = kWindow + kSignalEvery;
  options.max_recv_wr = kRecvDepth;
  options.buffer_size = 2 * static_cast<size_t>(max_size < 64 ? 64 : max_size);
  ibv_device_attr attr{};
  if (int rc = ibv_query_device(context, &attr); rc != 0) return ErrnoStatus(rc, "ibv_query_device");
  options.path.max_rd_atomic = static_cast<uint8_t>(std::clamp(attr.max_qp_rd_atom, 1, 16));  // READs in flight
  options.max_inline_data = 64;
  absl::StatusOr<ConnectedPair> pair = ConnectedPair::Create(context, selection, options, peer);
  if (pair.ok()) return pair;
  options.max_inline_data = 0;  // a device without inline data
  return ConnectedPair::Create(context, selection, options, peer);
}

absl::Duration PointBudget(const std::string& metric, uint32_t size, int iterations) {
  const double bytes = static_cast<double>(size) * iterations * (metric == "latency" ? 2 : 1);  // a ping-pong goes both ways
  constexpr double kFloorBytesPerSecond = 10.0 * (1 << 20);
  return Scaled(absl::Seconds(30) + absl::Milliseconds(iterations) + absl::Seconds(bytes / kFloorBytesPerSecond));
}

BenchPoint MeasureLatency(ConnectedPair& pair, const std::string& op, uint32_t size, int iterations,
                          absl::Duration budget) {
  BenchPoint p = Point(op, "latency", size, iterations);
  std::vector<double> samples;
  samples.reserve(iterations);
  absl::Status status;
  if (op == "send") {
    status = SendPingPong(pair.local(), pair.remote(), size, iterations, budget, samples);
  } else if (op == "write") {
    status = WritePingPong(pair.local(), pair.remote(), size, iterations, budget, samples);
  } else if (op == "read") {
    Deadline deadline(budget);
    status = ReadRoundTrips(pair.local(), size, iterations, deadline, samples);
  } else {
    status = absl::InvalidArgumentError(absl::StrCat("unknown operation ", op));
  }
  if (!status.ok()) {
    p.error = std::string(status.message());
    return p;
  }
  LatencySummary s = SummarizeLatency(samples);
  p.min_us = s.min;
  p.median_us = s.median;
  p.p99_us = s.p99;
  return p;
}

BenchPoint MeasureBandwidth(ConnectedPair& pair, const std::string& op, uint32_t size, int iterations,
                            absl::Duration budget) {
  // iWARP has no receiver-not-ready retry: a SEND that finds no posted receive ends the
  // connection (RFC 5041 7.2, DDP untagged buffer error; the sender sees
  // IBV_WC_LOC_QP_OP_ERR). A sink that reposts late (a loaded peer) would then fail the
  // point, so on iWARP every receive is posted before the first SEND: at most kRecvDepth.
  ibv_context* context = pair.local().context();
  if (op == "send" && context != nullptr && context->device->transport_type == IBV_TRANSPORT_IWARP) {
    iterations = std::min<int>(iterations, kRecvDepth);
  }
  BenchPoint p = Point(op, "bandwidth", size, iterations);
  absl::StatusOr<double> seconds;
  if (op == "write" || op == "read") {
    Deadline deadline(budget);
    seconds = Stream(pair.local(), op == "write" ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ, size, iterations, deadline);
  } else if (op == "send") {
    seconds = SendStream(pair, size, iterations, budget);
  } else {
    seconds = absl::InvalidArgumentError(absl::StrCat("unknown operation ", op));
  }
  if (!seconds.ok()) {
    p.error = std::string(seconds.status().message());
    return p;
  }
  p.mib_per_s = MibPerSecond(static_cast<double>(size) * iterations, *seconds);
  return p;
}

}  // namespace rdmacheck
