#include "harness/completion.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cerrno>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "harness/leftover_completions.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

std::atomic<uint64_t> wire_completions{0};

// Completions of work that crossed the wire: not memory-window binds or local invalidates.
bool MovedData(const ibv_wc& wc) {
  if (wc.status != IBV_WC_SUCCESS) return false;
  switch (wc.opcode) {
    case IBV_WC_SEND: case IBV_WC_RDMA_WRITE: case IBV_WC_RDMA_READ: case IBV_WC_COMP_SWAP:
    case IBV_WC_FETCH_ADD: case IBV_WC_RECV: case IBV_WC_RECV_RDMA_WITH_IMM:
      return true;
    default:
      return false;
  }
}

// ibv_poll_cq, counting what moved data, and for the end-of-test check
// (leftover_completions.h) which CQ was polled and how many completions of each QP it gave.
int Poll(ibv_cq* cq, int n, ibv_wc* wcs) {
  MarkPolled(cq);
  int got = ibv_poll_cq(cq, n, wcs);
  for (int i = 0; i < got; ++i) wire_completions += MovedData(wcs[i]);
  if (got > 0) CountPolled(cq, {wcs, static_cast<size_t>(got)});
  return got;
}

// What a poller does between empty polls. At first it yields: a working device completes
// within microseconds, and rxe and siw complete in kernel threads that need the CPU. Then
// it sleeps, doubling up to 1 ms: a wait for a completion that never comes (a deviation, a
// timeout) then leaves the CPU to the tests running beside it instead of spinning on
// sched_yield for seconds (under an emulated CPU every syscall is dear), and a late
// completion is seen at most 1 ms after it arrived.
class PollPacer {
 public:
  void Pause() {
    if (yields_ < kYields) {
      ++yields_;
      sched_yield();
      return;
    }
    absl::SleepFor(sleep_);
    sleep_ = std::min(sleep_ * 2, kLongestSleep);
  }

 private:
  static constexpr int kYields = 64;
  static constexpr absl::Duration kLongestSleep = absl::Milliseconds(1);
  int yields_ = 0;
  absl::Duration sleep_ = absl::Microseconds(20);
};

}  // namespace

uint64_t WireCompletions() { return wire_completions.load(); }

absl::StatusOr<std::vector<ibv_wc>> PollCompletions(ibv_cq* cq, int count, absl::Duration timeout) {
  std::vector<ibv_wc> wcs(count);
  int got = 0;
  const absl::Time deadline = absl::Now() + timeout;
  PollPacer pacer;
  while (got < count) {
    int n = Poll(cq, count - got, wcs.data() + got);
    if (n < 0) return ErrnoStatus(-n > 0 ? -n : EIO, "ibv_poll_cq");
    got += n;
    if (got == count) break;
    if (absl::Now() > deadline) return WaitTimedOut(timeout, "completions", got, count);
    if (n == 0) pacer.Pause();
  }
  return wcs;
}

absl::StatusOr<ibv_wc> PollCompletion(ibv_cq* cq, absl::Duration timeout) {
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<ibv_wc> wcs, PollCompletions(cq, 1, timeout));
  return wcs.front();
}

std::vector<ibv_wc> DrainCompletions(ibv_cq* cq, absl::Duration quiet) {
  std::vector<ibv_wc> wcs;
  const absl::Time end = absl::Now() + quiet;
  PollPacer pacer;
  do {
    ibv_wc wc{};
    while (Poll(cq, 1, &wc) == 1) wcs.push_back(wc);
    pacer.Pause();
  } while (absl::Now() < end);
  return wcs;
}

namespace {
// poll(2) on `fd` for readability, bounded.
absl::Status WaitReadable(int fd, absl::Duration timeout, absl::string_view what) {
  pollfd p{fd, POLLIN, 0};
  int ms = static_cast<int>(absl::ToInt64Milliseconds(timeout));
  int rc;
  do {
    rc = poll(&p, 1, ms);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) return ErrnoStatus(errno, "poll");
  if (rc == 0) return WaitTimedOut(timeout, what, 0, 1);
  return absl::OkStatus();
}
}  // namespace

absl::StatusOr<ibv_cq*> WaitCqEvent(ibv_comp_channel* channel, absl::Duration timeout) {
  RDMACHECK_RETURN_IF_ERROR(WaitReadable(channel->fd, timeout, "a completion event"));
  ibv_cq* cq = nullptr;
  void* cq_context = nullptr;
  if (ibv_get_cq_event(channel, &cq, &cq_context) != 0) return ErrnoStatus(errno, "ibv_get_cq_event");
  ibv_ack_cq_events(cq, 1);
  return cq;
}

