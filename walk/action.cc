#include "walk/action.h"

#include <tuple>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "harness/connection/qp_attr.h"
#include "harness/connection/qp_transitions.h"

namespace rdmacheck::walk {
namespace {

constexpr Op kOps[] = {Op::kCreatePd, Op::kCreateCq, Op::kRegMr,   Op::kCreateSrq, Op::kCreateQp,   Op::kCreateAh,
                       Op::kDestroy,  Op::kModifyQp, Op::kConnect, Op::kPostSend,  Op::kPostRecv, Op::kPoll};
constexpr Variant kVariants[] = {Variant::kValid, Variant::kBadLkey, Variant::kTooManySge};

// Which fields an op uses: only those are written, and read back.
struct Fields {
  bool id = false, obj = false, pd = false, cq = false, srq = false, mr = false, qp = false, peer = false,
       type = false, to = false, length = false, variant = false;
};

Fields FieldsOf(Op op) {
  Fields f;
  switch (op) {
    case Op::kCreatePd: case Op::kCreateCq: f.id = true; break;
    case Op::kRegMr: case Op::kCreateSrq: case Op::kCreateAh: f.id = f.pd = true; break;
    case Op::kCreateQp: f.id = f.pd = f.cq = f.srq = f.type = true; break;
    case Op::kDestroy: f.obj = true; break;
    case Op::kModifyQp: f.qp = f.to = true; break;
    case Op::kConnect: f.qp = f.peer = true; break;
    case Op::kPostSend: f.qp = f.mr = f.length = f.variant = true; break;
    case Op::kPostRecv: f.qp = f.mr = f.variant = true; break;
    case Op::kPoll: f.cq = true; break;
  }
  return f;
}

absl::StatusOr<int> IntField(const nlohmann::json& j, const char* name) {
  if (!j.contains(name) || !j[name].is_number_integer()) {
    return absl::InvalidArgumentError(absl::StrCat("action ", j.dump(), ": no integer '", name, "'"));
  }
  return j[name].get<int>();
}

}  // namespace

bool Action::operator==(const Action& o) const {
  auto key = [](const Action& a) {
    return std::tie(a.op, a.id, a.obj, a.pd, a.cq, a.srq, a.mr, a.qp, a.peer, a.qp_type, a.to, a.length, a.variant);
  };
  return key(*this) == key(o);
}

const char* OpName(Op op) {
  switch (op) {
    case Op::kCreatePd: return "create_pd";
    case Op::kCreateCq: return "create_cq";
    case Op::kRegMr: return "reg_mr";
    case Op::kCreateSrq: return "create_srq";
    case Op::kCreateQp: return "create_qp";
    case Op::kCreateAh: return "create_ah";
    case Op::kDestroy: return "destroy";
    case Op::kModifyQp: return "modify_qp";
    case Op::kConnect: return "connect";
    case Op::kPostSend: return "post_send";
    case Op::kPostRecv: return "post_recv";
    case Op::kPoll: return "poll";
  }
  return "?";
}

const char* VariantName(Variant v) {
  switch (v) {
    case Variant::kValid: return "valid";
    case Variant::kBadLkey: return "bad_lkey";
    case Variant::kTooManySge: return "too_many_sge";
  }
  return "?";
}

std::string Describe(const Action& a) {
  std::string s = OpName(a.op);
  const Fields f = FieldsOf(a.op);
  if (f.id) absl::StrAppend(&s, " #", a.id);
  if (f.obj) absl::StrAppend(&s, " #", a.obj);
  if (f.type) absl::StrAppend(&s, " ", QpTypeName(a.qp_type));
  if (f.qp) absl::StrAppend(&s, " qp#", a.qp);
  if (f.peer) absl::StrAppend(&s, " peer#", a.peer);
  if (f.pd) absl::StrAppend(&s, " pd#", a.pd);
  if (f.cq) absl::StrAppend(&s, " cq#", a.cq);
  if (f.srq && a.srq >= 0) absl::StrAppend(&s, " srq#", a.srq);
  if (f.mr) absl::StrAppend(&s, " mr#", a.mr);
  if (f.to) absl::StrAppend(&s, " ->", QpStateName(a.to));
  if (f.length) absl::StrAppend(&s, " ", a.length, "B");
  if (f.variant && a.variant != Variant::kValid) absl::StrAppend(&s, " ", VariantName(a.variant));
  return s;
}

nlohmann::json ToJson(const Action& a) {
  nlohmann::json j = {{"op", OpName(a.op)}};
  const Fields f = FieldsOf(a.op);
  if (f.id) j["id"] = a.id;
  if (f.obj) j["obj"] = a.obj;
  if (f.pd) j["pd"] = a.pd;
  if (f.cq) j["cq"] = a.cq;
  if (f.srq) j["srq"] = a.srq;
  if (f.mr) j["mr"] = a.mr;
  if (f.qp) j["qp"] = a.qp;
  if (f.peer) j["peer"] = a.peer;
  if (f.type) j["type"] = QpTypeName(a.qp_type);
  if (f.to) j["to"] = QpStateName(a.to);
  if (f.length) j["length"] = a.length;
  if (f.variant) j["variant"] = VariantName(a.variant);
  return j;
}

absl::StatusOr<Action> ActionFromJson(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("op") || !j["op"].is_string()) {
    return absl::InvalidArgumentError(absl::StrCat("action ", j.dump(), ": no 'op'"));
  }
  Action a;
  bool known = false;
  for (Op op : kOps) {
    if (j["op"].get<std::string>() == OpName(op)) {
      a.op = op;
      known = true;
    }
  }
  if (!known) return absl::InvalidArgumentError(absl::StrCat("action ", j.dump(), ": unknown op"));
  const Fields f = FieldsOf(a.op);
  absl::Status bad;
  auto read_int = [&](bool used, const char* name, int& field) {
    if (!used || !bad.ok()) return;
    absl::StatusOr<int> v = IntField(j, name);
    if (v.ok()) field = *v; else bad = v.status();
  };
  read_int(f.id, "id", a.id);
  read_int(f.obj, "obj", a.obj);
  read_int(f.pd, "pd", a.pd);
  read_int(f.cq, "cq", a.cq);
  read_int(f.srq, "srq", a.srq);
  read_int(f.mr, "mr", a.mr);
  read_int(f.qp, "qp", a.qp);
  read_int(f.peer, "peer", a.peer);
  int length = 0;
  read_int(f.length, "length", length);
  a.length = static_cast<uint32_t>(length);
  if (!bad.ok()) return bad;
  auto text = [&](const char* name) { return j.contains(name) && j[name].is_string() ? j[name].get<std::string>() : ""; };
  if (f.type) {
    const std::string t = text("type");
    if (t == "RC") a.qp_type = IBV_QPT_RC;
    else if (t == "UD") a.qp_type = IBV_QPT_UD;
    else return absl::InvalidArgumentError(absl::StrCat("action ", j.dump(), ": type must be RC or UD"));
  }
  if (f.to) {
    bool found = false;
    for (ibv_qp_state s : QpStates()) {
      if (text("to") == QpStateName(s)) a.to = s, found = true;
    }
    if (!found) return absl::InvalidArgumentError(absl::StrCat("action ", j.dump(), ": unknown state 'to'"));
  }
  if (f.variant) {
    bool found = false;
    for (Variant v : kVariants) {
      if (text("variant") == VariantName(v)) a.variant = v, found = true;
    }
    if (!found) return absl::InvalidArgumentError(absl::StrCat("action ", j.dump(), ": unknown variant"));
  }
  return a;
}

