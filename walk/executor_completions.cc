// The executor after the calls (walk/executor.h): completions against the ledger, the data
// and canary checks, breaking a pair and waiting for its flushes, teardown.
#include "walk/executor.h"

#include <algorithm>
#include <deque>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "harness/completion.h"
#include "harness/patterns.h"
#include "harness/status.h"
#include "harness/timeouts.h"
#include "walk/executor_objects.h"

namespace rdmacheck::walk {

void Executor::Poll(int cq, const Model&, Outcome&, std::vector<Problem>& problems) {
  ibv_wc wc[16];
  for (int n; (n = ibv_poll_cq(objects_.at(cq)->cq.get(), 16, wc)) > 0;) {
    for (int i = 0; i < n; ++i) HandleCompletion(wc[i], problems);
  }
}

void Executor::BreakBroken(const Model& model, Outcome& outcome, std::vector<Problem>& problems) {
  while (!broken_.empty()) {
    const int qp = *broken_.begin();
    broken_.erase(broken_.begin());
    const Object* o = model.Find(qp);
    const bool done = std::find(outcome.errored_qps.begin(), outcome.errored_qps.end(), qp) != outcome.errored_qps.end();
    if (o == nullptr || !objects_.count(qp) || done || o->state == IBV_QPS_ERR) continue;
    ModifyTo(qp, IBV_QPS_ERR);  // an RC error completion has moved it already; make sure
    BreakPair(qp, model, outcome, problems);
  }
}

void Executor::FreeSlots(const std::vector<Pending>& gone) {
  for (const Pending& p : gone) {
    auto h = objects_.find(p.mr);
    if (h != objects_.end() && h->second->buffer != nullptr) h->second->buffer->busy[p.slot] = false;
  }
}

void Executor::HandleCompletion(const ibv_wc& wc, std::vector<Problem>& problems) {
  Pending p;
  const std::string status = WcStatusName(wc.status);
  switch (ledger_.Complete(wc.wr_id, &p)) {
    case Ledger::Match::kLate: return;
    case Ledger::Match::kDuplicate:
      problems.push_back(MakeProblem(absl::StrCat("WR ", wc.wr_id, " completed a second time (", status, ")"),
                                     "a WR completed twice"));
      return;
    case Ledger::Match::kUnknown:
      problems.push_back(MakeProblem(absl::StrCat("a completion for wr_id ", wc.wr_id, " that was never posted (",
                                                  status, ")"), "a completion of a WR never posted"));
      return;
    case Ledger::Match::kPending: break;
  }
  // The receiving QP of an SRQ receive is whichever took it.
  auto by_num = qp_by_num_.find(wc.qp_num);
  const int qp = p.srq >= 0 && by_num != qp_by_num_.end() ? by_num->second : p.qp;
  if (p.srq < 0 && (by_num == qp_by_num_.end() || by_num->second != p.qp)) {
    problems.push_back(MakeProblem(absl::StrCat("WR ", p.wr_id, " of QP #", p.qp, " completed with qp_num ", wc.qp_num),
                                   "a completion names another QP"));
  }
  Pending as_seen = p;
  as_seen.qp = qp;
  const std::string what = absl::StrCat(p.send ? "send" : "receive", " WR ", p.wr_id, " on QP #", qp);
  if (std::string why = ledger_.CheckStatus(as_seen, wc.status); !why.empty()) {
    problems.push_back(MakeProblem(absl::StrCat(what, " (", VariantName(p.variant), ") completed with ", status, ", ", why),
                                   absl::StrCat(p.send ? "send " : "receive ", VariantName(p.variant), ": ", status)));
  }
  // An error on a QP not yet in ERR breaks its pair (flushes of one in ERR are expected).
  if (wc.status != IBV_WC_SUCCESS && !ledger_.flushing(qp)) broken_.insert(qp);
  // Slots of every MR's buffer live to the end, so the slot is freed even if the MR is gone.
  auto h = objects_.find(p.mr);
  WalkBuffer* buffer = h != objects_.end() ? h->second->buffer : nullptr;
  if (wc.status == IBV_WC_SUCCESS) {
    const ibv_wc_opcode opcode = p.send ? IBV_WC_SEND : IBV_WC_RECV;
    if (wc.opcode != opcode) {
      problems.push_back(MakeProblem(absl::StrCat(what, " completed with opcode ", WcOpcodeName(wc.opcode), ", expected ",
                                                  WcOpcodeName(opcode)), "a completion with the wrong opcode"));
    }
    std::deque<Message>& incoming = ledger_.incoming(qp);
    if (!p.send && incoming.empty()) {
      problems.push_back(MakeProblem(absl::StrCat(what, " completed with no send on its way"),
                                     "a receive completed with no send on its way"));
    } else if (!p.send) {
      const Message m = incoming.front();
      incoming.pop_front();
      if (m.checkable && wc.byte_len != m.length) {
        problems.push_back(MakeProblem(absl::StrCat(what, " byte_len ", wc.byte_len, ", the send (WR ", m.wr_id, ") had ",
                                                    m.length), "a receive with the wrong byte_len"));
      } else if (m.checkable && buffer != nullptr) {
        uint8_t* bytes = buffer->Slot(p.slot);
        absl::Status data = CheckPattern(absl::MakeConstSpan(bytes, m.length), Pattern::Seeded(static_cast<uint32_t>(m.wr_id)));
        absl::Status rest = CheckPattern(absl::MakeConstSpan(bytes + m.length, kSlotBytes - m.length), Pattern::Constant(kCanary));
        if (!data.ok()) {
          problems.push_back(MakeProblem(absl::StrCat(what, " holds other bytes than send WR ", m.wr_id, ": ", data.message()),
                                         "received bytes differ from the sent ones"));
        }
        if (!rest.ok()) {
          problems.push_back(MakeProblem(absl::StrCat(what, " wrote past the message into its slot: ", rest.message()),
                                         "a receive wrote past the message"));
        }
      }
    }
  }
  if (buffer != nullptr) buffer->busy[p.slot] = false;
}

void Executor::BreakPair(int qp, const Model& model, Outcome& outcome, std::vector<Problem>& problems) {
  std::set<int> pair = {qp};
  const Object* o = model.Find(qp);
  if (o != nullptr && o->peer >= 0) pair.insert(o->peer);
  for (int q : pair) {
    if (q != qp) ModifyTo(q, IBV_QPS_ERR);
    ledger_.SetFlushing(q);
    outcome.errored_qps.push_back(q);
  }
  Drain(pair, LocalEventWait(), model, problems);
  for (int q : pair) broken_.erase(q);  // their flushes were expected
}

void Executor::Drain(const std::set<int>& qps, absl::Duration timeout, const Model& model, std::vector<Problem>& problems) {
  std::set<int> cqs;
  for (int q : qps) {
    const Object* o = model.Find(q);
    if (o != nullptr && objects_.count(o->cq)) cqs.insert(o->cq);
  }
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    bool outstanding = false;
    for (int q : qps) outstanding |= !ledger_.OutstandingOn(q).empty();
    if (!outstanding) return;
    if (absl::Now() > deadline) break;
    ibv_wc wc[16];
    for (int cq : cqs) {
      for (int n; (n = ibv_poll_cq(objects_.at(cq)->cq.get(), 16, wc)) > 0;) {
        for (int i = 0; i < n; ++i) HandleCompletion(wc[i], problems);
      }
    }
    absl::SleepFor(absl::Microseconds(200));
  }
  for (int q : qps) {
    for (const Pending& p : ledger_.OutstandingOn(q)) {
      // A WR posted when the QP may have been in ERR already is told apart: a provider that
      // flushes only when its QP enters ERR never flushes it (IBTA 10.3.1 says it must).
      const char* when = p.after_fault ? ", posted after its QP may have failed," : "";
      problems.push_back(MakeProblem(absl::StrCat(p.send ? "send" : "receive", " WR ", p.wr_id, " on QP #", q, when,
                                                  " was not flushed within ", absl::FormatDuration(timeout),
                                                  " of its QP entering ERR"),
                                     absl::StrCat(p.send ? "send" : "receive", " WR",
                                                  p.after_fault ? " posted after a fault" : "", " not flushed after ERR")));
    }
    ledger_.Discard(q, /*late_allowed=*/true);  // reported once; a completion after this is late, not unknown
  }
}

