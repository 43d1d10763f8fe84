#include "harness/leftover_completions.h"

#include <atomic>
#include <mutex>
#include <set>

#include "absl/strings/str_cat.h"
#include "harness/completion.h"

namespace rdmacheck {
namespace {

LeftoverCheck& Check() {
  static LeftoverCheck* check = new LeftoverCheck{absl::ZeroDuration(), nullptr};
  return *check;
}

// The CQs polled; a completion poller may run in a second thread (the bench's answering side).
std::mutex polled_mutex;
// Bumped by ForgetPolled: a thread's memory of the CQ it marked last is then stale.
std::atomic<uint64_t> forgets{0};
std::set<const ibv_cq*>& Polled() {
  static std::set<const ibv_cq*>* polled = new std::set<const ibv_cq*>;
  return *polled;
}

}  // namespace

void SetLeftoverCheck(LeftoverCheck check) { Check() = std::move(check); }
const LeftoverCheck& CurrentLeftoverCheck() { return Check(); }

bool WasPolled(const ibv_cq* cq) {
  std::lock_guard<std::mutex> lock(polled_mutex);
  return Polled().count(cq) != 0;
}

void ForgetPolled(const ibv_cq* cq) {
  std::lock_guard<std::mutex> lock(polled_mutex);
  Polled().erase(cq);
  ++forgets;
}

void MarkPolled(const ibv_cq* cq) {
  // A loop polling one CQ takes the lock once.
  thread_local const ibv_cq* last = nullptr;
  thread_local uint64_t last_forgets = 0;
  const uint64_t now = forgets.load();
  if (cq == last && now == last_forgets) return;
  std::lock_guard<std::mutex> lock(polled_mutex);
  Polled().insert(cq);
  last = cq;
  last_forgets = now;
}

std::vector<std::string> JudgeLeftovers(absl::Span<const ibv_wc> leftovers, bool qp_in_error, absl::string_view where) {
  std::vector<std::string> problems;
  for (const ibv_wc& wc : leftovers) {
    if (qp_in_error && wc.status == IBV_WC_WR_FLUSH_ERR) continue;  // IBTA Vol 1 10.3.1: flushed in Error
    problems.push_back(absl::StrCat(
        "a completion was left over on ", where, " after the test: wr_id ", wc.wr_id, ", ", WcOpcodeName(wc.opcode),
        ", ", WcStatusName(wc.status), " (every work request completes exactly once: a completion delivered twice or "
        "never asked for; IBTA Vol 1 10.8.3, ibv_poll_cq(3)) ", DescribeWc(wc)));
  }
  return problems;
}

}  // namespace rdmacheck
