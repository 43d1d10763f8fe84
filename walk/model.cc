#include "walk/model.h"

#include <algorithm>
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "harness/connection/qp_transitions.h"

namespace rdmacheck::walk {
namespace {

Prediction Skip(std::string why) {
  Prediction p;
  p.runnable = false;
  p.skip_reason = std::move(why);
  return p;
}

Prediction Succeeds(std::string rule) {
  Prediction p;
  p.rule = std::move(rule);
  return p;
}

Prediction Fails(std::vector<int> errnos, std::string rule, bool or_success = false) {
  Prediction p;
  p.success = or_success;
  p.errnos = std::move(errnos);
  p.rule = std::move(rule);
  return p;
}

const char* DestroyRule(Kind kind) {
  switch (kind) {
    case Kind::kPd: return "ibv_alloc_pd(3): dealloc fails while an MR, SRQ, QP or AH uses the PD";
    case Kind::kCq: return "ibv_create_cq(3): destroy fails while a QP uses the CQ";
    case Kind::kSrq: return "ibv_create_srq(3): destroy fails while a QP uses the SRQ";
    default: return "";
  }
}

}  // namespace

nlohmann::json ToJson(const Traits& t) {
  return {{"ud", t.ud}, {"ah", t.ah}, {"srq", t.srq}, {"manual_connect", t.manual_connect}};
}

Traits TraitsFromJson(const nlohmann::json& j) {
  Traits t;
  if (!j.is_object()) return t;
  t.ud = j.value("ud", true);
  t.ah = j.value("ah", true);
  t.srq = j.value("srq", true);
  t.manual_connect = j.value("manual_connect", true);
  return t;
}

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kPd: return "pd";
    case Kind::kCq: return "cq";
    case Kind::kMr: return "mr";
    case Kind::kSrq: return "srq";
    case Kind::kQp: return "qp";
    case Kind::kAh: return "ah";
  }
  return "?";
}

std::optional<Kind> KindCreatedBy(Op op) {
  switch (op) {
    case Op::kCreatePd: return Kind::kPd;
    case Op::kCreateCq: return Kind::kCq;
    case Op::kRegMr: return Kind::kMr;
    case Op::kCreateSrq: return Kind::kSrq;
    case Op::kCreateQp: return Kind::kQp;
    case Op::kCreateAh: return Kind::kAh;
    default: return std::nullopt;
  }
}

bool Prediction::Allows(int err) const {
  if (err == 0) return success;
  return std::find(errnos.begin(), errnos.end(), err) != errnos.end();
}

const Object* Model::Find(int id) const {
  auto it = objects_.find(id);
  return it == objects_.end() ? nullptr : &it->second;
}

const Object* Model::AliveOf(int id, Kind kind) const {
  const Object* o = Find(id);
  return o != nullptr && o->alive && o->kind == kind ? o : nullptr;
}

std::vector<const Object*> Model::Alive(Kind kind) const {
  std::vector<const Object*> out;
  for (const auto& [id, o] : objects_) {
    if (o.alive && o.kind == kind) out.push_back(&o);
  }
  return out;
}

std::vector<const Object*> Model::UsersOf(int id) const {
  std::vector<const Object*> out;
  for (const auto& [unused, o] : objects_) {
    if (o.alive && o.id != id && (o.pd == id || o.cq == id || o.srq == id)) out.push_back(&o);
  }
  return out;
}

