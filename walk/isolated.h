// A walk in a child process, so that what kills a process is a finding, not the end of the
// walk: a provider library that crashes on a legal sequence (SIGSEGV, SIGFPE inside
// ibv_poll_cq or ibv_post_recv), or a call that never returns (a driver stuck in the
// kernel), is reported at the step it happened in, and the steps before it are kept, so
// walk.json replays it and the shrinker cuts it down like any other finding.
//
//   WalkResult r = RunIsolated(open_device, [&](ibv_context* c, const Selection& s, WalkObserver& o) {
//     return RunWalk(c, s, options, &o);
//   }, StepBound());
//
// The child opens the device itself (`open`): objects it creates die with it and never
// burden the parent's context. It streams what it does (walk.h WalkObserver) to the parent
// one JSON line at a time; the parent rebuilds the result from the stream alone.
#ifndef RDMACHECK_WALK_ISOLATED_H_
#define RDMACHECK_WALK_ISOLATED_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/selection_flags.h"
#include "walk/walk.h"

namespace rdmacheck::walk {

using DeviceOpener = std::function<absl::StatusOr<SelectedDevice>()>;
using WalkBody = std::function<WalkResult(ibv_context*, const Selection&, WalkObserver&)>;

// What the process running the walk checks after each of the child's steps, after its
// teardown and after it exited: findings the child cannot see (cli/walk_command.cc reads
// the kernel log through runner/kernel_log.h, which lives above this room). Each finding
// is added to the step just done (a kernel report logged later, from a work queue, lands on
// a later step); its signature must not depend on the step.
using StepWatch = std::function<std::vector<Finding>()>;

// How long one step (or the teardown) may take before it is a hang: 120 s, scaled
// (harness/timeouts.h). A step's own waits are bounded well below it (a pair's flushes:
// LocalEventWait(); the teardown's: DefaultWait()).
absl::Duration StepBound();

// Runs `body` on the device `open` gives, in a forked child. A child killed by a signal adds
// the finding "killed by signal 11 (SEGV)" to the step it began last (signature "killed by
// SEGV in <op>"); a step silent for `step_bound` adds "did not return within ..." (the
// child is killed and reaped, harness/reap.h). ABORTED when the child could not open the
// device or start.
absl::StatusOr<WalkResult> RunIsolated(const DeviceOpener& open, const WalkBody& body, absl::Duration step_bound,
                                       const StepWatch& watch = nullptr);

// How a candidate list runs in the child: ReplayWalk, or the caller's checks around it (the
// CLI's leak check, which needs runner/); nullptr: ReplayWalk alone.
using Replayer = std::function<WalkResult(ibv_context*, const Selection&, const std::vector<Action>&, WalkObserver&)>;

// The shortest list found that still shows `signature` (walk/shrink.h), each candidate
// replayed in a child of its own: a crash or a hang shrinks like any other finding.
ShrinkResult ShrinkIsolated(const DeviceOpener& open, const std::vector<Action>& actions, const std::string& signature,
                            int max_runs, absl::Duration step_bound, const StepWatch& watch = nullptr,
                            const Replayer& replay = nullptr);

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_ISOLATED_H_
