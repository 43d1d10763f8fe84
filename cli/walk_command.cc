// rdmacheck walk: a seeded, model-based random walk over one device's verbs (walk/walk.h).
//
//   rdmacheck walk --device=rxe0 --seed=42 --steps=500 [--weights=create=3,destroy=2] [--out=DIR]
//   rdmacheck walk --device=rxe0 --replay=out/walk/walk.json
//
// Prints one line per finding and a summary ("walk: seed 42, 500 steps, 0 findings"),
// writes DIR/walk.json (default out/walk) with the seed, every action and its outcome, and
// the findings; on a finding, the action list shrunk to what still shows the first finding
// goes to DIR/walk-min.json (replay it with --replay). Exit 0 clean, 1 findings, 2 bad flags
// or no device. The walk runs in a child process (walk/isolated.h): a provider that kills
// its caller, or a call that never returns, is a finding at its step.
//
// The kernel log is not read here: its reader lives in runner/ (runner/kernel_log.h) and
// the walk room stays below the runner; `dmesg` after a walk is the manual check for now.
#include <iostream>
#include <optional>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "harness/files.h"
#include "harness/selection_flags.h"
#include "walk/isolated.h"
#include "walk/walk.h"

ABSL_DECLARE_FLAG(uint64_t, seed);  // cli/fleet_command.cc
ABSL_FLAG(int32_t, steps, 300, "walk: how many actions to take");
ABSL_FLAG(std::string, weights, "",
          "walk: how often each kind of action is chosen, e.g. create=3,destroy=2 (categories: create, destroy, "
          "modify, connect, send, recv, poll, bad_post)");
ABSL_FLAG(std::string, replay, "", "walk: run the actions of this walk.json (or walk-min.json) again, exactly");
ABSL_FLAG(int32_t, shrink_runs, 150, "walk: replays the shrinker may spend on a finding (0: do not shrink)");

namespace rdmacheck {

int WalkCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError(absl::StrCat("walk takes no arguments (got '", positional[0], "')"));
  const int32_t steps = absl::GetFlag(FLAGS_steps);
  if (steps < 1 || steps > 1000000) return UsageError(absl::StrCat("--steps=", steps, ": must be 1..1000000"));
  const int32_t shrink_runs = absl::GetFlag(FLAGS_shrink_runs);
  if (shrink_runs < 0) return UsageError("--shrink_runs must be 0 or more");
  absl::StatusOr<walk::Weights> weights = walk::ParseWeights(absl::GetFlag(FLAGS_weights));
  if (!weights.ok()) return UsageError(weights.status());
  const std::string replay = absl::GetFlag(FLAGS_replay);
  std::optional<walk::RecordedWalk> recorded;
  if (!replay.empty()) {
    absl::StatusOr<walk::RecordedWalk> read = walk::ReadWalkJson(replay);
    if (!read.ok()) return UsageError(read.status());
    recorded = *std::move(read);
  }
  std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) out = "out/walk";

  // The device is opened here only to refuse a wrong one with one line; every walk, replay
  // and shrink runs in a child that opens it again (walk/isolated.h).
  std::string device_name;
  {
    absl::StatusOr<SelectedDevice> device = OpenSelectedDevice();
    if (!device.ok()) return UsageError(device.status());
    device_name = device->selection.device;
  }
  const walk::DeviceOpener open = [] { return OpenSelectedDevice(); };
  const absl::Duration bound = walk::StepBound();

  std::optional<walk::WalkOptions> options;
  if (!recorded) options = walk::WalkOptions{absl::GetFlag(FLAGS_seed), steps, *weights};
  absl::StatusOr<walk::WalkResult> ran = walk::RunIsolated(
      open,
      [&](ibv_context* context, const Selection& selection, walk::WalkObserver& observer) {
        return recorded ? walk::ReplayWalk(context, selection, recorded->actions, &observer)
                        : walk::RunWalk(context, selection, *options, &observer);
      },
      bound);
  if (!ran.ok()) return UsageError(ran.status());
  const walk::WalkResult& result = *ran;
  for (const walk::Finding& f : result.findings) {
    std::cout << "walk: " << (f.step > 0 ? absl::StrCat("step ", f.step, " (", f.action, ")") : f.action) << ": "
              << f.message << "\n";
  }
  const std::string path = out + "/walk.json";
  if (absl::Status written = WriteFile(path, walk::WalkJson(device_name, options, result).dump(2) + "\n");
      !written.ok()) {
    return UsageError(written);
  }
  if (!result.findings.empty() && shrink_runs > 0) {
    const walk::Finding& first = result.findings.front();
    walk::ShrinkResult shrunk = walk::ShrinkIsolated(open, result.actions(), first.signature, shrink_runs, bound);
    absl::StatusOr<walk::WalkResult> minimal = walk::RunIsolated(
        open,
        [&](ibv_context* context, const Selection& selection, walk::WalkObserver& observer) {
          return walk::ReplayWalk(context, selection, shrunk.actions, &observer);
        },
        bound);
    if (!minimal.ok()) return UsageError(minimal.status());
    const std::string min_path = out + "/walk-min.json";
    if (absl::Status written = WriteFile(min_path, walk::WalkJson(device_name, std::nullopt, *minimal).dump(2) + "\n");
        !written.ok()) {
      return UsageError(written);
    }
    std::cout << "walk: \"" << first.signature << "\" shrunk to " << shrunk.actions.size() << " of "
              << result.steps.size() << " actions in " << shrunk.runs << " replays"
              << (shrunk.out_of_budget ? " (budget spent: smaller, maybe not minimal)" : "") << " -> " << min_path
              << "\n";
  }
  std::cout << "walk: " << (recorded ? absl::StrCat("replay of ", replay) : absl::StrCat("seed ", options->seed)) << ", "
            << result.steps.size() << " steps, " << result.findings.size() << " finding"
            << (result.findings.size() == 1 ? "" : "s") << " -> " << path << std::endl;
  return result.findings.empty() ? kExitOk : kExitFailures;
}

}  // namespace rdmacheck
