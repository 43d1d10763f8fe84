#include "walk/shrink.h"

#include <algorithm>

namespace rdmacheck::walk {

ShrinkResult Shrink(std::vector<Action> actions, const std::function<bool(const std::vector<Action>&)>& reproduces,
                    int max_runs) {
  ShrinkResult result;
  size_t chunks = 2;
  while (actions.size() >= 2) {
    const size_t size = actions.size();
    chunks = std::min(chunks, size);
    bool dropped = false;
    for (size_t i = 0; i < chunks; ++i) {
      const size_t begin = i * size / chunks, end = (i + 1) * size / chunks;
      std::vector<Action> rest(actions.begin(), actions.begin() + begin);
      rest.insert(rest.end(), actions.begin() + end, actions.end());
      if (result.runs >= max_runs) {
        result.out_of_budget = true;
        result.actions = std::move(actions);
        return result;
      }
      ++result.runs;
      if (reproduces(rest)) {
        actions = std::move(rest);
        chunks = std::max<size_t>(chunks - 1, 2);
        dropped = true;
        break;
      }
    }
    if (dropped) continue;
    if (chunks >= size) break;  // no single action can go: 1-minimal
    chunks = std::min(chunks * 2, size);
  }
  // A single action may still be droppable on its own.
  if (actions.size() == 1 && result.runs < max_runs) {
    ++result.runs;
    if (reproduces({})) actions.clear();
  }
  result.actions = std::move(actions);
  return result;
}

}  // namespace rdmacheck::walk
