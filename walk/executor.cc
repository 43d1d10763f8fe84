#include "walk/executor.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "harness/completion.h"
#include "harness/connection/qp_attr.h"
#include "harness/connection/work_requests.h"
#include "harness/patterns.h"
#include "harness/status.h"
#include "harness/timeouts.h"
#include "walk/executor_objects.h"

namespace rdmacheck::walk {


Traits TraitsOf(ibv_context* context, const Selection& selection) {
  Traits t;
  const bool iwarp = selection.transport == IBV_TRANSPORT_IWARP;
  t.ud = t.ah = t.manual_connect = !iwarp;
  ibv_device_attr attr{};
  t.srq = ibv_query_device(context, &attr) == 0 && attr.max_srq > 0;
  return t;
}

Executor::Executor(ibv_context* context, Selection selection, bool fail_allocations)
    : context_(context), selection_(std::move(selection)), fail_allocations_(fail_allocations) {}

Executor::~Executor() {
  // Reverse creation order is children first. Failures are reported by the owners.
  for (auto it = objects_.rbegin(); it != objects_.rend(); ++it) {
    WalkHandle& h = *it->second;
    h.ah.reset();
    h.qp.reset();
    h.srq.reset();
    h.mr.reset();
    h.cq.reset();
    h.pd.reset();
  }
}

Outcome Executor::Run(const Action& a, const Model& model, std::vector<Problem>& problems) {
  Outcome outcome;
  switch (a.op) {
    case Op::kCreatePd: case Op::kCreateCq: case Op::kRegMr:
    case Op::kCreateSrq: case Op::kCreateQp: case Op::kCreateAh:
      outcome.err = Create(a);
      break;
    case Op::kDestroy: outcome.err = Destroy(a, model, outcome, problems); break;
    case Op::kModifyQp: outcome.err = Modify(a, model, outcome, problems); break;
    case Op::kConnect: outcome.err = Connect(a, outcome); break;
    case Op::kPostSend: outcome.err = PostSend(a, model, outcome); break;
    case Op::kPostRecv: outcome.err = PostRecv(a, model, outcome); break;
    case Op::kPoll: Poll(a.cq, model, outcome, problems); break;
  }
  BreakBroken(model, outcome, problems);
  CheckCanaries(problems);
  return outcome;
}

int Executor::Create(const Action& a) {
  auto h = std::make_unique<WalkHandle>();
  errno = 0;
  ibv_pd* pd = a.pd >= 0 && objects_.count(a.pd) ? objects_[a.pd]->pd.get() : nullptr;
  switch (a.op) {
    case Op::kCreatePd:
      h->kind = Kind::kPd;
      h->pd.reset(Failing([&] { return ibv_alloc_pd(context_); }));
      if (!h->pd) return LastErrno();
      break;
    case Op::kCreateCq:
      h->kind = Kind::kCq;
      h->cq.reset(Failing([&] { return ibv_create_cq(context_, kCqDepth, nullptr, nullptr, 0); }));
      if (!h->cq) return LastErrno();
      break;
    case Op::kRegMr: {
      h->kind = Kind::kMr;
      buffers_.push_back(std::make_unique<WalkBuffer>());
      h->buffer = buffers_.back().get();
      h->mr.reset(Failing([&] { return ibv_reg_mr(pd, h->buffer->Slot(0), kSlotsPerMr * kSlotBytes, IBV_ACCESS_LOCAL_WRITE); }));
      if (!h->mr) return LastErrno();
      break;
    }
    case Op::kCreateSrq: {
      h->kind = Kind::kSrq;
      ibv_srq_init_attr attr{};
      attr.attr.max_wr = kSrqDepth;
      attr.attr.max_sge = kMaxSge;
      h->srq.reset(Failing([&] { return ibv_create_srq(pd, &attr); }));
      if (!h->srq) return LastErrno();
      h->srq_max_sge = attr.attr.max_sge;
      break;
    }
    case Op::kCreateQp: {
      h->kind = Kind::kQp;
      ibv_qp_init_attr attr{};
      attr.send_cq = attr.recv_cq = objects_[a.cq]->cq.get();
      attr.srq = a.srq >= 0 ? objects_[a.srq]->srq.get() : nullptr;
      attr.qp_type = a.qp_type;
      attr.cap.max_send_wr = attr.cap.max_recv_wr = kQueueDepth;
      attr.cap.max_send_sge = attr.cap.max_recv_sge = kMaxSge;
      if (attr.srq != nullptr) attr.cap.max_recv_wr = attr.cap.max_recv_sge = 0;
      h->qp.reset(Failing([&] { return ibv_create_qp(pd, &attr); }));
      if (!h->qp) return LastErrno();
      h->cap = attr.cap;
      qp_by_num_[h->qp->qp_num] = a.id;
      break;
    }
    case Op::kCreateAh:
      h->kind = Kind::kAh;
      {
        ibv_ah_attr attr = AhAttrToOwnGid(selection_);
        h->ah.reset(Failing([&] { return ibv_create_ah(pd, &attr); }));
      }
      if (!h->ah) return LastErrno();
      break;
    default:
      return EINVAL;
  }
  objects_[a.id] = std::move(h);
  return 0;
}

int Executor::Destroy(const Action& a, const Model& model, Outcome& outcome, std::vector<Problem>& problems,
                      bool break_pair) {
  WalkHandle& h = *objects_.at(a.obj);
  const Object* o = model.Find(a.obj);
  // A connected QP goes with its pair broken first: both in ERR, so the WRs of each end in
  // flushes before the QP and its WRs are gone (BreakPair moves only the peer).
  if (break_pair && h.kind == Kind::kQp && o->peer >= 0) {
    ModifyTo(a.obj, IBV_QPS_ERR);
    BreakPair(a.obj, model, outcome, problems);
  }
  errno = 0;
  int rc = 0;
  switch (h.kind) {
    case Kind::kPd: rc = Failing([&] { return ibv_dealloc_pd(h.pd.get()); }); if (rc == 0) (void)h.pd.release(); break;
    case Kind::kCq: rc = Failing([&] { return ibv_destroy_cq(h.cq.get()); }); if (rc == 0) (void)h.cq.release(); break;
    case Kind::kSrq:
      rc = Failing([&] { return ibv_destroy_srq(h.srq.get()); });
      if (rc == 0) {
        (void)h.srq.release();
        FreeSlots(ledger_.DiscardSrq(a.obj));
      }
      break;
    case Kind::kAh: rc = Failing([&] { return ibv_destroy_ah(h.ah.get()); }); if (rc == 0) (void)h.ah.release(); break;
    case Kind::kMr:
      rc = Failing([&] { return ibv_dereg_mr(h.mr.get()); });
      if (rc == 0) {
        (void)h.mr.release();
        // WRs still using the memory may now end in any error, and so may their peers'.
        for (const Pending& p : ledger_.OnMr(a.obj)) {
          ledger_.SetLost(p.wr_id);
          ledger_.SetRelaxed(p.qp);
          const Object* q = model.Find(p.qp);
          if (q != nullptr && q->peer >= 0) ledger_.SetRelaxed(q->peer);
        }
      }
      break;
    case Kind::kQp: {
      const uint32_t num = h.qp->qp_num;
      rc = Failing([&] { return ibv_destroy_qp(h.qp.get()); });
      if (rc == 0) {
        (void)h.qp.release();
        qp_by_num_.erase(num);
        FreeSlots(ledger_.Discard(a.obj, /*late_allowed=*/true));  // the device is done with their memory
      }
      break;
    }
  }
  const int err = RcErrno(rc);
  if (err == 0) objects_.erase(a.obj);
  return err;
}

int Executor::ModifyTo(int qp, ibv_qp_state to) {
  if (!objects_.count(qp)) return 0;
  ibv_qp_attr attr{};
  attr.qp_state = to;
  return RcErrno(ibv_modify_qp(objects_.at(qp)->qp.get(), &attr, IBV_QP_STATE));
}

namespace {

// ibv_query_qp's qp_state is a byte the kernel copies from the driver's answer; a value that
// names no state (a driver that never set it: uninitialized memory) is shown as its number.
bool IsQpState(ibv_qp_state s) { return s >= IBV_QPS_RESET && s <= IBV_QPS_ERR; }
std::string StateRead(ibv_qp_state s) {
  return IsQpState(s) ? QpStateName(s) : absl::StrCat(static_cast<int>(s), " (not a QP state)");
}

}  // namespace

int Executor::Modify(const Action& a, const Model& model, Outcome& outcome, std::vector<Problem>& problems) {
  const Object* o = model.Find(a.qp);
  ibv_qp* qp = objects_.at(a.qp)->qp.get();
  if (o->peer >= 0 && a.to == IBV_QPS_ERR) {
    errno = 0;
    const int err = ModifyTo(a.qp, IBV_QPS_ERR);
    if (err == 0) BreakPair(a.qp, model, outcome, problems);
    return err;
  }
  AttrValues values;
  values.type = o->type;
  values.path.port = selection_.port;
  values.path.sgid_index = static_cast<uint8_t>(selection_.gid.index);
  values.peer = {qp->qp_num, selection_.port_attr.lid, selection_.gid.gid, 0};  // an unconnected RC QP: itself
  const QpAttr attr = TransitionAttr(o->state, a.to, values);
  ibv_qp_attr raw = attr.attr();
  errno = 0;
  const int err = RcErrno(Failing([&] { return ibv_modify_qp(qp, &raw, attr.mask()); }));
  // IBTA 10.3.1 and ibv_modify_qp(3): a refused modify leaves the state; an accepted one is read back.
  const ibv_qp_state expected = err == 0 ? a.to : o->state;
  absl::StatusOr<ibv_qp_attr> now = QueryQp(qp);
  // A pair waiting for a bad-lkey send's error completion may be in ERR already; so may a
  // QP whose MR was deregistered under an outstanding WR (the WR may fail,
  // IBV_WC_LOC_PROT_ERR, and take its QP to ERR: ibv_dereg_mr(3) leaves such WRs undefined).
  const bool failed_by_itself = now.ok() && now->qp_state == IBV_QPS_ERR && expected != IBV_QPS_ERR &&
                                ledger_.relaxed(a.qp);
  if (now.ok() && now->qp_state != expected && !ledger_.doomed(a.qp) && !failed_by_itself) {
    problems.push_back(MakeProblem(
        absl::StrCat("ibv_query_qp after ", err == 0 ? "an accepted" : "a refused", " move ", QpStateName(o->state),
                     "->", QpStateName(a.to), " reads ", StateRead(now->qp_state), ", expected ",
                     QpStateName(expected)),
        absl::StrCat("state after ", err == 0 ? "accepted " : "refused ", QpStateName(o->state), "->",
                     QpStateName(a.to), ": ", IsQpState(now->qp_state) ? QpStateName(now->qp_state) : "not a state")));
  }
  if (failed_by_itself) {
    BreakPair(a.qp, model, outcome, problems);  // the model follows: the pair is in ERR, its WRs flushed
    return err;
  }
  if (err == 0 && a.to == IBV_QPS_ERR) {
    ledger_.SetFlushing(a.qp);
    Drain({a.qp}, LocalEventWait(), model, problems);
  }
  if (err == 0 && a.to == IBV_QPS_RESET) FreeSlots(ledger_.Discard(a.qp, /*late_allowed=*/false));
  return err;
}

int Executor::Connect(const Action& a, Outcome& outcome) {
  PathOptions path;
  path.port = selection_.port;
  path.sgid_index = static_cast<uint8_t>(selection_.gid.index);
  ibv_qp* qa = objects_.at(a.qp)->qp.get();
  ibv_qp* qb = objects_.at(a.peer)->qp.get();
  // Each connection starts at PSNs of its own, as a real connection manager picks them at
  // random: packets of a QP's earlier connection, still retried or queued when it was reset
  // and connected anew, then fall outside the new window and are dropped as stale (IBTA Vol 1
  // 9.7.5.1.2), instead of being taken as the new peer's.
  const uint32_t base = (++connections_ * 0x10000u) & 0xffffffu;
  auto psn_of = [&](ibv_qp* q) { return q == qa ? base : (base + 0x8000u) & 0xffffffu; };
  auto address = [&](ibv_qp* q) {
    return QpAddress{q->qp_num, selection_.port_attr.lid, selection_.gid.gid, psn_of(q)};
  };
  for (const QpAttr& step : {InitAttr(IBV_QPT_RC, path)}) {
    for (ibv_qp* q : {qa, qb}) {
      ibv_qp_attr raw = step.attr();
      errno = 0;
      if (int err = RcErrno(ibv_modify_qp(q, &raw, step.mask())); err != 0) {
        ModifyTo(a.qp, IBV_QPS_ERR);
        ModifyTo(a.peer, IBV_QPS_ERR);
        outcome.errored_qps = {a.qp, a.peer};
        return err;
      }
    }
  }
  const std::pair<ibv_qp*, ibv_qp*> ends[] = {{qa, qb}, {qb, qa}};
  for (int phase = 0; phase < 2; ++phase) {
    for (const auto& [q, other] : ends) {
      const QpAttr step =
          phase == 0 ? RtrAttr(IBV_QPT_RC, address(other), path) : RtsAttr(IBV_QPT_RC, psn_of(q), path);
      ibv_qp_attr raw = step.attr();
      errno = 0;
      if (int err = RcErrno(ibv_modify_qp(q, &raw, step.mask())); err != 0) {
        ModifyTo(a.qp, IBV_QPS_ERR);
        ModifyTo(a.peer, IBV_QPS_ERR);
        outcome.errored_qps = {a.qp, a.peer};
        return err;
      }
    }
  }
  ledger_.Connected(a.qp);
  ledger_.Connected(a.peer);
  return 0;
}

namespace {

// A post that cannot be placed (queue full, no free slot) is recorded as skipped, not guessed at.
int Skip(Outcome& outcome, std::string why) {
  outcome.skipped = true;
  outcome.skip_reason = std::move(why);
  return 0;
}

}  // namespace

int Executor::PostSend(const Action& a, const Model& model, Outcome& outcome) {
  WalkHandle& qp = *objects_.at(a.qp);
  WalkHandle& mr = *objects_.at(a.mr);
  const int peer = model.Find(a.qp)->peer;
  auto skip = [&](std::string why) { return Skip(outcome, std::move(why)); };
  if (ledger_.doomed(a.qp)) return skip("the pair waits for its error completion");
  if (ledger_.CountOn(a.qp, true) >= kQueueDepth) return skip("send queue full");
  const int slot = mr.buffer->FreeSlot();
  if (slot < 0) return skip("no free slot in the MR");
  const uint64_t wr_id = next_wr_id_++;
  uint8_t* bytes = mr.buffer->Slot(slot);
  FillPattern(absl::MakeSpan(bytes, a.length), Pattern::Seeded(static_cast<uint32_t>(wr_id)));
  std::vector<ibv_sge> sges;
  const uint32_t lkey = a.variant == Variant::kBadLkey ? mr.mr->lkey ^ 0x00dead00u : mr.mr->lkey;
  if (a.variant == Variant::kTooManySge) {
    const uint32_t n = qp.cap.max_send_sge + 1, piece = std::max<uint32_t>(1, kSlotBytes / n);
    for (uint32_t i = 0; i < n; ++i) {
      sges.push_back({reinterpret_cast<uint64_t>(bytes + (i * piece) % kSlotBytes), 1, lkey});
    }
  } else {
    sges.push_back({reinterpret_cast<uint64_t>(bytes), a.length, lkey});
  }
  ibv_send_wr wr = SendWr(wr_id, sges.data(), static_cast<int>(sges.size()));
  ibv_send_wr* bad = nullptr;
  errno = 0;
  const int err = RcErrno(ibv_post_send(qp.qp.get(), &wr, &bad));
  if (err != 0) return err;
  mr.buffer->busy[slot] = true;
  ledger_.Posted({wr_id, a.qp, true, -1, a.mr, slot, a.length, a.variant});
  if (a.variant == Variant::kBadLkey) {
    ledger_.SetDoomed(a.qp);
    ledger_.SetDoomed(peer);
  } else {
    uint32_t total = 0;
    for (const ibv_sge& s : sges) total += s.length;
    ledger_.incoming(peer).push_back({wr_id, total, a.variant == Variant::kValid});
    // The peer's SRQ may hand this SEND a receive whose MR is gone: the pair may then fail
    // (IBV_WC_LOC_QP_OP_ERR there, IBV_WC_REM_OP_ERR here), whichever QP took it.
    const Object* p = model.Find(peer);
    if (p != nullptr && p->srq >= 0 && ledger_.SrqHasLost(p->srq)) {
      ledger_.SetRelaxed(a.qp);
      ledger_.SetRelaxed(peer);
    }
  }
  return 0;
}

int Executor::PostRecv(const Action& a, const Model& model, Outcome& outcome) {
  WalkHandle& qp = *objects_.at(a.qp);
  WalkHandle& mr = *objects_.at(a.mr);
  const int srq = model.Find(a.qp)->srq;
  auto skip = [&](std::string why) { return Skip(outcome, std::move(why)); };
  if (ledger_.doomed(a.qp)) return skip("the pair waits for its error completion");
  if (srq >= 0 ? ledger_.CountOnSrq(srq) >= static_cast<int>(kSrqDepth) : ledger_.CountOn(a.qp, false) >= kQueueDepth) {
    return skip("receive queue full");
  }
  const int slot = mr.buffer->FreeSlot();
  if (slot < 0) return skip("no free slot in the MR");
  const uint64_t wr_id = next_wr_id_++;
  uint8_t* bytes = mr.buffer->Slot(slot);
  std::memset(bytes, kCanary, kSlotBytes);
  std::vector<ibv_sge> sges;
  if (a.variant == Variant::kTooManySge) {
    const uint32_t n = (srq >= 0 ? objects_.at(srq)->srq_max_sge : qp.cap.max_recv_sge) + 1;
    const uint32_t piece = std::max<uint32_t>(1, kSlotBytes / n);
    for (uint32_t i = 0; i < n; ++i) {
      sges.push_back({reinterpret_cast<uint64_t>(bytes + (i * piece) % kSlotBytes), 1, mr.mr->lkey});
    }
  } else {
    sges.push_back({reinterpret_cast<uint64_t>(bytes), kSlotBytes, mr.mr->lkey});
  }
  ibv_recv_wr wr = RecvWr(wr_id, sges.data(), static_cast<int>(sges.size()));
  ibv_recv_wr* bad = nullptr;
  errno = 0;
  const int err = RcErrno(srq >= 0 ? ibv_post_srq_recv(objects_.at(srq)->srq.get(), &wr, &bad)
                                   : ibv_post_recv(qp.qp.get(), &wr, &bad));
  if (err != 0) return err;
  mr.buffer->busy[slot] = true;
  ledger_.Posted({wr_id, a.qp, false, srq, a.mr, slot, kSlotBytes, a.variant, ledger_.relaxed(a.qp)});
  return 0;
}

}  // namespace rdmacheck::walk