absl::StatusOr<ibv_async_event> WaitAsyncEvent(ibv_context* context, absl::Duration timeout) {
  RDMACHECK_RETURN_IF_ERROR(WaitReadable(context->async_fd, timeout, "an async event"));
  ibv_async_event event{};
  if (ibv_get_async_event(context, &event) != 0) return ErrnoStatus(errno, "ibv_get_async_event");
  ibv_async_event copy = event;
  ibv_ack_async_event(&event);
  return copy;
}

std::string WcStatusName(ibv_wc_status status) {
  // ibv_wc_status_str gives prose ("remote access error"); tests and reports want the
  // enumerator, which the spec tables and the man pages use.
  switch (status) {
#define RDMACHECK_CASE(x) case x: return #x;
    RDMACHECK_CASE(IBV_WC_SUCCESS) RDMACHECK_CASE(IBV_WC_LOC_LEN_ERR) RDMACHECK_CASE(IBV_WC_LOC_QP_OP_ERR)
    RDMACHECK_CASE(IBV_WC_LOC_EEC_OP_ERR) RDMACHECK_CASE(IBV_WC_LOC_PROT_ERR) RDMACHECK_CASE(IBV_WC_WR_FLUSH_ERR)
    RDMACHECK_CASE(IBV_WC_MW_BIND_ERR) RDMACHECK_CASE(IBV_WC_BAD_RESP_ERR) RDMACHECK_CASE(IBV_WC_LOC_ACCESS_ERR)
    RDMACHECK_CASE(IBV_WC_REM_INV_REQ_ERR) RDMACHECK_CASE(IBV_WC_REM_ACCESS_ERR) RDMACHECK_CASE(IBV_WC_REM_OP_ERR)
    RDMACHECK_CASE(IBV_WC_RETRY_EXC_ERR) RDMACHECK_CASE(IBV_WC_RNR_RETRY_EXC_ERR)
    RDMACHECK_CASE(IBV_WC_LOC_RDD_VIOL_ERR) RDMACHECK_CASE(IBV_WC_REM_INV_RD_REQ_ERR)
    RDMACHECK_CASE(IBV_WC_REM_ABORT_ERR) RDMACHECK_CASE(IBV_WC_INV_EECN_ERR) RDMACHECK_CASE(IBV_WC_INV_EEC_STATE_ERR)
    RDMACHECK_CASE(IBV_WC_FATAL_ERR) RDMACHECK_CASE(IBV_WC_RESP_TIMEOUT_ERR) RDMACHECK_CASE(IBV_WC_GENERAL_ERR)
    RDMACHECK_CASE(IBV_WC_TM_ERR) RDMACHECK_CASE(IBV_WC_TM_RNDV_INCOMPLETE)
#undef RDMACHECK_CASE
  }
  return absl::StrCat("IBV_WC_status_", static_cast<int>(status));
}

std::string WcOpcodeName(ibv_wc_opcode opcode) {
  switch (opcode) {
#define RDMACHECK_CASE(x) case x: return #x;
    RDMACHECK_CASE(IBV_WC_SEND) RDMACHECK_CASE(IBV_WC_RDMA_WRITE) RDMACHECK_CASE(IBV_WC_RDMA_READ)
    RDMACHECK_CASE(IBV_WC_COMP_SWAP) RDMACHECK_CASE(IBV_WC_FETCH_ADD) RDMACHECK_CASE(IBV_WC_BIND_MW)
    RDMACHECK_CASE(IBV_WC_LOCAL_INV) RDMACHECK_CASE(IBV_WC_TSO) RDMACHECK_CASE(IBV_WC_ATOMIC_WRITE)
    RDMACHECK_CASE(IBV_WC_RECV) RDMACHECK_CASE(IBV_WC_RECV_RDMA_WITH_IMM) RDMACHECK_CASE(IBV_WC_TM_ADD)
    RDMACHECK_CASE(IBV_WC_TM_DEL) RDMACHECK_CASE(IBV_WC_TM_SYNC) RDMACHECK_CASE(IBV_WC_TM_RECV)
    RDMACHECK_CASE(IBV_WC_TM_NO_TAG) RDMACHECK_CASE(IBV_WC_DRIVER1) RDMACHECK_CASE(IBV_WC_DRIVER2)
    RDMACHECK_CASE(IBV_WC_DRIVER3)
#undef RDMACHECK_CASE
  }
  return absl::StrCat("IBV_WC_opcode_", static_cast<int>(opcode));
}

std::string DescribeWc(const ibv_wc& wc) {
  return absl::StrCat("wc{status=", WcStatusName(wc.status), " opcode=", WcOpcodeName(wc.opcode),
                      " wr_id=", wc.wr_id, " byte_len=", wc.byte_len, " qp_num=", wc.qp_num,
                      " src_qp=", wc.src_qp, " wc_flags=0x", absl::Hex(wc.wc_flags),
                      " imm_data=0x", absl::Hex(ntohl(wc.imm_data)), " vendor_err=", wc.vendor_err, "}");
}

}  // namespace rdmacheck