void Executor::CheckCanaries(std::vector<Problem>& problems) {
  for (const auto& b : buffers_) {
    if (b->canary_reported) continue;
    absl::Status head = CheckPattern(absl::MakeConstSpan(b->bytes.data(), kCanaryBytes), Pattern::Constant(kCanary));
    absl::Status tail = CheckPattern(absl::MakeConstSpan(b->bytes.data() + b->bytes.size() - kCanaryBytes, kCanaryBytes),
                                     Pattern::Constant(kCanary));
    if (!head.ok() || !tail.ok()) {
      b->canary_reported = true;
      problems.push_back(MakeProblem(absl::StrCat("the canary ", !head.ok() ? "before" : "after", " an MR changed: ",
                                                  (!head.ok() ? head : tail).message()),
                                     "a canary around an MR changed"));
    }
  }
}

void Executor::Finish(const Model& model, std::vector<Problem>& problems) {
  // The teardown runs without injected allocation failures: it must release everything,
  // which the leak check after it judges.
  fail_allocations_ = false;
  std::set<int> qps;
  for (const Object* q : model.Alive(Kind::kQp)) {
    if (!objects_.count(q->id)) continue;
    // RESET -> ERR is no transition IBTA lists (10.3.1; the kernel's ib_modify_qp_is_ok()
    // refuses it with EINVAL), and a QP in RESET has nothing outstanding to flush.
    if (q->state == IBV_QPS_RESET) continue;
    qps.insert(q->id);
    if (int err = ModifyTo(q->id, IBV_QPS_ERR); err != 0) {
      problems.push_back(MakeProblem(absl::StrCat("teardown: QP #", q->id, " to ERR: ", ErrnoName(err)),
                                     absl::StrCat("teardown: modify to ERR: ", ErrnoName(err))));
    }
    ledger_.SetFlushing(q->id);
  }
  Drain(qps, DefaultWait(), model, problems);
  // Children first: nothing else uses an AH or a QP; then SRQs and MRs; then CQs; PDs last.
  for (Kind kind : {Kind::kAh, Kind::kQp, Kind::kSrq, Kind::kMr, Kind::kCq, Kind::kPd}) {
    for (const Object* o : model.Alive(kind)) {
      if (!objects_.count(o->id)) continue;
      Action destroy;
      destroy.op = Op::kDestroy;
      destroy.obj = o->id;
      Outcome unused;
      if (int err = Destroy(destroy, model, unused, problems, /*break_pair=*/false); err != 0) {
        problems.push_back(MakeProblem(absl::StrCat("teardown: destroying ", KindName(kind), " #", o->id,
                                                    " (children gone) failed: ", ErrnoName(err)),
                                       absl::StrCat("teardown: destroy ", KindName(kind), ": ", ErrnoName(err))));
      }
    }
  }
}

}  // namespace rdmacheck::walk
