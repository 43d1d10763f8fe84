#include "walk/generator.h"

#include <random>

#include "harness/connection/qp_transitions.h"

namespace rdmacheck::walk {

int MaxAlive(Kind kind) {
  switch (kind) {
    case Kind::kPd: return 3;
    case Kind::kCq: return 4;
    case Kind::kMr: return 6;
    case Kind::kSrq: return 2;
    case Kind::kQp: return 8;
    case Kind::kAh: return 3;
  }
  return 0;
}

Generator::Generator(uint64_t seed, Weights weights) : weights_(std::move(weights)) {
  std::seed_seq seq{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)};
  gen_.seed(seq);
}

Action Generator::Next(const Model& model) {
  int total = 0;
  for (const auto& [name, w] : weights_) total += name == "bad_post" ? 0 : w;
  // A category with nothing to act on is drawn again; a model with nothing at all gets a PD.
  for (int attempt = 0; attempt < 32 && total > 0; ++attempt) {
    int r = absl::Uniform<int>(gen_, 0, total);
    for (const auto& [name, w] : weights_) {
      if (name == "bad_post") continue;
      if (r < w) {
        Action a;
        if (Try(name, model, a) && model.Predict(a).runnable) return a;
        break;
      }
      r -= w;
    }
  }
  const std::vector<const Object*> cqs = model.Alive(Kind::kCq);
  Action a;
  if (!cqs.empty()) {
    a.op = Op::kPoll;
    a.cq = Pick(cqs)->id;
  } else {
    a.op = Op::kCreateCq;
    a.id = model.next_id();
  }
  return a;
}

bool Generator::Try(const std::string& category, const Model& model, Action& out) {
  if (category == "create") return TryCreate(model, out);
  if (category == "modify") return TryModify(model, out);
  if (category == "send" || category == "recv") return TryPost(category == "send", model, out);
  if (category == "destroy") {
    std::vector<const Object*> all;
    for (Kind k : {Kind::kPd, Kind::kCq, Kind::kMr, Kind::kSrq, Kind::kQp, Kind::kAh}) {
      for (const Object* o : model.Alive(k)) all.push_back(o);
    }
    if (all.empty()) return false;
    out.op = Op::kDestroy;
    out.obj = Pick(all)->id;
    return true;
  }
  if (category == "connect") {
    std::vector<const Object*> ready;
    for (const Object* q : model.Alive(Kind::kQp)) {
      if (q->type == IBV_QPT_RC && q->state == IBV_QPS_RESET && q->peer < 0) ready.push_back(q);
    }
    if (ready.size() < 2) return false;
    const Object* a = Pick(ready);
    const Object* b = a;
    while (b == a) b = Pick(ready);
    out.op = Op::kConnect;
    out.qp = a->id;
    out.peer = b->id;
    return true;
  }
  if (category == "poll") {
    std::vector<const Object*> cqs = model.Alive(Kind::kCq);
    if (cqs.empty()) return false;
    out.op = Op::kPoll;
    out.cq = Pick(cqs)->id;
    return true;
  }
  return false;
}

bool Generator::TryCreate(const Model& model, Action& out) {
  std::vector<std::pair<Op, int>> kinds = {{Op::kCreatePd, 1}, {Op::kCreateCq, 1}, {Op::kRegMr, 2},
                                           {Op::kCreateQp, 3}};
  if (model.traits().srq) kinds.push_back({Op::kCreateSrq, 1});
  if (model.traits().ah) kinds.push_back({Op::kCreateAh, 1});
  int total = 0;
  for (const auto& k : kinds) total += k.second;
  int r = absl::Uniform<int>(gen_, 0, total);
  Op op = Op::kCreatePd;
  for (const auto& k : kinds) {
    if (r < k.second) {
      op = k.first;
      break;
    }
    r -= k.second;
  }
  const Kind kind = *KindCreatedBy(op);
  if (static_cast<int>(model.Alive(kind).size()) >= MaxAlive(kind)) return false;
  out.op = op;
  out.id = model.next_id();
  if (op == Op::kCreatePd || op == Op::kCreateCq) return true;
  const std::vector<const Object*> pds = model.Alive(Kind::kPd);
  if (pds.empty()) return false;
  out.pd = Pick(pds)->id;
  if (op != Op::kCreateQp) return true;
  std::vector<const Object*> cqs;
  for (const Object* cq : model.Alive(Kind::kCq)) {
    int users = 0;
    for (const Object* u : model.UsersOf(cq->id)) users += u->kind == Kind::kQp;
    if (users < kMaxQpsPerCq) cqs.push_back(cq);
  }
  if (cqs.empty()) return false;
  out.cq = Pick(cqs)->id;
  out.qp_type = model.traits().ud && Chance(1, 4) ? IBV_QPT_UD : IBV_QPT_RC;
  std::vector<const Object*> srqs;
  for (const Object* s : model.Alive(Kind::kSrq)) {
    if (s->pd == out.pd) srqs.push_back(s);
  }
  if (out.qp_type == IBV_QPT_RC && !srqs.empty() && Chance(1, 3)) out.srq = Pick(srqs)->id;
  return true;
}

