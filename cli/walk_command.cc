// rdmacheck walk: a seeded, model-based random walk over one device's verbs (walk/walk.h).
//
//   rdmacheck walk --device=rxe0 --seed=42 --steps=500 [--weights=create=3,destroy=2] [--out=DIR]
//   rdmacheck walk --device=rxe0 --replay=out/walk/walk.json
//
// Prints one line per finding and a summary ("walk: seed 42, 500 steps, 0 findings"),
// writes DIR/walk.json (default out/walk) with the seed, every action and its outcome, and
// the findings; on a finding, the action list shrunk to what still shows the first finding
// goes to DIR/walk-min.json (replay it with --replay). A finding the driver's expectation
// file describes ("test": "Walk.<op>"; --expectations, --no_expectations as for `run`) is a
// known deviation: printed and kept, not shrunk, not a failure. Exit 0 clean (or known
// deviations only), 1 findings, 2 bad flags or no device. The walk runs in a child process
// (walk/isolated.h): a provider that kills its caller, or a call that never returns, is a
// finding at its step.
//
// The kernel log is read after every step (runner/kernel_log.h, from here: the walk room
// stays below the runner): a WARN, BUG, oops, KASAN or UBSAN report, lockdep, a hung task or
// an RCU stall is a finding at the step just done, signed by the report's first line without
// what differs between runs, and the reports' lines go to DIR/kernel-log.txt.
#include <unistd.h>

#include <iostream>
#include <optional>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "capabilities/expectations/expectations.h"
#include "capabilities/probes/probe.h"
#include "cli/commands.h"
#include "cli/expectation_flags.h"
#include "harness/files.h"
#include "harness/selection_flags.h"
#include "runner/kernel_log.h"
#include "runner/leak_check.h"
#include "walk/c_reproducer.h"
#include "walk/fault_injection.h"
#include "walk/isolated.h"
#include "walk/walk.h"

ABSL_DECLARE_FLAG(uint64_t, seed);  // cli/fleet_command.cc
ABSL_FLAG(int32_t, steps, 300, "walk: how many actions to take");
ABSL_FLAG(std::string, weights, "",
          "walk: how often each kind of action is chosen, e.g. create=3,destroy=2 (categories: create, destroy, "
          "modify, connect, send, recv, poll, bad_post)");
ABSL_FLAG(std::string, replay, "", "walk: run the actions of this walk.json (or walk-min.json) again, exactly");
ABSL_FLAG(absl::Duration, time, absl::ZeroDuration(),
          "walk: also stop after this long (e.g. 10m; with a large --steps, a walk of a fixed duration)");
ABSL_FLAG(int32_t, fail_alloc, 0,
          "walk: every N-th kernel allocation of the walk's create, destroy and modify_qp calls fails "
          "(a kernel with fault injection: the lab's debug kernel); 0: none");
ABSL_FLAG(int32_t, shrink_runs, 150, "walk: replays the shrinker may spend on a finding (0: do not shrink)");

namespace rdmacheck {
namespace {

constexpr absl::string_view kLeakSignature = "teardown: verbs objects leaked";

// Like a run's (capabilities/expectations: ApplyExpectation), a walk's expectation never
// covers a kernel problem report or a leak: a user's entry broad enough to match one would
// hide a driver bug behind a known deviation.
bool CanBeKnownDeviation(const walk::Finding& f) {
  return !absl::StartsWith(f.signature, "kernel: ") && f.signature != kLeakSignature;
}

// Passes on what the walk tells, and adds the leak check at its end: the verbs objects the
// walk's process holds, as the kernel counts them (runner/leak_check.h), must be back to
// what they were when it started once the teardown destroyed everything. A destroy that
// returned 0 and left its object is found here and nowhere else.
class LeakCheckingObserver : public walk::WalkObserver {
 public:
  explicit LeakCheckingObserver(walk::WalkObserver& next) : next_(next) {}
  void Started(const walk::Traits& traits) override {
    absl::StatusOr<ObjectCounts> counted = CountProcessObjects(getpid());
    if (counted.ok()) baseline_ = *counted;  // no counts (no `rdma`, no netlink): no check
    next_.Started(traits);
  }
  void Begin(int step, const walk::Action& action) override { next_.Begin(step, action); }
  void Step(const walk::StepRecord& record, absl::Span<const walk::Finding> found) override {
    next_.Step(record, found);
  }
  void Teardown() override { next_.Teardown(); }
  void Finished(absl::Span<const walk::Finding> teardown_findings) override {
    std::vector<walk::Finding> all(teardown_findings.begin(), teardown_findings.end());
    if (baseline_) {
      const std::string leak = CheckForLeaks(getpid(), *baseline_, absl::Seconds(2));
      if (!leak.empty()) {
        all.push_back({0, "teardown", absl::StrReplaceAll(leak, {{"after the suite's tests", "after the teardown"}}),
                       std::string(kLeakSignature)});
      }
    }
    next_.Finished(all);
  }

