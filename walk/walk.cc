#include "walk/walk.h"

#include <cerrno>
#include <fstream>
#include <functional>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/strings/str_join.h"
#include "harness/connection/qp_attr.h"
#include "harness/connection/qp_transitions.h"
#include "harness/status.h"
#include "walk/executor.h"
#include "walk/generator.h"

namespace rdmacheck::walk {
namespace {

std::string Answer(int err) { return err == 0 ? "success" : ErrnoName(err); }

std::string Allowed(const Prediction& p) {
  std::vector<std::string> answers;
  if (p.success) answers.push_back("success");
  for (int err : p.errnos) answers.push_back(ErrnoName(err));
  return absl::StrJoin(answers, " or ");
}

// The verb an action's answer comes from, for a finding's signature.
std::string Verb(const Action& a, const Model& before) {
  switch (a.op) {
    case Op::kDestroy: {
      const Object* o = before.Find(a.obj);
      return absl::StrCat("destroy ", o != nullptr ? KindName(o->kind) : "?");
    }
    case Op::kModifyQp: {
      const Object* qp = before.Find(a.qp);
      return qp == nullptr ? "modify_qp"
                           : absl::StrCat("modify_qp ", QpTypeName(qp->type), " ", QpStateName(qp->state), "->",
                                          QpStateName(a.to));
    }
    case Op::kPostSend: case Op::kPostRecv: return absl::StrCat(OpName(a.op), " ", VariantName(a.variant));
    default: return OpName(a.op);
  }
}

// Under injected allocation failures (walk/fault_injection.h) a control verb may also answer
// ENOMEM, the kernel's answer when it cannot allocate, even one the model expects to be
// refused (a driver may allocate before it validates). Some verbs pass on another layer's
// answer to the same failure: an address handle and a move to RTR (both resolve the
// destination's MAC) ENOBUFS, the routing code's when it cannot allocate a route
// (dst_alloc() failing in ip_route_output_key_hash()); a QP ENFILE, the socket layer's when it
// cannot allocate a socket's inode (rxe's QP opens a kernel UDP socket: sock_create_kern()
// -> sock_alloc()).
std::vector<int> InjectedFailureErrnos(Op op) {
  if (op == Op::kCreateAh || op == Op::kModifyQp) return {ENOMEM, ENOBUFS};
  if (op == Op::kCreateQp) return {ENOMEM, ENFILE};
  return {ENOMEM};
}

void AllowInjectedFailure(const Action& a, Prediction& p) {
  const bool control = KindCreatedBy(a.op).has_value() || a.op == Op::kDestroy || a.op == Op::kModifyQp;
  if (!control) return;
  std::vector<int> added;
  for (int err : InjectedFailureErrnos(a.op)) {
    if (!p.Allows(err)) added.push_back(err);
  }
  if (added.empty()) return;
  for (int err : added) {
    p.errnos.push_back(err);
    absl::StrAppend(&p.rule, "; ", ErrnoName(err), ": an allocation failure was injected");
  }
}

// One walk over `next` (an action for the model, or nullopt at the end).
WalkResult Walk(ibv_context* context, const Selection& selection,
                const std::function<std::optional<Action>(const Model&)>& next, WalkObserver* observer,
                bool fail_allocations) {
  WalkObserver quiet;
  WalkObserver& tell = observer != nullptr ? *observer : quiet;
  WalkResult result;
  result.traits = TraitsOf(context, selection);
  tell.Started(result.traits);
  Model model(result.traits);
  Executor executor(context, selection, fail_allocations);
  for (std::optional<Action> a; (a = next(model));) {
    const int step = static_cast<int>(result.steps.size()) + 1;
    Prediction p = model.Predict(*a);
    if (fail_allocations) AllowInjectedFailure(*a, p);
    StepRecord record{*a, "", Verb(*a, model)};
    if (!p.runnable) {
      record.outcome = absl::StrCat("skipped: ", p.skip_reason);
      result.steps.push_back(record);
      tell.Step(record, {});
      continue;
    }
    tell.Begin(step, *a);
    const size_t found_before = result.findings.size();
    std::vector<Problem> problems;
    const Outcome o = executor.Run(*a, model, problems);
    record.outcome = o.skipped ? absl::StrCat("skipped: ", o.skip_reason) : Answer(o.err);
    if (!o.skipped && !p.Allows(o.err)) {
      const std::string verb = Verb(*a, model);
      problems.insert(problems.begin(),
                      Problem{absl::StrCat(verb, ": ", Answer(o.err), ", the model allows ", Allowed(p), " (", p.rule, ")"),
                              absl::StrCat(verb, ": ", Answer(o.err), " instead of ", Allowed(p))});
    }
    for (Problem& problem : problems) {
      result.findings.push_back({step, Describe(*a), std::move(problem.message), std::move(problem.signature)});
    }
    model.Apply(*a, o);
    result.steps.push_back(record);
    tell.Step(record, absl::MakeConstSpan(result.findings).subspan(found_before));
  }
  tell.Teardown();
  const size_t found_before = result.findings.size();
  std::vector<Problem> problems;
  executor.Finish(model, problems);
  for (Problem& problem : problems) {
    result.findings.push_back({0, "teardown", std::move(problem.message), std::move(problem.signature)});
  }
  tell.Finished(absl::MakeConstSpan(result.findings).subspan(found_before));
  return result;
}

}  // namespace

std::vector<Action> WalkResult::actions() const {
  std::vector<Action> out;
  for (const StepRecord& s : steps) out.push_back(s.action);
  return out;
}

WalkResult RunWalk(ibv_context* context, const Selection& selection, const WalkOptions& options,
                   WalkObserver* observer) {
  Generator gen(options.seed, options.weights);
  int left = options.steps;
  const absl::Time end = options.time > absl::ZeroDuration() ? absl::Now() + options.time : absl::InfiniteFuture();
  return Walk(
      context, selection,
      [&](const Model& model) -> std::optional<Action> {
        if (left-- <= 0 || absl::Now() >= end) return std::nullopt;
        return gen.Next(model);
      },
      observer, options.fail_allocations);
}

WalkResult ReplayWalk(ibv_context* context, const Selection& selection, const std::vector<Action>& actions,
                      WalkObserver* observer, bool fail_allocations) {
  size_t i = 0;
  return Walk(
      context, selection,
      [&](const Model&) -> std::optional<Action> {
        if (i >= actions.size()) return std::nullopt;
        return actions[i++];
      },
      observer, fail_allocations);
}

std::string ExpectationName(const Finding& f) {
  return absl::StrCat("Walk.", f.action.substr(0, f.action.find(' ')));
}

std::vector<std::string> ExpectationNames() {
  std::vector<std::string> names = {"Walk.teardown", "Walk.exit", "Walk.set-up"};
  for (int op = 0; op <= static_cast<int>(Op::kPoll); ++op) names.push_back(absl::StrCat("Walk.", OpName(static_cast<Op>(op))));
  return names;
}

nlohmann::json ToJson(const Finding& f) {
  nlohmann::json j = {{"step", f.step}, {"action", f.action}, {"message", f.message}, {"signature", f.signature}};
  if (!f.expected.empty()) j["expected"] = f.expected;
  return j;
}

Finding FindingFromJson(const nlohmann::json& j) {
  return {j.value("step", 0), j.value("action", ""), j.value("message", ""), j.value("signature", ""),
          j.value("expected", "")};
}

nlohmann::json WalkJson(const std::string& device, const std::optional<WalkOptions>& options, const WalkResult& result) {
  nlohmann::json j;
  j["device"] = device;
  if (options) {
    j["seed"] = options->seed;
    j["steps"] = options->steps;
    if (options->time > absl::ZeroDuration()) j["time"] = absl::FormatDuration(options->time);
    j["weights"] = options->weights;
    if (options->fail_allocations) j["fail_allocations"] = true;
  }
  j["traits"] = ToJson(result.traits);
  j["actions"] = nlohmann::json::array();
  for (const StepRecord& s : result.steps) {
    nlohmann::json a = ToJson(s.action);
    a["outcome"] = s.outcome;
    j["actions"].push_back(a);
  }
  j["findings"] = nlohmann::json::array();
  for (const Finding& f : result.findings) j["findings"].push_back(ToJson(f));
  j["coverage"] = Coverage(result);
  return j;
}

nlohmann::json Coverage(const WalkResult& result) {
  std::map<std::string, std::map<std::string, int>> reached;
  for (const StepRecord& s : result.steps) {
    const std::string verb = s.verb.empty() ? OpName(s.action.op) : s.verb;
    ++reached[verb][s.outcome.rfind("skipped", 0) == 0 ? "skipped" : s.outcome];
  }
  return reached;
}

absl::StatusOr<RecordedWalk> ReadWalkJson(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("actions") || !j["actions"].is_array()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a walk.json (no 'actions' list)"));
  }
  RecordedWalk walk;
  if (j.contains("seed") && j["seed"].is_number_unsigned()) walk.seed = j["seed"].get<uint64_t>();
  for (const nlohmann::json& a : j["actions"]) {
    absl::StatusOr<Action> action = ActionFromJson(a);
    if (!action.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", action.status().message()));
    walk.actions.push_back(*action);
  }
  return walk;
}

}  // namespace rdmacheck::walk