bool Generator::TryModify(const Model& model, Action& out) {
  const std::vector<const Object*> qps = model.Alive(Kind::kQp);
  if (qps.empty()) return false;
  const Object* qp = Pick(qps);
  out.op = Op::kModifyQp;
  out.qp = qp->id;
  std::vector<ibv_qp_state> legal, illegal;
  for (ibv_qp_state s : QpStates()) {
    (StateExists(qp->type, s) && RuleFor(qp->type, qp->state, s).legal ? legal : illegal).push_back(s);
  }
  if (qp->peer >= 0) {  // connected: ERR (the pair together), or a move that must be refused
    out.to = illegal.empty() || Chance(1, 2) ? IBV_QPS_ERR : Pick(illegal);
    return true;
  }
  // Mostly legal moves, so QPs get somewhere; a third of the time anything at all.
  out.to = !legal.empty() && !Chance(1, 3) ? Pick(legal) : Pick(QpStates());
  return true;
}

bool Generator::TryPost(bool send, const Model& model, Action& out) {
  std::vector<std::pair<const Object*, const Object*>> choices;  // (QP, MR on its PD)
  for (const Object* qp : model.Alive(Kind::kQp)) {
    if (qp->peer < 0) continue;
    for (const Object* mr : model.Alive(Kind::kMr)) {
      if (mr->pd == qp->pd) choices.push_back({qp, mr});
    }
  }
  if (choices.empty()) return false;
  const auto& [qp, mr] = Pick(choices);
  out.op = send ? Op::kPostSend : Op::kPostRecv;
  out.qp = qp->id;
  out.mr = mr->id;
  if (send) out.length = absl::Uniform<uint32_t>(absl::IntervalClosed, gen_, 1, kSlotBytes);
  const int bad = weights_.count("bad_post") ? weights_.at("bad_post") : 0;
  const int r = absl::Uniform<int>(gen_, 0, 6 + 2 * bad);
  out.variant = r < 6 ? Variant::kValid : r < 6 + bad ? Variant::kTooManySge : Variant::kBadLkey;
  if (!send && out.variant == Variant::kBadLkey) out.variant = Variant::kTooManySge;
  return true;
}

std::vector<Action> GenerateDryRun(uint64_t seed, int steps, const Weights& weights, const Traits& traits) {
  Model model(traits);
  Generator gen(seed, weights);
  std::vector<Action> actions;
  for (int i = 0; i < steps; ++i) {
    Action a = gen.Next(model);
    Outcome o;
    o.err = model.Predict(a).Canonical();
    // The device's answer to a dry run's bad-lkey send: accepted, then the pair errs.
    if (a.op == Op::kPostSend && a.variant == Variant::kBadLkey) {
      const Object* qp = model.Find(a.qp);
      o.errored_qps = {a.qp, qp->peer};
    }
    if ((a.op == Op::kModifyQp && a.to == IBV_QPS_ERR) || a.op == Op::kDestroy) {
      const Object* qp = model.Find(a.op == Op::kDestroy ? a.obj : a.qp);
      if (qp->kind == Kind::kQp && qp->peer >= 0 && o.err == 0) o.errored_qps = {qp->peer};
    }
    model.Apply(a, o);
    actions.push_back(a);
  }
  return actions;
}

}  // namespace rdmacheck::walk
