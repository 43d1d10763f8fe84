#include "walk/isolated.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/reap.h"
#include "harness/status.h"
#include "harness/timeouts.h"
#include "nlohmann/json.hpp"

namespace rdmacheck::walk {
namespace {

nlohmann::json FindingsJson(absl::Span<const Finding> found) {
  nlohmann::json list = nlohmann::json::array();
  for (const Finding& f : found) list.push_back(ToJson(f));
  return list;
}

// The child's side: each event one JSON line on the pipe.
class PipeObserver : public WalkObserver {
 public:
  explicit PipeObserver(int fd) : fd_(fd) {}
  void Started(const Traits& traits) override { Write({{"started", ToJson(traits)}}); }
  void Begin(int step, const Action& action) override { Write({{"begin", step}, {"action", ToJson(action)}}); }
  void Step(const StepRecord& record, absl::Span<const Finding> found) override {
    Write({{"step", ToJson(record.action)},
           {"outcome", record.outcome},
           {"verb", record.verb},
           {"findings", FindingsJson(found)}});
  }
  void Teardown() override { Write({{"teardown", true}}); }
  void Finished(absl::Span<const Finding> found) override { Write({{"finished", FindingsJson(found)}}); }
  void Error(const std::string& message) { Write({{"error", message}}); }

 private:
  void Write(const nlohmann::json& j) {
    const std::string line = j.dump() + "\n";
    for (size_t done = 0; done < line.size();) {
      const ssize_t n = write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) _exit(3);  // the parent is gone: nobody to tell
      done += static_cast<size_t>(n);
    }
  }
  int fd_;
};

[[noreturn]] void RunChild(int fd, const DeviceOpener& open, const WalkBody& body) {
  PipeObserver observer(fd);
  absl::StatusOr<SelectedDevice> device = open();
  if (!device.ok()) {
    observer.Error(std::string(device.status().message()));
    _exit(2);
  }
  body(device->context.get(), device->selection, observer);
  _exit(0);  // no atexit handlers: the parent owns the run
}

// The parent's side: the result rebuilt from the lines, and where the child was.
struct Stream {
  explicit Stream(const StepWatch& w) : watch(w) {}
  const StepWatch& watch;
  WalkResult result;
  std::optional<std::pair<int, Action>> in_step;  // begun, not yet done
  bool in_teardown = false;
  bool finished = false;
  std::string error;

  void Line(const std::string& text) {
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) return;
    if (j.contains("started")) result.traits = TraitsFromJson(j["started"]);
    if (j.contains("begin")) {
      absl::StatusOr<Action> a = ActionFromJson(j["action"]);
      if (a.ok()) in_step = std::make_pair(j["begin"].get<int>(), *a);
    }
    if (j.contains("step")) {
      absl::StatusOr<Action> a = ActionFromJson(j["step"]);
      if (a.ok()) result.steps.push_back({*a, j.value("outcome", ""), j.value("verb", "")});
      for (const nlohmann::json& f : j["findings"]) result.findings.push_back(FindingFromJson(f));
      if (a.ok() && in_step) Watch(in_step->first, Describe(*a));
      in_step.reset();
    }
    if (j.contains("teardown")) in_teardown = true;
    if (j.contains("finished")) {
      for (const nlohmann::json& f : j["finished"]) result.findings.push_back(FindingFromJson(f));
      Watch(0, "teardown");
      finished = true;
    }
    if (j.contains("error")) error = j["error"].get<std::string>();
  }

  // The watch's findings, on the step just done (0: teardown or exit).
  void Watch(int step, const std::string& action) {
    if (!watch) return;
    for (Finding f : watch()) {
      f.step = step;
      f.action = action;
      result.findings.push_back(std::move(f));
    }
  }

  // The step the child was in when it died or stopped answering: recorded (so walk.json
  // replays it) with `what` as its outcome, and the finding.
  // A crash may owe to a refused destroy before it (a provider that tore its half of the
  // object down before the kernel said EBUSY, and the freed range mapped again by another
  // object since, so the crash may come in a call on another object): the message names the
  // objects whose destroy was refused, first refusal each, "; refused destroys before it:
  // cq#13 at step 32, pd#7 at step 23".
  std::string History() const {
    std::map<int, size_t> refused;  // object -> the step that first refused its destroy
    for (size_t i = 0; i < result.steps.size(); ++i) {
      const StepRecord& r = result.steps[i];
      if (r.action.op == Op::kDestroy && r.outcome != "success" && r.outcome.rfind("skipped", 0) != 0) {
        refused.emplace(r.action.obj, i + 1);
      }
    }
    if (refused.empty()) return "";
    std::vector<std::pair<size_t, int>> by_step;
    for (const auto& [obj, step] : refused) by_step.emplace_back(step, obj);
    std::sort(by_step.rbegin(), by_step.rend());  // the most recent first
    std::vector<std::string> named;
    for (const auto& [step, obj] : by_step) {
      std::string kind;
      for (const StepRecord& c : result.steps) {
        const std::optional<Kind> made = KindCreatedBy(c.action.op);
        if (made && c.action.id == obj) kind = KindName(*made);
      }
      named.push_back(absl::StrCat(kind, "#", obj, " at step ", step));
    }
    return absl::StrCat("; refused destroys before it: ", absl::StrJoin(named, ", "));
  }