 private:
  walk::WalkObserver& next_;
  std::optional<ObjectCounts> baseline_;
};

}  // namespace

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
  Identity identity;
  {
    absl::StatusOr<SelectedDevice> device = OpenSelectedDevice();
    if (!device.ok()) return UsageError(device.status());
    device_name = device->selection.device;
    absl::StatusOr<Profile> declared = ReadDeclared(device->context.get(), device->selection);
    if (!declared.ok()) return UsageError(declared.status());
    identity = declared->identity;
  }
  absl::StatusOr<std::optional<ExpectationFile>> expectations = SelectedExpectations(identity.driver);
  if (!expectations.ok()) return UsageError(expectations.status());
  // A finding its driver's entry ("test": "Walk.<op>") describes is a known deviation: named,
  // kept in walk.json, not shrunk, and it does not fail the walk.
  auto judge = [&](walk::WalkResult& r) {
    if (!*expectations) return;
    for (walk::Finding& f : r.findings) {
      if (!CanBeKnownDeviation(f)) continue;
      const Expectation* e = FindMatchingExpectation(**expectations, walk::ExpectationName(f), f.message,
                                                     identity.kernel, identity.rdma_core);
      if (e != nullptr) f.expected = e->reason;
    }
  };
  const walk::DeviceOpener open = [] { return OpenSelectedDevice(); };
  const absl::Duration bound = walk::StepBound();
  KernelLog kernel_log;  // from now on
  std::vector<std::string> kernel_lines;
  const walk::StepWatch watch = [&] {
    std::vector<walk::Finding> found;
    for (const KernelProblem& problem : kernel_log.ReadProblems()) {
      if (problem.lines.empty()) continue;
      found.push_back({0, "", absl::StrCat("the kernel logged: ", problem.lines.front()),
                       KernelProblemSignature(problem.lines.front())});
      kernel_lines.insert(kernel_lines.end(), problem.lines.begin(), problem.lines.end());
    }
    return found;
  };

