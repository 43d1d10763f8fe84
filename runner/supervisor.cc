#include "runner/supervisor.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/reap.h"
#include "runner/events.h"
#include "runner/kernel_log.h"
#include "runner/leak_check.h"

namespace rdmacheck {
namespace {

pid_t Spawn(const ChildOptions& options, const std::vector<std::string>& extra, const std::string& log) {
  std::vector<std::string> args = options.args;
  args.insert(args.end(), extra.begin(), extra.end());
  if (options.fork_server != nullptr) {
    if (absl::StatusOr<pid_t> pid = options.fork_server->Spawn(args, log); pid.ok()) return *pid;
  }  // else, or if the server failed, an exec of the binary (slower, the same child)
  std::vector<std::string> argv_strings = {options.executable};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = fork();
  if (pid != 0) return pid;
  AttachChildOutput(log);
  execv(argv[0], argv.data());
  _exit(127);
}

std::string DescribeExit(int wstatus) {
  if (WIFSIGNALED(wstatus)) {
    int sig = WTERMSIG(wstatus);
    return absl::StrCat("crashed: signal ", sig, " (", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", ")");
  }
  if (WEXITSTATUS(wstatus) == kChildFailedOutsideTests) {
    return "GoogleTest reported a failure outside every test (RUN_ALL_TESTS() failed: SetUpTestSuite, "
           "TearDownTestSuite or an environment; no test's result carries it)";
  }
  return absl::StrCat("child process exited with status ", WEXITSTATUS(wstatus));
}

double MillisSince(absl::Time t) { return absl::ToDoubleMilliseconds(absl::Now() - t); }

TestResult SuiteFailure(const std::string& suite, const char* name, std::string message) {
  TestResult r;
  r.suite = suite;
  r.name = name;
  r.status = TestStatus::kFail;
  r.abnormal = true;  // a crash, a hang or a missing check: no expectation covers it
  r.message = std::move(message);
  return r;
}

// Two-host mode: a failing result has the peer checked before it is recorded. The child
// runs on meanwhile: stopping it (SIGSTOP) interrupts whatever blocking call it is in, and
// siw's rdma_connect then breaks (its in-kernel TCP connect returns -ERESTARTSYS after the
// handshake, siw closes the connection, the restarted connect from the same port is refused
// by the peer: measured, 2 of 10 wire-lab runs). What the child reports during the check is
// read only after it; when the peer is gone it is never recorded (the run stops).
// False: the peer did not answer (`result` says so now).
bool PeerAnswers(const ChildOptions& options, TestResult& result, pid_t /*child*/) {
  if (options.peer_watch == nullptr || result.status != TestStatus::kFail) return true;
  return options.peer_watch->AfterResult(result);
}

}  // namespace

SuiteOutcome RunSuite(const SuitePlan& plan, const ChildOptions& options) {
  SuiteOutcome outcome;
  const absl::Time suite_start = absl::Now();
  const std::string stem = absl::StrCat(options.log_dir, "/", plan.log_name.empty() ? plan.suite : plan.log_name);
  const std::string log = absl::StrCat(stem, ".log");
  std::set<std::string> done;
  std::optional<TestResult> leak_check;  // kLeakCheckTest, recorded after the tests
  // Records `r`, `child` the running child (0: none); false when the peer is gone: stop.
  auto record = [&](TestResult r, pid_t child) {
    const bool go_on = PeerAnswers(options, r, child);
    done.insert(r.name);
    if (options.on_result) options.on_result(r);
    outcome.results.push_back(std::move(r));
    return go_on;
  };

  while (done.size() < plan.tests.size() && !RunStopping(options)) {
    std::vector<std::string> remaining;
    for (const std::string& t : plan.tests) {
      if (!done.count(t)) remaining.push_back(t);
    }
    const std::string events = absl::StrCat(stem, ".", outcome.processes, ".events");
    unlink(events.c_str());
    ++outcome.processes;
    pid_t pid = Spawn(options,
                      {absl::StrCat("--events=", events), absl::StrCat("--gtest_filter=", absl::StrJoin(remaining, ":"))},
                      log);
    EventReader reader(events);
    std::string running;  // the test the child is in, "" between tests
    absl::Time running_since = absl::Now();
    int64_t running_start_us = 0;  // its window's start (kernel_log.h)
    std::string fatal;
    int wstatus = 0;
    bool exited = false, killed = false, leak_checked = false, abandoned = false;
    std::string last_test;  // the last test this child ended
    std::string stuck;  // "; process N did not exit ... after SIGKILL: state D ..." (reap.h), else ""
    auto kill_child = [&] {
      if (absl::Status gone = KillAndReap(pid); !gone.ok()) stuck = absl::StrCat("; ", gone.message());
    };
    while (true) {
      for (TestEvent& e : reader.ReadNew()) {
        if (e.kind == TestEvent::Kind::kStart) {
          running = e.name;
          running_since = absl::Now();
          running_start_us = e.start_us;
        } else if (e.kind == TestEvent::Kind::kEnd && e.name == kLeakCheckTest) {
          leak_checked = true;
          // One leak check per child; the suite keeps a failing one over a passing one.
          if (!leak_check || e.status == TestStatus::kFail) {
            leak_check.emplace();
            leak_check->suite = plan.suite;
            leak_check->name = e.name;
            leak_check->status = e.status;
            leak_check->message = e.message;
            leak_check->abnormal = e.status == TestStatus::kFail;
            leak_check->duration_ms = e.duration_ms;
          }
        } else if (e.kind == TestEvent::Kind::kEnd) {
          TestResult r;
          r.suite = plan.suite;
          r.name = e.name;
          r.status = e.status;
          r.message = e.message;
          r.capability = e.capability;
          r.duration_ms = e.duration_ms;
          r.setup_ms = e.setup_ms;
          r.peer_pairs = e.peer_pairs;
          r.start_us = e.start_us;
          r.end_us = e.end_us;
          r.traffic = std::move(e.traffic);
          if (!record(std::move(r), exited ? 0 : pid)) break;
          last_test = e.name;
          running.clear();
          running_since = absl::Now();
        } else {
          fatal = e.message;
        }
      }
      if (RunStopping(options)) {  // the peer is gone (found here or by another supervisor)
        if (!exited) kill_child();
        abandoned = true;  // what it was running, and what it had not run, are not run
        break;
      }
      if (exited) break;
      if (waitpid(pid, &wstatus, WNOHANG) == pid) {
        exited = true;  // read the last events once more, then stop
        continue;
      }
      // Between tests the child gets the watchdog's time to start the next one; after its
      // last one, the teardown's (closing a device and counting objects take seconds).
      const bool tearing_down = running.empty() && done.size() == plan.tests.size();
      if (absl::Now() - running_since > (tearing_down ? options.teardown_timeout : options.test_timeout)) {
        kill_child();
        killed = true;
        exited = true;
        continue;
      }
      usleep(20 * 1000);
    }
    if (abandoned) {  // the tests are not run; a child stuck in the driver is still a finding
      if (!stuck.empty()) {
        record(SuiteFailure(plan.suite, kChildEndTest,
                            absl::StrCat("killed as the run stopped", stuck, "; child output in ", log)),
               0);
      }
      break;
    }

    const bool all_done = running.empty() && done.size() == plan.tests.size();
    if (all_done) {  // the child's end, after its last test
      const std::string after = absl::StrCat("after its last test (", last_test.empty() ? "none" : last_test, ")");
      if (killed) {
        record(SuiteFailure(plan.suite, kChildEndTest,
                            absl::StrCat("the child hung ", after, ": not gone ", absl::FormatDuration(options.teardown_timeout),
                                         " later (closing the device or the leak check), killed", stuck,
                                         "; child output in ", log)),
               0);
      } else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
        record(SuiteFailure(plan.suite, kChildEndTest,
                            absl::StrCat(DescribeExit(wstatus), " ", after, "; child output in ", log)),
               0);
      }
      if (!leak_checked && !killed && WIFEXITED(wstatus)) {
        TestResult r = SuiteFailure(plan.suite, kLeakCheckTest,
                                    absl::StrCat("no leak check came back from child ", outcome.processes, " ", after,
                                                 ": the release of its verbs objects is unproven"));
        if (!leak_check || leak_check->status != TestStatus::kFail) leak_check = std::move(r);
      }
      continue;
    }
    std::string why = killed ? absl::StrCat("timed out: no result after ", absl::FormatDuration(options.test_timeout),
                                            " (watchdog; see --test_timeout)", stuck)
                             : DescribeExit(wstatus);
    if (!running.empty() && !done.count(running)) {
      TestResult r;
      r.suite = plan.suite;
      r.name = running;
      r.status = TestStatus::kFail;
      r.abnormal = true;
      r.message = absl::StrCat(why, " while running this test; child output in ", log);
      r.duration_ms = MillisSince(running_since);
      r.start_us = running_start_us;
      r.end_us = MonotonicMicros();
      record(std::move(r), 0);
      continue;  // a new child runs what is left (unless the peer is gone)
    }
    if (done.size() < plan.tests.size()) {
      // The child ended between tests without running the rest: it will not do better
      // next time, so every test left fails with the reason.
      std::string reason = fatal.empty() ? absl::StrCat(why, " before running this test; child output in ", log)
                                         : absl::StrCat("could not run: ", fatal);
      for (const std::string& t : remaining) {
        if (done.count(t)) continue;
        TestResult r;
        r.suite = plan.suite;
        r.name = t;
        r.status = TestStatus::kFail;
        r.abnormal = true;
        r.message = reason;
        if (!record(std::move(r), 0)) break;  // the peer is gone: the rest are not run
      }
    }
  }
  if (leak_check) record(*std::move(leak_check), 0);
  outcome.duration_ms = MillisSince(suite_start);
  return outcome;
}

}  // namespace rdmacheck
