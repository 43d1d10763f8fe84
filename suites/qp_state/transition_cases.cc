#include "suites/qp_state/transition_cases.h"

#include "absl/strings/str_cat.h"
#include "harness/connection/qp_attr.h"
#include "harness/connection/qp_transitions.h"

namespace rdmacheck {
namespace {

// Every (type, from, to) whose start state exists for the type, legal or not.
template <typename Fn>
void ForEachPair(Fn fn) {
  for (ibv_qp_type type : TableTypes()) {
    for (ibv_qp_state from : QpStates()) {
      if (!StateExists(type, from)) continue;
      for (ibv_qp_state to : QpStates()) fn(type, from, to, RuleFor(type, from, to));
    }
  }
}

// What an AttrChange case changes, in order of preference: attributes every device stores
// and reports back without rounding.
constexpr int kChangePreference[] = {IBV_QP_QKEY, IBV_QP_MIN_RNR_TIMER, IBV_QP_TIMEOUT, IBV_QP_ACCESS_FLAGS};

}  // namespace

const std::vector<ibv_qp_type>& TableTypes() {
  static const std::vector<ibv_qp_type> types = {IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_XRC_SEND,
                                                 IBV_QPT_XRC_RECV};
  return types;
}

std::vector<TransitionCase> LegalCases() {
  std::vector<TransitionCase> cases;
  ForEachPair([&](ibv_qp_type type, ibv_qp_state from, ibv_qp_state to, const TransitionRule& rule) {
    if (rule.legal) cases.push_back({type, from, to, rule.required});
  });
  return cases;
}

std::vector<TransitionCase> MissingAttrCases() {
  std::vector<TransitionCase> cases;
  ForEachPair([&](ibv_qp_type type, ibv_qp_state from, ibv_qp_state to, const TransitionRule& rule) {
    if (!rule.legal) return;
    for (ibv_qp_attr_mask bit : AllAttrBits()) {
      if (rule.required & bit) cases.push_back({type, from, to, bit});
    }
  });
  return cases;
}

std::vector<TransitionCase> ExtraAttrCases() {
  std::vector<TransitionCase> cases;
  ForEachPair([&](ibv_qp_type type, ibv_qp_state from, ibv_qp_state to, const TransitionRule& rule) {
    if (!rule.legal) return;
    int extra = kSettableAttrs & ~rule.allowed();
    // CUR_STATE names the state the QP is in; it is meaningful (and allowed) only where the
    // table lists it, so it is an extra everywhere else, like any other attribute.
    if (extra != 0) cases.push_back({type, from, to, extra});
  });
  return cases;
}

std::vector<TransitionCase> IllegalCases() {
  std::vector<TransitionCase> cases;
  ForEachPair([&](ibv_qp_type type, ibv_qp_state from, ibv_qp_state to, const TransitionRule& rule) {
    if (!rule.legal) cases.push_back({type, from, to, RuleFor(type, UsualPredecessor(to), to).required});
  });
  return cases;
}

std::vector<TransitionCase> AttrChangeCases() {
  std::vector<TransitionCase> cases;
  for (ibv_qp_type type : TableTypes()) {
    for (ibv_qp_state state : {IBV_QPS_INIT, IBV_QPS_RTS, IBV_QPS_SQD}) {
      const TransitionRule rule = RuleFor(type, state, state);
      for (int bit : kChangePreference) {
        if (rule.optional & bit) {
          cases.push_back({type, state, state, bit});
          break;
        }
      }
    }
  }
  return cases;
}

std::string CaseName(const TransitionCase& c, const std::string& suffix) {
  return absl::StrCat(QpTypeName(c.type), "_", QpStateName(c.from), "_to_", QpStateName(c.to), suffix);
}

std::string TransitionName(const ::testing::TestParamInfo<TransitionCase>& info) { return CaseName(info.param); }

std::string MissingAttrName(const ::testing::TestParamInfo<TransitionCase>& info) {
  return CaseName(info.param, absl::StrCat("_without_", AttrMaskNames(info.param.mask)));
}

bool NeedsConnection(ibv_qp_type type, ibv_qp_state state) {
  const bool connected = type != IBV_QPT_UD;
  return connected && (state == IBV_QPS_RTS || state == IBV_QPS_SQD || state == IBV_QPS_SQE);
}

}  // namespace rdmacheck
