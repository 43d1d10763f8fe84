// The end of a child is judged (issue 30.5): after its last test, a child that hangs or
// crashes in teardown, exits non-zero, or sends no leak check fails the suite. The
// children here are shell scripts that write the events a real child would, then end
// the way a broken teardown (ibv_close_device, the leak check) would.
#include "runner/supervisor.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runner/events.h"
#include "runner/leak_check.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Not;

// A child that reports T.a passed, then (maybe) the leak check, then runs `ending`.
class ScriptedChild {
 public:
  ScriptedChild(bool leak_check, const std::string& ending) {
    char dir_template[] = "/tmp/rdmacheck-supervisor-XXXXXX";
    dir_ = mkdtemp(dir_template);
    TestEvent start;
    start.kind = TestEvent::Kind::kStart;
    start.name = "T.a";
    TestEvent end = start;
    end.kind = TestEvent::Kind::kEnd;
    TestEvent leak = end;
    leak.name = kLeakCheckTest;
    std::string events = EncodeEvent(start) + "\n" + EncodeEvent(end) + "\n";
    if (leak_check) events += EncodeEvent(leak) + "\n";
    script_ = dir_ + "/child.sh";
    std::ofstream(dir_ + "/events.txt") << events;
    std::ofstream(script_) << "#!/bin/sh\n"
                           << "for a; do case $a in --events=*) out=${a#--events=};; esac; done\n"
                           << "cat " << dir_ << "/events.txt >> \"$out\"\n"
                           << ending << "\n";
    chmod(script_.c_str(), 0755);
  }
  ~ScriptedChild() { std::system(absl::StrCat("rm -rf ", dir_).c_str()); }

  SuiteOutcome Run() const {
    ChildOptions options;
    options.executable = script_;
    options.log_dir = dir_;
    options.test_timeout = absl::Seconds(30);
    options.teardown_timeout = absl::Milliseconds(500);
    return RunSuite({"s", {"T.a"}, ""}, options);
  }

 private:
  std::string dir_, script_;
};

auto Failed(const char* name, const char* why) {
  return AllOf(Field(&TestResult::name, name), Field(&TestResult::status, TestStatus::kFail),
               Field(&TestResult::abnormal, true), Field(&TestResult::message, HasSubstr(why)));
}

TEST(SupervisorEndTest, ACleanEndAddsNothing) {
  SuiteOutcome outcome = ScriptedChild(/*leak_check=*/true, "exit 0").Run();
  EXPECT_THAT(outcome.results, Not(Contains(Field(&TestResult::status, TestStatus::kFail))));
  EXPECT_EQ(outcome.results.size(), 2u);  // T.a and the leak check
}

TEST(SupervisorEndTest, AHangAfterTheLastTestIsKilledAndFails) {
  SuiteOutcome outcome = ScriptedChild(true, "exec sleep 60").Run();
  EXPECT_THAT(outcome.results, Contains(Failed(kChildEndTest, "the child hung after its last test (T.a)")));
}

TEST(SupervisorEndTest, ACrashAfterTheLastTestFails) {
  SuiteOutcome outcome = ScriptedChild(true, "kill -SEGV $$").Run();
  EXPECT_THAT(outcome.results, Contains(Failed(kChildEndTest, "crashed: signal 11 (SEGV) after its last test")));
}

TEST(SupervisorEndTest, ANonZeroExitFails) {
  SuiteOutcome outcome = ScriptedChild(true, "exit 3").Run();
  EXPECT_THAT(outcome.results, Contains(Failed(kChildEndTest, "exited with status 3")));
}

TEST(SupervisorEndTest, AMissingLeakCheckFails) {
  SuiteOutcome outcome = ScriptedChild(/*leak_check=*/false, "exit 0").Run();
  EXPECT_THAT(outcome.results, Contains(Failed(kLeakCheckTest, "no leak check came back")));
}

}  // namespace
}  // namespace rdmacheck