Prediction Model::Predict(const Action& a) const {
  auto missing = [](const char* what, int id) { return Skip(absl::StrCat("no live ", what, " #", id)); };
  switch (a.op) {
    case Op::kCreatePd:
    case Op::kCreateCq:
    case Op::kRegMr:
    case Op::kCreateSrq:
    case Op::kCreateQp:
    case Op::kCreateAh: {
      if (a.id < 1 || Find(a.id) != nullptr) return Skip(absl::StrCat("name #", a.id, " already used"));
      if (a.op == Op::kCreatePd || a.op == Op::kCreateCq) return Succeeds("create");
      if (AliveOf(a.pd, Kind::kPd) == nullptr) return missing("PD", a.pd);
      if (a.op == Op::kCreateSrq && !traits_.srq) return Skip("the device has no SRQ");
      if (a.op == Op::kCreateAh && !traits_.ah) return Skip("the device has no address handles");
      if (a.op != Op::kCreateQp) return Succeeds("create");
      if (a.qp_type != IBV_QPT_RC && a.qp_type != IBV_QPT_UD) return Skip("QP type is neither RC nor UD");
      if (a.qp_type == IBV_QPT_UD && !traits_.ud) return Skip("the device has no UD");
      if (AliveOf(a.cq, Kind::kCq) == nullptr) return missing("CQ", a.cq);
      if (a.srq >= 0 && AliveOf(a.srq, Kind::kSrq) == nullptr) return missing("SRQ", a.srq);
      int on_cq = 0;
      for (const Object* user : UsersOf(a.cq)) on_cq += user->kind == Kind::kQp;
      if (on_cq >= kMaxQpsPerCq) return Skip(absl::StrCat("CQ #", a.cq, " already serves ", on_cq, " QPs"));
      return Succeeds("create");
    }
    case Op::kDestroy: {
      const Object* o = Find(a.obj);
      if (o == nullptr || !o->alive) return Skip(absl::StrCat("no live object #", a.obj));
      if (!UsersOf(a.obj).empty()) return Fails({EBUSY}, DestroyRule(o->kind));
      return Succeeds("destroy of an unused object");
    }
    case Op::kModifyQp: {
      const Object* qp = AliveOf(a.qp, Kind::kQp);
      if (qp == nullptr) return missing("QP", a.qp);
      const bool legal = StateExists(qp->type, a.to) && RuleFor(qp->type, qp->state, a.to).legal;
      if (legal && qp->type == IBV_QPT_RC && !traits_.manual_connect &&
          (a.to == IBV_QPS_RTR || a.to == IBV_QPS_RTS || a.to == IBV_QPS_SQD)) {
        return Skip("RC QPs of this transport are connected only through rdma_cm");
      }
      // A connected pair leaves RTS only for ERR, together (walk/executor.h).
      if (qp->peer >= 0 && legal && a.to != IBV_QPS_ERR) return Skip("a connected QP moves only to ERR");
      if (legal) return Succeeds("IBTA 10.3.1 / ibv_modify_qp(3): a listed move with its required attributes");
      return Fails({EINVAL}, "IBTA 10.3.1 / ibv_modify_qp(3): a move the table does not list fails, state kept");
    }
    case Op::kConnect: {
      const Object* qp = AliveOf(a.qp, Kind::kQp);
      const Object* peer = AliveOf(a.peer, Kind::kQp);
      if (qp == nullptr) return missing("QP", a.qp);
      if (peer == nullptr) return missing("QP", a.peer);
      for (const Object* q : {qp, peer}) {
        if (q->type != IBV_QPT_RC || q->state != IBV_QPS_RESET || q->peer >= 0) {
          return Skip(absl::StrCat("QP #", q->id, " is not an unconnected RC QP in RESET"));
        }
      }
      if (a.qp == a.peer) return Skip("a QP is not its own peer here");
      if (!traits_.manual_connect) return Skip("RC QPs of this transport are connected only through rdma_cm");
      return Succeeds("RESET->INIT->RTR->RTS with the required attributes");
    }
    case Op::kPostSend:
    case Op::kPostRecv: {
      const Object* qp = AliveOf(a.qp, Kind::kQp);
      const Object* mr = AliveOf(a.mr, Kind::kMr);
      if (qp == nullptr) return missing("QP", a.qp);
      if (mr == nullptr) return missing("MR", a.mr);
      if (qp->peer < 0) return Skip(absl::StrCat("QP #", a.qp, " is not connected"));
      if (mr->pd != qp->pd) return Skip(absl::StrCat("MR #", a.mr, " is on another PD than QP #", a.qp));
      if (a.op == Op::kPostSend && (a.length < 1 || a.length > kSlotBytes)) return Skip("length outside 1..slot");
      switch (a.variant) {
        case Variant::kValid: return Succeeds("a valid WR on a QP in RTS is accepted");
        case Variant::kBadLkey:
          if (a.op == Op::kPostRecv) return Skip("bad_lkey is for sends");
          return Fails({EINVAL}, "a bad lkey: refused, or accepted and completed with LOC_PROT_ERR", true);
        case Variant::kTooManySge:
          return Fails({EINVAL, ENOMEM}, "ibv_post_send(3)/ibv_post_recv(3): more SGEs than max_sge are refused");
      }
      return Skip("unknown variant");
    }
    case Op::kPoll:
      if (AliveOf(a.cq, Kind::kCq) == nullptr) return missing("CQ", a.cq);
      return Succeeds("poll");
  }
  return Skip("unknown op");
}

void Model::Unpair(int qp) {
  auto it = objects_.find(qp);
  if (it == objects_.end() || it->second.peer < 0) return;
  auto peer = objects_.find(it->second.peer);
  if (peer != objects_.end()) peer->second.peer = -1;
  it->second.peer = -1;
}

void Model::Apply(const Action& a, const Outcome& outcome) {
  if (!outcome.skipped && outcome.err == 0) {
    switch (a.op) {
      case Op::kCreatePd: case Op::kCreateCq: case Op::kRegMr:
      case Op::kCreateSrq: case Op::kCreateQp: case Op::kCreateAh: {
        Object o;
        o.kind = *KindCreatedBy(a.op);
        o.id = a.id;
        if (a.op != Op::kCreatePd && a.op != Op::kCreateCq) o.pd = a.pd;
        if (a.op == Op::kCreateQp) {
          o.cq = a.cq;
          o.srq = a.srq;
          o.type = a.qp_type;
        }
        objects_[a.id] = o;
        break;
      }
      case Op::kDestroy:
        Unpair(a.obj);
        objects_[a.obj].alive = false;
        break;
      case Op::kModifyQp:
        if (a.to != IBV_QPS_RTS && a.to != IBV_QPS_SQD) Unpair(a.qp);
        objects_[a.qp].state = a.to;
        break;
      case Op::kConnect:
        objects_[a.qp].state = objects_[a.peer].state = IBV_QPS_RTS;
        objects_[a.qp].peer = a.peer;
        objects_[a.peer].peer = a.qp;
        break;
      default:
        break;
    }
  }
  for (int qp : outcome.errored_qps) {
    Unpair(qp);
    auto it = objects_.find(qp);
    if (it != objects_.end()) it->second.state = IBV_QPS_ERR;
  }
  // Names are never reused, even when a create failed: a replayed list keeps its meaning.
  for (int id : {a.id}) next_id_ = std::max(next_id_, id + 1);
}

}  // namespace rdmacheck::walk
