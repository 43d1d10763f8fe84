#include "harness/leftover_completions.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <utility>

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
// Completions polled, per CQ and qp_num; under polled_mutex.
std::map<std::pair<const ibv_cq*, uint32_t>, uint64_t>& PolledCounts() {
  static auto* counts = new std::map<std::pair<const ibv_cq*, uint32_t>, uint64_t>;
  return *counts;
}

constexpr char kOnce[] = "every work request completes exactly once: a completion delivered twice or never asked "
                         "for; IBTA Vol 1 10.8.3, ibv_poll_cq(3)";

// The old rule: each leftover is a problem, but a flush of a QP in ERR or RESET.
void JudgeEach(absl::Span<const ibv_wc> leftovers, bool qp_in_error, absl::string_view where,
               std::vector<std::string>& problems) {
  for (const ibv_wc& wc : leftovers) {
    if (qp_in_error && wc.status == IBV_WC_WR_FLUSH_ERR) continue;  // IBTA Vol 1 10.3.1: flushed in Error
    problems.push_back(absl::StrCat("a completion was left over on ", where, " after the test: wr_id ", wc.wr_id,
                                    ", ", WcOpcodeName(wc.opcode), ", ", WcStatusName(wc.status), " (", kOnce,
                                    ") ", DescribeWc(wc)));
  }
}

}  // namespace

void SetLeftoverCheck(LeftoverCheck check) { Check() = std::move(check); }
const LeftoverCheck& CurrentLeftoverCheck() { return Check(); }

bool WasPolled(const ibv_cq* cq) {
  std::lock_guard<std::mutex> lock(polled_mutex);
  return Polled().count(cq) != 0;
}

uint64_t PolledFrom(const ibv_cq* cq, uint32_t qp_num) {
  std::lock_guard<std::mutex> lock(polled_mutex);
  auto it = PolledCounts().find({cq, qp_num});
  return it == PolledCounts().end() ? 0 : it->second;
}

void ForgetPolled(const ibv_cq* cq) {
  std::lock_guard<std::mutex> lock(polled_mutex);
  Polled().erase(cq);
  auto& counts = PolledCounts();
  counts.erase(counts.lower_bound({cq, 0}), counts.upper_bound({cq, UINT32_MAX}));
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

void CountPolled(const ibv_cq* cq, absl::Span<const ibv_wc> polled) {
  if (polled.empty()) return;
  std::lock_guard<std::mutex> lock(polled_mutex);
  for (const ibv_wc& wc : polled) ++PolledCounts()[{cq, wc.qp_num}];
}

LeftoverVerdict JudgeLeftovers(absl::Span<const ibv_wc> leftovers, const std::optional<CountedQueue>& counted,
                               bool qp_in_error, absl::string_view where) {
  LeftoverVerdict verdict;
  if (!counted.has_value()) {
    JudgeEach(leftovers, qp_in_error, where, verdict.unexpected);
    return verdict;
  }
  std::vector<ibv_wc> own, others;
  for (const ibv_wc& wc : leftovers) (wc.qp_num == counted->qp_num ? own : others).push_back(wc);
  JudgeEach(others, qp_in_error, where, verdict.unexpected);
  if (counted->polled + own.size() <= counted->posted) {
    JudgeEach(own, qp_in_error, where, verdict.unexpected);
    return verdict;
  }
  std::string line = absl::StrCat("more completions than posted work requests: ", counted->posted, " posted, ",
                                  counted->polled, " polled during the test, ", own.size(), " left over on ", where);
  for (size_t i = 0; i < own.size(); ++i) {
    const ibv_wc& wc = own[i];
    absl::StrAppend(&line, i == 0 ? ": " : "; ", "wr_id ", wc.wr_id, ", ", WcOpcodeName(wc.opcode), ", ",
                    WcStatusName(wc.status));
  }
  absl::StrAppend(&line, " (", kOnce, ")");
  for (const ibv_wc& wc : own) absl::StrAppend(&line, " ", DescribeWc(wc));
  verdict.surplus.push_back(std::move(line));
  return verdict;
}

}  // namespace rdmacheck
