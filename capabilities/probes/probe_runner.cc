#include "capabilities/probes/probe_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <iostream>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "capabilities/declared/declared_support.h"
#include "capabilities/probes/refusal.h"
#include "harness/reap.h"
#include "harness/status.h"
#include "harness/timeouts.h"

namespace rdmacheck {
namespace {

ProbeReport AllBroken(const std::vector<Cap>& caps, int err, const std::string& detail) {
  ProbeReport report;
  for (Cap cap : caps) report.observed[cap] = {Outcome::kBroken, err, detail};
  return report;
}

std::string ReportToText(const ProbeReport& report) {
  return nlohmann::json{{"observed", ObservedToJson(report.observed)},
                        {"measured", MeasuredToJson(report.measured)},
                        {"quirks", report.quirks}}
      .dump();
}

std::optional<ProbeReport> ReportFromText(const std::string& text) {
  nlohmann::json json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return std::nullopt;
  try {
    ProbeReport report;
    absl::StatusOr<std::map<Cap, Observation>> observed = ObservedFromJson(json.at("observed"));
    if (!observed.ok()) return std::nullopt;
    report.observed = *std::move(observed);
    report.measured = MeasuredFromJson(json.at("measured"));
    report.quirks = json.at("quirks").get<std::vector<Quirk>>();
    return report;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

void WriteAll(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += n;
  }
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? absl::StrCat("SIG", abbrev) : absl::StrCat("signal ", sig);
}

// The child's side: run, report, and leave without running the parent's atexit handlers.
[[noreturn]] void ChildMain(int out_fd, const std::vector<Cap>& caps, const std::function<ProbeReport()>& body) {
  // Providers print diagnostics on stdout ("validate send failed"); keep them out of the
  // parent's output, which may be the profile itself.
  dup2(STDERR_FILENO, STDOUT_FILENO);
  ProbeReport report;
  try {
    report = body();
  } catch (const std::exception& e) {
    report = AllBroken(caps, 0, absl::StrCat("probe threw: ", e.what()));
  }
  WriteAll(out_fd, ReportToText(report));
  close(out_fd);
  fflush(nullptr);
  _exit(0);
}

}  // namespace

ProbeScope::ProbeScope(ibv_context* context, const ProbeInput& input) : context_(context), input_(input) {
  // The parent read the same attributes already; null (unit tests) leaves them zero.
  if (context != nullptr) ibv_query_device_ex(context, nullptr, &attr_);
}

void ProbeScope::Tried(Cap cap, const absl::Status& result, absl::string_view supported_detail) {
  if (result.ok()) {
    Record(cap, Outcome::kSupported, 0, std::string(supported_detail));
    return;
  }
  std::optional<DeclaredHint> hint = DeclaredSupport(declared(), port(), cap);
  std::string detail(result.message());
  int err = ErrnoOf(result).value_or(0);
  if (err < 0) {
    err = -err;
    absl::StrAppend(&detail, " = -", ErrnoName(err), ", a negative errno");
    NoteQuirk(CapName(cap), absl::StrCat("the failing verb returned -", ErrnoName(err),
                                         "; verbs return positive errno values (e.g. ibv_post_send(3))"));
  }
  if (hint && hint->declared) {
    Record(cap, Outcome::kBroken, err, absl::StrCat("declared (", hint->evidence, "), but ", detail));
  } else if (hint) {
    Record(cap, Outcome::kUnsupported, err, absl::StrCat("not declared (", hint->evidence, "): ", detail));
  } else if (IsRefusal(result, cap)) {
    Record(cap, Outcome::kUnsupported, err, absl::StrCat("refused: ", detail));
  } else {
    Record(cap, Outcome::kBroken, err, absl::StrCat("accepted, then failed: ", detail));
  }
}

void ProbeScope::Record(Cap cap, Outcome outcome, int err, std::string detail) {
  report_.observed[cap] = {outcome, err, std::move(detail)};
}

void ProbeScope::Measure(const std::string& name, int64_t value, std::string detail) {
  report_.measured[name] = {value, std::move(detail)};
}

void ProbeScope::NoteQuirk(std::string topic, std::string text) {
  report_.quirks.push_back({std::move(topic), std::move(text)});
}

ProbeReport RunInChild(const std::vector<Cap>& caps, absl::Duration limit, const std::function<ProbeReport()>& body) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return AllBroken(caps, errno, absl::StrCat("pipe: ", strerror(errno)));
  std::cout.flush();
  fflush(nullptr);  // or the child would print the parent's buffered output again
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    close(fds[0]);
    close(fds[1]);
    return AllBroken(caps, err, absl::StrCat("fork: ", strerror(err)));
  }
  if (pid == 0) {
    close(fds[0]);
    ChildMain(fds[1], caps, body);
  }
  close(fds[1]);

  // Read the report until the child closes the pipe or the time is up.
  const absl::Time deadline = absl::Now() + limit;
  std::string text;
  bool timed_out = false;
  char buffer[4096];
  while (true) {
    int wait_ms = static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()));
    if (wait_ms <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int ready = poll(&p, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      timed_out = true;
      break;
    }
    ssize_t n = read(fds[0], buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, n);
  }
  close(fds[0]);

  // Reap the child; one that does not leave in time (stuck tearing down) is killed, and one
  // that outlives that (stuck in the driver) is named, not waited for.
  int status = 0;
  if (!timed_out) {
    absl::StatusOr<int> exited = ReapWithin(pid, absl::Seconds(5));
    timed_out = absl::IsDeadlineExceeded(exited.status());
    status = exited.value_or(0);
  }
  if (timed_out) {
    std::string detail = absl::StrFormat("probe timed out after %s", absl::FormatDuration(limit));
    if (absl::Status gone = KillAndReap(pid); !gone.ok()) absl::StrAppend(&detail, "; ", gone.message());
    return AllBroken(caps, ETIMEDOUT, detail);
  }
  if (WIFSIGNALED(status)) {
    return AllBroken(caps, 0, absl::StrCat("probe crashed: ", SignalName(WTERMSIG(status))));
  }
  std::optional<ProbeReport> report = ReportFromText(text);
  if (!report) {
    return AllBroken(caps, 0, absl::StrCat("probe exited (status ", WEXITSTATUS(status), ") without a report"));
  }
  for (Cap cap : caps) {
    if (!report->observed.count(cap)) report->observed[cap] = {Outcome::kBroken, 0, "the probe recorded nothing"};
  }
  return *std::move(report);
}

ProbeReport RunIsolated(const ProbeSpec& spec, const ProbeInput& input) {
  return RunInChild(spec.caps, Scaled(spec.budget), [&]() -> ProbeReport {
    absl::StatusOr<ContextPtr> context = OpenDevice(input.selection.device);
    if (!context.ok()) {
      return AllBroken(spec.caps, ErrnoOf(context.status()).value_or(0),
                       absl::StrCat("probe could not open the device: ", context.status().message()));
    }
    ProbeReport report;
    {
      ProbeScope scope(context->get(), input);
      absl::Status status = spec.run(scope);
      for (Cap cap : spec.caps) {
        if (scope.Has(cap)) continue;
        scope.Record(cap, Outcome::kBroken, ErrnoOf(status).value_or(0),
                     status.ok() ? "the probe recorded nothing"
                                 : absl::StrCat("probe ", spec.name, " failed: ", status.message()));
      }
      report = std::move(scope.report());
    }
    return report;
  });
}

}  // namespace rdmacheck
