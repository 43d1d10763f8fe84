#include "bench/datapath_bench.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bench/stats.h"
#include "harness/completion.h"
#include "harness/connection/work_requests.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

using Clock = std::chrono::steady_clock;

double Micros(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

// A busy-poll deadline: checking the clock on every poll would cost more than the poll.
class Deadline {
 public:
  explicit Deadline(absl::Duration budget) : end_(Clock::now() + absl::ToChronoNanoseconds(budget)) {}
  bool Passed() { return (++calls_ & 0x3ff) == 0 && Clock::now() > end_; }

 private:
  Clock::time_point end_;
  uint32_t calls_ = 0;
};

absl::Status TimedOut(absl::string_view what) { return absl::DeadlineExceededError(absl::StrCat("timed out ", what)); }

absl::Status CheckWc(const ibv_wc& wc) {
  if (wc.status == IBV_WC_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("completion error: ", DescribeWc(wc)));
}

// Busy-polls `cq` until a completion that `wanted` accepts arrives; others (sends on a
// shared CQ) are checked and dropped. Returns the wanted completion's wr_id.
template <typename Wanted>
absl::StatusOr<uint64_t> PollFor(ibv_cq* cq, Wanted wanted, Deadline& deadline, absl::string_view what) {
  ibv_wc wc;
  while (true) {
    int n = ibv_poll_cq(cq, 1, &wc);
    if (n < 0) return absl::InternalError(absl::StrCat("ibv_poll_cq failed ", what));
    if (n == 1) {
      RDMACHECK_RETURN_IF_ERROR(CheckWc(wc));
      if (wanted(wc)) return wc.wr_id;
    } else if (deadline.Passed()) {
      return TimedOut(what);
    }
  }
}

bool IsRecv(const ibv_wc& wc) { return (wc.opcode & IBV_WC_RECV) != 0; }
bool IsSend(const ibv_wc& wc) { return !IsRecv(wc); }

// Drops whatever send completions are ready (signaled sends of the latency loops).
absl::Status ReapSends(Endpoint& e) {
  if (e.send_cq() == e.recv_cq()) return absl::OkStatus();  // PollFor drops them there
  ibv_wc wcs[16];
  int n = ibv_poll_cq(e.send_cq(), 16, wcs);
  if (n < 0) return absl::InternalError("ibv_poll_cq failed reaping sends");
  for (int i = 0; i < n; ++i) RDMACHECK_RETURN_IF_ERROR(CheckWc(wcs[i]));
  return absl::OkStatus();
}

unsigned InlineFlag(const Endpoint& e, uint32_t size) {
  return size > 0 && size <= e.granted_cap().max_inline_data ? IBV_SEND_INLINE : 0;
}

absl::Status PostRecvs(Endpoint& e, uint32_t offset, uint32_t size, int count) {
  for (int i = 0; i < count; ++i) RDMACHECK_RETURN_IF_ERROR(e.PostRecv(0, offset, size));
  return absl::OkStatus();
}

// One signaled WR in kSignalEvery keeps the send queue from filling with completions
// nobody polls (IBTA 10.8.6: unsignaled WRs complete with the next signaled one).
unsigned Signal(int i) { return (i % kSignalEvery == kSignalEvery - 1) ? IBV_SEND_SIGNALED : 0; }

// ---- latency

// SEND ping-pong: `side` sends, waits for the answer; `echo` answers each message.
absl::Status SendPingPong(Endpoint& ping, Endpoint& pong, uint32_t size, int iterations, Deadline& deadline,
                          std::vector<double>& samples) {
  const uint32_t recv_at = ping.buffer_size() / 2;
  RDMACHECK_RETURN_IF_ERROR(PostRecvs(ping, recv_at, size, 8));
  RDMACHECK_RETURN_IF_ERROR(PostRecvs(pong, recv_at, size, 8));
  auto send = [size](Endpoint& e, int i) {
    ibv_sge sge = e.Sge(0, size);
    ibv_send_wr wr = SendWr(i, &sge, size ? 1 : 0, IBV_WR_SEND, Signal(i) | InlineFlag(e, size));
    return e.PostSend(wr);
  };
  absl::Status echo_status;
  std::thread echo([&] {
    Deadline echo_deadline = deadline;
    for (int i = 0; i < iterations && echo_status.ok(); ++i) {
      absl::StatusOr<uint64_t> got = PollFor(pong.recv_cq(), IsRecv, echo_deadline, "waiting for a ping");
      if (!got.ok()) echo_status = got.status();
      if (echo_status.ok()) echo_status = pong.PostRecv(0, recv_at, size);
      if (echo_status.ok()) echo_status = send(pong, i);
      if (echo_status.ok()) echo_status = ReapSends(pong);
    }
  });
  absl::Status status;
  for (int i = 0; i < iterations && status.ok(); ++i) {
    Clock::time_point start = Clock::now();
    status = send(ping, i);
    if (status.ok()) status = PollFor(ping.recv_cq(), IsRecv, deadline, "waiting for a pong").status();
    samples.push_back(Micros(Clock::now() - start) / 2);
    if (status.ok()) status = ping.PostRecv(0, recv_at, size);
    if (status.ok()) status = ReapSends(ping);
  }
  echo.join();
  return status.ok() ? echo_status : status;
}

// The last byte of a write ping-pong message: the iteration, never 0 (the buffers start zeroed).
uint8_t Mark(int i) { return static_cast<uint8_t>(i % 255 + 1); }

absl::Status AwaitMark(const Endpoint& e, uint32_t size, uint8_t mark, Deadline& deadline) {
  volatile const uint8_t* last = e.buffer().data() + size - 1;
  while (*last != mark) {
    if (deadline.Passed()) return TimedOut("waiting for an RDMA WRITE to land");
  }
  return absl::OkStatus();
}

// RDMA WRITE ping-pong: each side writes from the upper half of its buffer into the lower
// half of the other's, and polls the last byte of its own lower half.
absl::Status WritePingPong(Endpoint& ping, Endpoint& pong, uint32_t size, int iterations, Deadline& deadline,
                           std::vector<double>& samples) {
  if (size == 0) return absl::InvalidArgumentError("a write ping-pong needs at least one byte");
  auto write = [size](Endpoint& e, int i) {
    const uint32_t from = e.buffer_size() / 2;
    e.buffer()[from + size - 1] = Mark(i);
    ibv_sge sge = e.Sge(from, size);
    ibv_send_wr wr = RdmaWr(i, &sge, 1, IBV_WR_RDMA_WRITE, e.peer_buffer().At(0, size), Signal(i) | InlineFlag(e, size));
    absl::Status posted = e.PostSend(wr);
    return posted.ok() ? ReapSends(e) : posted;
  };
  absl::Status echo_status;
  std::thread echo([&] {
    Deadline echo_deadline = deadline;
    for (int i = 0; i < iterations && echo_status.ok(); ++i) {
      echo_status = AwaitMark(pong, size, Mark(i), echo_deadline);
      if (echo_status.ok()) echo_status = write(pong, i);
    }
  });
  absl::Status status;
  for (int i = 0; i < iterations && status.ok(); ++i) {
    Clock::time_point start = Clock::now();
    status = write(ping, i);
    if (status.ok()) status = AwaitMark(ping, size, Mark(i), deadline);
    samples.push_back(Micros(Clock::now() - start) / 2);
  }
  echo.join();
  return status.ok() ? echo_status : status;
}

absl::Status ReadRoundTrips(Endpoint& e, uint32_t size, int iterations, Deadline& deadline,
                            std::vector<double>& samples) {
  for (int i = 0; i < iterations; ++i) {
    ibv_sge sge = e.Sge(0, size);
    ibv_send_wr wr = RdmaWr(i, &sge, size ? 1 : 0, IBV_WR_RDMA_READ, e.peer_buffer().At(0, size));
    Clock::time_point start = Clock::now();
    RDMACHECK_RETURN_IF_ERROR(e.PostSend(wr));
    RDMACHECK_RETURN_IF_ERROR(PollFor(e.send_cq(), IsSend, deadline, "waiting for an RDMA READ").status());
    samples.push_back(Micros(Clock::now() - start));
  }
  return absl::OkStatus();
}

// ---- bandwidth

// Posts `iterations` WRs of `opcode` with at most kWindow outstanding; returns the seconds
// from the first post to the last completion.
absl::StatusOr<double> Stream(Endpoint& e, ibv_wr_opcode opcode, uint32_t size, int iterations, Deadline& deadline) {
  Clock::time_point start = Clock::now();
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
    RDMACHECK_ASSIGN_OR_RETURN(uint64_t done, PollFor(e.send_cq(), IsSend, deadline, "waiting for a send completion"));
    completed = static_cast<int>(done);
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The receiving side of a SEND stream: keeps receives posted until `iterations` arrived.
absl::Status Sink(Endpoint& e, uint32_t size, int iterations, int depth, Deadline& deadline) {
  for (int received = 0; received < iterations; ++received) {
    RDMACHECK_RETURN_IF_ERROR(PollFor(e.recv_cq(), IsRecv, deadline, "waiting for a SEND to arrive").status());
    if (received + depth < iterations) RDMACHECK_RETURN_IF_ERROR(e.PostRecv(0, 0, size));
  }
  return absl::OkStatus();
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

}  // namespace

absl::StatusOr<ConnectedPair> BenchPair(ibv_context* context, const Selection& selection, uint32_t max_size) {
  PairOptions options;
  options.max_send_wr = kWindow + kSignalEvery;
  options.max_recv_wr = kRecvDepth;
  options.buffer_size = 2 * static_cast<size_t>(max_size < 64 ? 64 : max_size);
  ibv_device_attr attr{};
  if (int rc = ibv_query_device(context, &attr); rc != 0) return ErrnoStatus(rc, "ibv_query_device");
  options.path.max_rd_atomic = static_cast<uint8_t>(std::clamp(attr.max_qp_rd_atom, 1, 16));  // READs in flight
  options.max_inline_data = 64;
  absl::StatusOr<ConnectedPair> pair = ConnectedPair::Create(context, selection, options);
  if (pair.ok()) return pair;
  options.max_inline_data = 0;  // a device without inline data
  return ConnectedPair::Create(context, selection, options);
}

BenchPoint MeasureLatency(ConnectedPair& pair, const std::string& op, uint32_t size, int iterations,
                          absl::Duration budget) {
  BenchPoint p = Point(op, "latency", size, iterations);
  std::vector<double> samples;
  samples.reserve(iterations);
  Deadline deadline(budget);
  absl::Status status;
  if (op == "send") {
    status = SendPingPong(pair.local(), pair.remote(), size, iterations, deadline, samples);
  } else if (op == "write") {
    status = WritePingPong(pair.local(), pair.remote(), size, iterations, deadline, samples);
  } else if (op == "read") {
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
  BenchPoint p = Point(op, "bandwidth", size, iterations);
  Deadline deadline(budget);
  absl::StatusOr<double> seconds;
  if (op == "write" || op == "read") {
    seconds = Stream(pair.local(), op == "write" ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ, size, iterations, deadline);
  } else if (op == "send") {
    const int depth = std::min<int>(iterations, kRecvDepth);
    absl::Status sink_status = PostRecvs(pair.remote(), 0, size, depth);
    if (sink_status.ok()) {
      std::thread sink([&] {
        Deadline sink_deadline = deadline;
        sink_status = Sink(pair.remote(), size, iterations, depth, sink_deadline);
      });
      seconds = Stream(pair.local(), IBV_WR_SEND, size, iterations, deadline);
      sink.join();
      if (seconds.ok() && !sink_status.ok()) seconds = sink_status;
    } else {
      seconds = sink_status;
    }
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