  std::optional<walk::WalkOptions> options;
  const absl::Duration time = absl::GetFlag(FLAGS_time);
  if (time < absl::ZeroDuration()) return UsageError("--time must not be negative");
  // Armed for the whole command: the walk, the shrinker's replays and the minimal list's run.
  const int32_t fail_alloc = absl::GetFlag(FLAGS_fail_alloc);
  std::optional<walk::FaultInjection> faults;
  if (fail_alloc != 0) {
    absl::StatusOr<walk::FaultInjection> armed = walk::FaultInjection::Arm(fail_alloc);
    if (!armed.ok()) return UsageError(armed.status());
    faults.emplace(std::move(*armed));
    std::cout << "walk: every " << fail_alloc << "th kernel allocation of a create, destroy or modify_qp fails\n";
  }
  const bool fail_allocations = faults.has_value();
  if (!recorded) options = walk::WalkOptions{absl::GetFlag(FLAGS_seed), steps, time, *weights, fail_allocations};
  const walk::Replayer replay_checked = [fail_allocations](ibv_context* context, const Selection& selection,
                                                           const std::vector<walk::Action>& actions,
                                                           walk::WalkObserver& observer) {
    LeakCheckingObserver checked(observer);
    return walk::ReplayWalk(context, selection, actions, &checked, fail_allocations);
  };
  absl::StatusOr<walk::WalkResult> ran = walk::RunIsolated(
      open,
      [&](ibv_context* context, const Selection& selection, walk::WalkObserver& observer) {
        if (recorded) return replay_checked(context, selection, recorded->actions, observer);
        LeakCheckingObserver checked(observer);
        return walk::RunWalk(context, selection, *options, &checked);
      },
      bound, watch);
  if (!ran.ok()) return UsageError(ran.status());
  judge(*ran);
  const walk::WalkResult& result = *ran;
  std::vector<const walk::Finding*> unknown;
  for (const walk::Finding& f : result.findings) {
    if (f.expected.empty()) unknown.push_back(&f);
  }
  const std::vector<std::string> walk_kernel_lines = kernel_lines;  // the shrinker's replays log theirs again
  for (const walk::Finding& f : result.findings) {
    std::cout << "walk: " << (f.step > 0 ? absl::StrCat("step ", f.step, " (", f.action, ")") : f.action) << ": "
              << (f.expected.empty() ? "" : "known deviation: ") << f.message << "\n";
  }
  const std::string path = out + "/walk.json";
  if (absl::Status written = WriteFile(path, walk::WalkJson(device_name, options, result).dump(2) + "\n");
      !written.ok()) {
    return UsageError(written);
  }
  if (!unknown.empty() && shrink_runs > 0) {
    const walk::Finding& first = *unknown.front();
    walk::ShrinkResult shrunk = walk::ShrinkIsolated(open, result.actions(), first.signature, shrink_runs, bound, watch,
                                                     replay_checked);
    absl::StatusOr<walk::WalkResult> minimal = walk::RunIsolated(
        open,
        [&](ibv_context* context, const Selection& selection, walk::WalkObserver& observer) {
          return replay_checked(context, selection, shrunk.actions, observer);
        },
        bound, watch);
    if (!minimal.ok()) return UsageError(minimal.status());
    judge(*minimal);
    const std::string min_path = out + "/walk-min.json";
    if (absl::Status written = WriteFile(min_path, walk::WalkJson(device_name, std::nullopt, *minimal).dump(2) + "\n");
        !written.ok()) {
      return UsageError(written);
    }
    std::cout << "walk: \"" << first.signature << "\" shrunk to " << shrunk.actions.size() << " of "
              << result.steps.size() << " actions in " << shrunk.runs << " replays"
              << (shrunk.out_of_budget ? " (budget spent: smaller, maybe not minimal)" : "") << " -> " << min_path
              << "\n";
    // The same list as a C program for an upstream report, where it can be one.
    absl::StatusOr<std::string> c = walk::CReproducer(shrunk.actions, device_name, first.message);
    if (c.ok()) {
      const std::string c_path = out + "/walk-min.c";
      if (absl::Status written = WriteFile(c_path, *c); !written.ok()) return UsageError(written);
      std::cout << "walk: a C reproducer of it (cc -o repro " << c_path << " -libverbs) -> " << c_path << "\n";
    } else {
      std::cout << "walk: no C reproducer: " << c.status().message() << "\n";
    }
  }
  if (!walk_kernel_lines.empty()) {
    if (absl::Status written = WriteFile(out + "/kernel-log.txt", absl::StrJoin(walk_kernel_lines, "\n") + "\n");
        !written.ok()) {
      return UsageError(written);
    }
  }
  // What the walk reached, in one line (walk.json "coverage" has each call and its answers).
  int calls = 0, moves_accepted = 0, moves_refused = 0;
  const nlohmann::json coverage = walk::Coverage(result);
  for (const auto& [verb, answers] : coverage.items()) {
    ++calls;
    if (verb.rfind("modify_qp ", 0) != 0) continue;
    moves_accepted += answers.contains("success");
    for (const auto& [answer, n] : answers.items()) {
      if (answer != "success" && answer != "skipped") {
        ++moves_refused;
        break;
      }
    }
  }
  std::cout << "walk: reached " << calls << " distinct calls; " << moves_accepted << " QP moves accepted, "
            << moves_refused << " refused (walk.json: coverage)\n";
  if (!kernel_log.readable()) std::cout << "walk: the kernel log was " << kernel_log.Describe() << "\n";
  std::cout << "walk: " << (recorded ? absl::StrCat("replay of ", replay) : absl::StrCat("seed ", options->seed)) << ", "
            << result.steps.size() << " steps, " << unknown.size() << " finding" << (unknown.size() == 1 ? "" : "s")
            << (unknown.size() < result.findings.size()
                    ? absl::StrCat(" and ", result.findings.size() - unknown.size(), " known deviation",
                                   result.findings.size() - unknown.size() == 1 ? "" : "s", " (",
                                   ExpectationsInUse(*expectations), ")")
                    : "")
            << " -> " << path << std::endl;
  return unknown.empty() ? kExitOk : kExitFailures;
}

}  // namespace rdmacheck
