#include "harness/verbs/post.h"

#include <map>
#include <mutex>
#include <utility>

namespace rdmacheck {
namespace {

// Completions name a QP by its number, unique on one device only.
using QpKey = std::pair<const ibv_context*, uint32_t>;
QpKey KeyOf(const ibv_qp* qp) { return {qp->context, qp->qp_num}; }

// Posts may come from several threads (the concurrency suite, the bench's answering side).
std::mutex counts_mutex;
std::map<QpKey, PostCounts>& QpCounts() {
  static auto* counts = new std::map<QpKey, PostCounts>;
  return *counts;
}
std::map<const ibv_srq*, uint64_t>& SrqCounts() {
  static auto* counts = new std::map<const ibv_srq*, uint64_t>;
  return *counts;
}

// How many WRs of the list starting at `first` the verb took: all when it returned 0,
// else those before *bad_wr (all when *bad_wr is none of them: never too few).
template <typename Wr>
uint64_t Accepted(Wr* first, int rc, Wr** bad_wr) {
  const Wr* bad = rc != 0 && bad_wr != nullptr ? *bad_wr : nullptr;
  uint64_t before = 0;
  for (const Wr* w = first; w != nullptr; w = w->next) {
    if (w == bad) return before;
    ++before;
  }
  return before;
}

void AddSends(const ibv_qp* qp, uint64_t n) {
  if (n == 0) return;
  std::lock_guard<std::mutex> lock(counts_mutex);
  QpCounts()[KeyOf(qp)].send += n;
}

}  // namespace

int PostSend(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  const int rc = ibv_post_send(qp, wr, bad_wr);
  AddSends(qp, Accepted(wr, rc, bad_wr));
  return rc;
}

int PostRecv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  const int rc = ibv_post_recv(qp, wr, bad_wr);
  if (const uint64_t n = Accepted(wr, rc, bad_wr); n != 0) {
    std::lock_guard<std::mutex> lock(counts_mutex);
    QpCounts()[KeyOf(qp)].recv += n;
  }
  return rc;
}

int PostSrqRecv(ibv_srq* srq, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  const int rc = ibv_post_srq_recv(srq, wr, bad_wr);
  if (const uint64_t n = Accepted(wr, rc, bad_wr); n != 0) {
    std::lock_guard<std::mutex> lock(counts_mutex);
    SrqCounts()[srq] += n;
  }
  return rc;
}

int WrComplete(ibv_qp_ex* qp, int wrs) {
  const int rc = ibv_wr_complete(qp);
  AddSends(&qp->qp_base, wrs > 0 ? static_cast<uint64_t>(wrs) : 0);
  return rc;
}

int BindMw(ibv_qp* qp, ibv_mw* mw, ibv_mw_bind* bind) {
  const int rc = ibv_bind_mw(qp, mw, bind);
  AddSends(qp, 1);
  return rc;
}

void MarkUncounted(const ibv_qp* qp) {
  std::lock_guard<std::mutex> lock(counts_mutex);
  QpCounts()[KeyOf(qp)].counted = false;
}

PostCounts PostedTo(const ibv_qp* qp) {
  std::lock_guard<std::mutex> lock(counts_mutex);
  auto it = QpCounts().find(KeyOf(qp));
  return it == QpCounts().end() ? PostCounts{} : it->second;
}

uint64_t PostedTo(const ibv_srq* srq) {
  std::lock_guard<std::mutex> lock(counts_mutex);
  auto it = SrqCounts().find(srq);
  return it == SrqCounts().end() ? 0 : it->second;
}

void ForgetPosts(const ibv_qp* qp) {
  std::lock_guard<std::mutex> lock(counts_mutex);
  QpCounts().erase(KeyOf(qp));
}

void ForgetPosts(const ibv_srq* srq) {
  std::lock_guard<std::mutex> lock(counts_mutex);
  SrqCounts().erase(srq);
}

}  // namespace rdmacheck
