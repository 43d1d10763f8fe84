// Delta debugging (Zeller's ddmin, complements only) of an action list: drops chunks of
// actions, halving the chunk size when no chunk can go, and keeps every shorter list that
// still reproduces. The result is 1-minimal: dropping any single action loses the finding.
//
//   ShrinkResult r = Shrink(actions, [&](const std::vector<Action>& candidate) {
//     return RunOnDevice(candidate).HasFinding(signature);
//   });
//
// Actions name their objects (walk/action.h), so a list with a create dropped stays
// meaningful: the actions on that object are skipped when run.
#ifndef RDMACHECK_WALK_SHRINK_H_
#define RDMACHECK_WALK_SHRINK_H_

#include <functional>
#include <vector>

#include "walk/action.h"

namespace rdmacheck::walk {

struct ShrinkResult {
  std::vector<Action> actions;
  int runs = 0;                  // calls of the predicate
  bool out_of_budget = false;    // stopped at max_runs: smaller, maybe not minimal
};

// `reproduces` must hold for `actions` itself (not checked: one run fewer).
ShrinkResult Shrink(std::vector<Action> actions, const std::function<bool(const std::vector<Action>&)>& reproduces,
                    int max_runs = 300);

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_SHRINK_H_