Weights DefaultWeights() {
  return {{"create", 3}, {"destroy", 2}, {"modify", 2}, {"connect", 1},
          {"send", 4},   {"recv", 4},    {"poll", 3},   {"bad_post", 1}};
}

absl::StatusOr<Weights> ParseWeights(absl::string_view text) {
  Weights weights = DefaultWeights();
  if (text.empty()) return weights;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(item, absl::MaxSplits('=', 1));
    int value = 0;
    if (!weights.count(std::string(kv.first))) {
      std::string known;
      for (const auto& [name, unused] : weights) absl::StrAppend(&known, known.empty() ? "" : ",", name);
      return absl::InvalidArgumentError(absl::StrCat("--weights: unknown category '", kv.first, "' (known: ", known, ")"));
    }
    if (!absl::SimpleAtoi(kv.second, &value) || value < 0 || value > 1000) {
      return absl::InvalidArgumentError(absl::StrCat("--weights: '", item, "' needs a whole number 0..1000"));
    }
    weights[std::string(kv.first)] = value;
  }
  int total = 0;
  for (const auto& [name, w] : weights) total += name == "bad_post" ? 0 : w;
  if (total == 0) return absl::InvalidArgumentError("--weights: every action weight is zero");
  return weights;
}

}  // namespace rdmacheck::walk
