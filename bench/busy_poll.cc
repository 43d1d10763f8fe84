#include "bench/busy_poll.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "harness/connection/work_requests.h"

namespace rdmacheck {

absl::Status TimedOut(absl::string_view what) { return absl::DeadlineExceededError(absl::StrCat("timed out ", what)); }

absl::Status CheckWc(const ibv_wc& wc) {
  if (wc.status == IBV_WC_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("completion error: ", DescribeWc(wc)));
}

absl::Status AwaitCqEvent(ibv_comp_channel* channel, const Deadline& deadline, absl::string_view what) {
  while (true) {
    const absl::Duration left = deadline.Remaining();
    if (left <= absl::ZeroDuration()) return TimedOut(what);
    pollfd p{channel->fd, POLLIN, 0};
    const int ms = static_cast<int>(std::min<int64_t>(absl::ToInt64Milliseconds(left) + 1, 1000));
    const int n = poll(&p, 1, ms);
    if (n < 0 && errno != EINTR) return absl::InternalError(absl::StrCat("poll on the completion channel failed ", what));
    if (n <= 0) continue;
    ibv_cq* cq = nullptr;
    void* context = nullptr;
    if (ibv_get_cq_event(channel, &cq, &context) != 0) {
      return absl::InternalError(absl::StrCat("ibv_get_cq_event failed ", what));
    }
    ibv_ack_cq_events(cq, 1);
    return absl::OkStatus();
  }
}

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

uint32_t PingPongRecvOffset(const Endpoint& e) { return static_cast<uint32_t>(e.buffer_size() / 2); }

PingPongWrs::PingPongWrs(Endpoint& e, uint32_t size)
    : qp_(e.qp()), inline_(InlineFlag(e, size)), send_sge_(e.Sge(0, size)), recv_sge_(e.Sge(PingPongRecvOffset(e), size)) {
  send_ = SendWr(0, &send_sge_, size ? 1 : 0, IBV_WR_SEND, 0);
  recv_ = RecvWr(0, &recv_sge_, 1);
}

absl::Status PingPongWrs::PostSend(int i) {
  send_.wr_id = static_cast<uint64_t>(i);
  send_.send_flags = Signal(i) | inline_;
  ibv_send_wr* bad = nullptr;
  if (int rc = ibv_post_send(qp_, &send_, &bad); rc != 0) return ErrnoStatus(rc, "ibv_post_send (ping-pong SEND)");
  return absl::OkStatus();
}

absl::Status PingPongWrs::PostRecv() {
  ibv_recv_wr* bad = nullptr;
  if (int rc = ibv_post_recv(qp_, &recv_, &bad); rc != 0) return ErrnoStatus(rc, "ibv_post_recv (ping-pong)");
  return absl::OkStatus();
}

uint8_t Mark(int i) { return static_cast<uint8_t>(i % 255 + 1); }

absl::Status PostPingPongWrite(Endpoint& e, uint32_t size, int i) {
  const uint32_t from = static_cast<uint32_t>(e.buffer_size() / 2);
  e.buffer()[from + size - 1] = Mark(i);
  ibv_sge sge = e.Sge(from, size);
  ibv_send_wr wr = RdmaWr(i, &sge, 1, IBV_WR_RDMA_WRITE, e.peer_buffer().At(0, size), Signal(i) | InlineFlag(e, size));
  RDMACHECK_RETURN_IF_ERROR(e.PostSend(wr));
  return ReapSends(e);
}

absl::Status AwaitMark(const Endpoint& e, uint32_t size, uint8_t mark, Deadline& deadline) {
  volatile const uint8_t* last = e.buffer().data() + size - 1;
  const bool spin = e.channel() == nullptr;
  while (*last != mark) {
    if (deadline.Passed()) return TimedOut("waiting for an RDMA WRITE to land");
    if (!spin) usleep(10);
  }
  return absl::OkStatus();
}

}  // namespace rdmacheck