  void Interrupted(const std::string& what, const std::string& signature_what) {
    if (in_step) {
      result.steps.push_back({in_step->second, what});
      result.findings.push_back({in_step->first, Describe(in_step->second), what + History(),
                                  absl::StrCat(signature_what, " in ", OpName(in_step->second.op))});
    } else {
      result.findings.push_back({0, in_teardown ? "teardown" : "set-up", what,
                                 absl::StrCat(signature_what, in_teardown ? " in teardown" : " in set-up")});
    }
  }
};

}  // namespace

absl::Duration StepBound() { return Scaled(absl::Seconds(120)); }

absl::StatusOr<WalkResult> RunIsolated(const DeviceOpener& open, const WalkBody& body, absl::Duration step_bound,
                                       const StepWatch& watch) {
  DefaultSigchld sigchld;
  absl::StatusOr<PipedFork> forked = ForkWithPipe();
  if (!forked.ok()) return forked.status();
  const pid_t pid = forked->pid;
  if (pid == 0) RunChild(forked->fd, open, body);
  const int fd = forked->fd;  // the read end
  Stream stream(watch);
  std::string pending;
  bool eof = false, silent = false;
  pollfd p{fd, POLLIN, 0};
  while (!eof) {
    const int ready = poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(step_bound)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      silent = true;
      break;
    }
    char buffer[65536];
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      eof = true;
      break;
    }
    pending.append(buffer, static_cast<size_t>(n));
    for (size_t nl; (nl = pending.find('\n')) != std::string::npos; pending.erase(0, nl + 1)) {
      stream.Line(pending.substr(0, nl));
    }
  }
  close(fd);
  if (silent) {
    std::string what = absl::StrCat("did not return within ", absl::FormatDuration(step_bound), " (the walk's process was killed)");
    if (absl::Status gone = KillAndReap(pid); !gone.ok()) absl::StrAppend(&what, "; ", gone.message());
    stream.Interrupted(what, "hang");
    stream.Watch(0, "exit");  // a hung-task report, say
    return stream.result;
  }
  // The child closed the pipe: it is ending; its exit (closing its verbs files) is bounded too.
  absl::StatusOr<int> exited = ReapWithin(pid, KillReapBound());
  if (absl::IsDeadlineExceeded(exited.status())) {
    std::string what = "the walk's process did not exit after its last step (killed)";
    if (absl::Status gone = KillAndReap(pid); !gone.ok()) absl::StrAppend(&what, "; ", gone.message());
    stream.Interrupted(what, "hang at exit");
    stream.Watch(0, "exit");
    return stream.result;
  }
  if (!exited.ok()) return exited.status();
  if (!stream.error.empty()) return absl::AbortedError(stream.error);
  stream.Watch(0, "exit");  // what closing the child's device file made the kernel report
  if (WIFSIGNALED(*exited)) {
    const int sig = WTERMSIG(*exited);
    const char* name = sigabbrev_np(sig) != nullptr ? sigabbrev_np(sig) : "?";
    stream.Interrupted(absl::StrCat("the walk's process was killed by signal ", sig, " (", name, ")"),
                       absl::StrCat("killed by ", name));
  } else if (!stream.finished) {
    stream.Interrupted(absl::StrCat("the walk's process exited with status ", WEXITSTATUS(*exited),
                                    " before it finished"),
                       "exited early");
  }
  return stream.result;
}

ShrinkResult ShrinkIsolated(const DeviceOpener& open, const std::vector<Action>& actions, const std::string& signature,
                            int max_runs, absl::Duration step_bound, const StepWatch& watch,
                            const Replayer& replay) {
  return Shrink(
      actions,
      [&](const std::vector<Action>& candidate) {
        absl::StatusOr<WalkResult> replayed = RunIsolated(
            open,
            [&](ibv_context* context, const Selection& selection, WalkObserver& observer) {
              return replay ? replay(context, selection, candidate, observer)
                            : ReplayWalk(context, selection, candidate, &observer);
            },
            step_bound, watch);
        if (!replayed.ok()) return false;
        for (const Finding& f : replayed->findings) {
          if (f.signature == signature) return true;
        }
        return false;
      },
      max_runs);
}

}  // namespace rdmacheck::walk
