// The end of a child is judged (issue 30.5): after its last test, a child that hangs or
// crashes in teardown, exits non-zero, or sends no leak check fails the suite. The
// children here are shell scripts that write the events a real child would, then end
// the way a broken teardown (ibv_close_device, the leak check) would.
#include "runner/supervisor.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runner/events.h"
#include "runner/leak_check.h"
#include "unit/scripted_child.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Not;
using fixtures::Event;
using fixtures::ScriptedChild;

// A child that reports T.a passed, then (maybe) the leak check, then runs `ending`.
SuiteOutcome RunChild(bool leak_check, const std::string& ending) {
  std::vector<TestEvent> events = {Event(TestEvent::Kind::kStart, "T.a"), Event(TestEvent::Kind::kEnd, "T.a")};
  if (leak_check) events.push_back(Event(TestEvent::Kind::kEnd, kLeakCheckTest));
  ScriptedChild child(events, ending);
  ChildOptions options = child.Options();
  options.teardown_timeout = absl::Milliseconds(500);
  return RunSuite({"s", {"T.a"}, ""}, options);
}

auto Failed(const char* name, const char* why) {
  return AllOf(Field(&TestResult::name, name), Field(&TestResult::status, TestStatus::kFail),
               Field(&TestResult::abnormal, true), Field(&TestResult::message, HasSubstr(why)));
}

TEST(SupervisorEndTest, ACleanEndAddsNothing) {
  SuiteOutcome outcome = RunChild(/*leak_check=*/true, "exit 0");
  EXPECT_THAT(outcome.results, Not(Contains(Field(&TestResult::status, TestStatus::kFail))));
  EXPECT_EQ(outcome.results.size(), 2u);  // T.a and the leak check
}

TEST(SupervisorEndTest, AHangAfterTheLastTestIsKilledAndFails) {
  SuiteOutcome outcome = RunChild(true, "exec sleep 60");
  EXPECT_THAT(outcome.results, Contains(Failed(kChildEndTest, "the child hung after its last test (T.a)")));
}

TEST(SupervisorEndTest, ACrashAfterTheLastTestFails) {
  SuiteOutcome outcome = RunChild(true, "kill -SEGV $$");
  EXPECT_THAT(outcome.results, Contains(Failed(kChildEndTest, "crashed: signal 11 (SEGV) after its last test")));
}

TEST(SupervisorEndTest, ANonZeroExitFails) {
  SuiteOutcome outcome = RunChild(true, "exit 3");
  EXPECT_THAT(outcome.results, Contains(Failed(kChildEndTest, "exited with status 3")));
}

// Verdict integrity III.10: the child's RUN_ALL_TESTS() failed outside every test
// (runner/events.h ChildExitAfterTests) while its one test passed.
TEST(SupervisorEndTest, AFailureOutsideEveryTestFails) {
  SuiteOutcome outcome = RunChild(true, absl::StrCat("exit ", kChildFailedOutsideTests));
  EXPECT_THAT(outcome.results, Contains(Failed(kChildEndTest, "a failure outside every test")));
}

TEST(SupervisorEndTest, AMissingLeakCheckFails) {
  SuiteOutcome outcome = RunChild(/*leak_check=*/false, "exit 0");
  EXPECT_THAT(outcome.results, Contains(Failed(kLeakCheckTest, "no leak check came back")));
}

}  // namespace
}  // namespace rdmacheck
