// `rdmacheck walk`: a seeded, model-based random walk over one device's verbs.
//
//   WalkResult r = RunWalk(context, selection, {.seed = 42, .steps = 500});
//   // r.findings: every call whose answer the model did not allow, every WR that did not
//   // complete exactly once with the right bytes, every changed canary, every failed teardown.
//
// Each step: the generator (walk/generator.h) picks an action the model (walk/model.h) can
// run, the model predicts the answer, the executor (walk/executor.h) makes the call, the
// answer is checked against the prediction and fed back to the model. After the last step
// everything is destroyed, children first, and each destroy must succeed.
//
// walk.json holds the seed, the device's traits, every action with its outcome, and the
// findings; ReplayWalk runs a recorded list again. walk/isolated.h runs either in a child
// process (a crash or a hang is a finding there) and shrinks a list with a finding down to
// one where no single action can go (walk/shrink.h) while the same finding (by its
// signature) still appears.
#ifndef RDMACHECK_WALK_WALK_H_
#define RDMACHECK_WALK_WALK_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "harness/device.h"
#include "nlohmann/json.hpp"
#include "walk/action.h"
#include "walk/model.h"
#include "walk/shrink.h"

namespace rdmacheck::walk {

struct Finding {
  int step = 0;           // 1-based; 0: teardown
  std::string action;     // Describe() of the step's action
  std::string message;    // one line
  std::string signature;  // the same finding in another walk has the same signature
  std::string expected;   // a known deviation: the reason its expectation gives ("" for none)
};

struct WalkOptions {
  uint64_t seed = 1;
  int steps = 300;
  // When set, the walk also stops after this long (the step under way finishes): a walk
  // of a fixed duration, the steps it took recorded. Two walks of one seed share a prefix.
  absl::Duration time = absl::ZeroDuration();
  Weights weights = DefaultWeights();
  // The control verbs run with kernel allocation failures on (walk/fault_injection.h; the
  // process running the walk armed them): each may also answer ENOMEM, and must then leave
  // its object as it was.
  bool fail_allocations = false;
};

struct StepRecord {
  Action action;
  std::string outcome;  // "ok", "EBUSY", "skipped: no live PD #3"
  std::string verb;     // the call as the model saw it: "modify_qp RC RESET->SQE", "destroy cq"
};

struct WalkResult {
  Traits traits;
  std::vector<StepRecord> steps;
  std::vector<Finding> findings;
  std::vector<Action> actions() const;
};

// What a walk tells as it goes, step by step (walk/isolated.h streams it to the process
// that runs the walk in a child, so that what a crash interrupts is not lost).
class WalkObserver {
 public:
  virtual ~WalkObserver() = default;
  virtual void Started(const Traits& traits) {}
  virtual void Begin(int step, const Action& action) {}                             // before its calls
  virtual void Step(const StepRecord& record, absl::Span<const Finding> found) {}  // after them
  virtual void Teardown() {}                                                        // before the teardown
  virtual void Finished(absl::Span<const Finding> teardown_findings) {}
};

// Generates and runs `options.steps` actions.
WalkResult RunWalk(ibv_context* context, const Selection& selection, const WalkOptions& options,
                   WalkObserver* observer = nullptr);
// Runs `actions` as recorded (each skipped when the model cannot run it).
WalkResult ReplayWalk(ibv_context* context, const Selection& selection, const std::vector<Action>& actions,
                      WalkObserver* observer = nullptr, bool fail_allocations = false);

// The name an expected deviation gives a finding (capabilities/expectations: "test":
// "Walk.modify_qp"): "Walk." and the op of its step, or "Walk.teardown", "Walk.exit",
// "Walk.set-up" for what happened outside the steps.
std::string ExpectationName(const Finding& f);
// Every such name (the expectation files' stale-entry check).
std::vector<std::string> ExpectationNames();

// What the walk reached: per call as the model saw it ("modify_qp RC RESET->SQE", "destroy
// cq", "post_send bad_lkey"), how often each answer came ("success", "EBUSY", "skipped").
// walk.json's "coverage".
nlohmann::json Coverage(const WalkResult& result);

// A finding as walk.json holds it, and back.
nlohmann::json ToJson(const Finding& f);
Finding FindingFromJson(const nlohmann::json& j);

// walk.json. `options` is absent for a replay.
nlohmann::json WalkJson(const std::string& device, const std::optional<WalkOptions>& options, const WalkResult& result);
// The actions of a walk.json (or walk-min.json), and its seed when it has one.
struct RecordedWalk {
  std::optional<uint64_t> seed;
  std::vector<Action> actions;
};
absl::StatusOr<RecordedWalk> ReadWalkJson(const std::string& path);

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_WALK_H_
