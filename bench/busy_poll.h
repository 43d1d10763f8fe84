// The tight-loop primitives both sides of a bench point use: a deadline cheap enough to
// check on every poll, waiting on a CQ for one kind of completion (busy-polling, or
// event-driven when the endpoint has a completion channel: `bench --poll=event`), and the
// small policies (inline, signaling, the write ping-pong's last-byte mark) the loops share.
// Plain verbs on an endpoint in this process; every wait ends at its deadline.
//
// Why event-driven: a busy-polling process keeps its CPU; two emulated guests on a host
// with no core to spare (the wire lab: 2 cores, 2 guests) then starve the host threads
// that carry the packets between them, and latencies measure the starvation.
#ifndef RDMACHECK_BENCH_BUSY_POLL_H_
#define RDMACHECK_BENCH_BUSY_POLL_H_

#include <infiniband/verbs.h>

#include <chrono>
#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "harness/completion.h"
#include "harness/connection/endpoint.h"
#include "harness/status.h"

namespace rdmacheck {

inline constexpr int kWindow = 128;      // outstanding WRs (perftest's default tx depth)
inline constexpr int kSignalEvery = 16;  // one signaled WR per batch (perftest: cq_mod 100)

using BenchClock = std::chrono::steady_clock;

// A busy-poll deadline: checking the clock on every poll would cost more than the poll.
class Deadline {
 public:
  explicit Deadline(absl::Duration budget) : end_(BenchClock::now() + absl::ToChronoNanoseconds(budget)) {}
  bool Passed() { return (++calls_ & 0x3ff) == 0 && BenchClock::now() > end_; }
  absl::Duration Remaining() const { return absl::FromChrono(end_ - BenchClock::now()); }

 private:
  BenchClock::time_point end_;
  uint32_t calls_ = 0;
};

absl::Status TimedOut(absl::string_view what);
absl::Status CheckWc(const ibv_wc& wc);  // an error status for a failed completion

inline bool IsRecv(const ibv_wc& wc) { return (wc.opcode & IBV_WC_RECV) != 0; }
inline bool IsSend(const ibv_wc& wc) { return !IsRecv(wc); }

// One poll of `cq`: 1 when a completion `wanted` accepts came (its wr_id in `id`), 0 when
// the CQ was empty, -1 when another one came (checked and dropped: sends on a shared CQ).
template <typename Wanted>
absl::StatusOr<int> PollOnce(ibv_cq* cq, Wanted wanted, uint64_t& id, absl::string_view what) {
  ibv_wc wc;
  int n = ibv_poll_cq(cq, 1, &wc);
  if (n < 0) return absl::InternalError(absl::StrCat("ibv_poll_cq failed ", what));
  if (n == 0) return 0;
  RDMACHECK_RETURN_IF_ERROR(CheckWc(wc));
  if (!wanted(wc)) return -1;
  id = wc.wr_id;
  return 1;
}

// Busy-polls `cq` until a completion that `wanted` accepts arrives. Returns its wr_id.
template <typename Wanted>
absl::StatusOr<uint64_t> PollFor(ibv_cq* cq, Wanted wanted, Deadline& deadline, absl::string_view what) {
  uint64_t id = 0;
  while (true) {
    RDMACHECK_ASSIGN_OR_RETURN(int got, PollOnce(cq, wanted, id, what));
    if (got == 1) return id;
    if (got == 0 && deadline.Passed()) return TimedOut(what);
  }
}

// Event-driven: blocks on `channel` until a CQ event arrives (acknowledging it) or the
// deadline passes.
absl::Status AwaitCqEvent(ibv_comp_channel* channel, const Deadline& deadline, absl::string_view what);

// PollFor, or where the endpoint has a completion channel, event-driven: poll; when the CQ
// is empty arm it, poll once more (a completion before the arming raises no event), and
// only then sleep on the channel.
template <typename Wanted>
absl::StatusOr<uint64_t> WaitFor(const Endpoint& e, ibv_cq* cq, Wanted wanted, Deadline& deadline,
                                 absl::string_view what) {
  if (e.channel() == nullptr) return PollFor(cq, wanted, deadline, what);
  uint64_t id = 0;
  bool armed = false;
  while (true) {
    RDMACHECK_ASSIGN_OR_RETURN(int got, PollOnce(cq, wanted, id, what));
    if (got == 1) return id;
    if (got == -1) continue;
    if (!armed) {
      if (ibv_req_notify_cq(cq, 0) != 0) return absl::InternalError(absl::StrCat("ibv_req_notify_cq failed ", what));
      armed = true;
    } else {
      RDMACHECK_RETURN_IF_ERROR(AwaitCqEvent(e.channel(), deadline, what));
      armed = false;
    }
  }
}

// Drops whatever send completions are ready (the signaled sends of the latency loops).
absl::Status ReapSends(Endpoint& e);

// IBV_SEND_INLINE when `size` fits the QP's inline data, else 0.
unsigned InlineFlag(const Endpoint& e, uint32_t size);

// One signaled WR in kSignalEvery keeps the send queue from filling with completions
// nobody polls (IBTA 10.8.6: unsignaled WRs complete with the next signaled one).
inline unsigned Signal(int i) { return (i % kSignalEvery == kSignalEvery - 1) ? IBV_SEND_SIGNALED : 0; }

// `count` receives of `size` bytes at `offset`.
absl::Status PostRecvs(Endpoint& e, uint32_t offset, uint32_t size, int count);

// The SEND ping-pong: both sides send from offset 0 and receive at the buffer's middle.
uint32_t PingPongRecvOffset(const Endpoint& e);

// The ping-pong's SEND and receive, built once and posted with plain ibv_post_send /
// ibv_post_recv, as ib_send_lat does: built per message through the endpoint's helpers
// (a Status per call, a vector for the receive's SGE list), they kept the 64 B latency on
// rxe0 in the TCG lab 1.0-1.46x ib_send_lat's, where the guest's instructions are dear.
class PingPongWrs {
 public:
  PingPongWrs(Endpoint& e, uint32_t size);
  PingPongWrs(const PingPongWrs&) = delete;  // the WRs point at the SGEs inside
  PingPongWrs& operator=(const PingPongWrs&) = delete;

  absl::Status PostSend(int i);  // signaled per Signal(i)
  absl::Status PostRecv();

 private:
  ibv_qp* qp_;
  unsigned inline_;
  ibv_sge send_sge_, recv_sge_;
  ibv_send_wr send_{};
  ibv_recv_wr recv_{};
};

// The RDMA WRITE ping-pong: each side writes from the upper half of its buffer into the
// lower half of the other's, marking the last byte with the iteration (never 0: buffers
// start zeroed), and waits for the other's mark in the last byte of its own lower half.
uint8_t Mark(int i);
absl::Status PostPingPongWrite(Endpoint& e, uint32_t size, int i);
// Polls the mark in memory (no completion tells the target of an RDMA WRITE); with a
// completion channel (event mode) it sleeps 10 us between reads instead of spinning.
absl::Status AwaitMark(const Endpoint& e, uint32_t size, uint8_t mark, Deadline& deadline);

}  // namespace rdmacheck

#endif  // RDMACHECK_BENCH_BUSY_POLL_H_
