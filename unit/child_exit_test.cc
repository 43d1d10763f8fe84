// A suite's child exits non-zero when GoogleTest counted a failure that no test's event
// carries (Verdict integrity III.10): RUN_ALL_TESTS()'s status is not thrown away. Read from
// a real GoogleTest process that reports through the runner's event writer
// (failure_parts_child.cc), as `rdmacheck __child` does.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runner/events.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Each;
using ::testing::Field;
using ::testing::IsEmpty;
using ::testing::Not;

struct ChildRun {
  int exit_status = -1;
  std::vector<TestEvent> ends;  // the end events of its tests
};

ChildRun RunChild(const std::string& filter) {
  const std::string events = absl::StrCat(::testing::TempDir(), "rdmacheck-child-exit-", getpid(), ".events");
  std::remove(events.c_str());
  const std::string command =
      absl::StrCat(RDMACHECK_FAILURE_PARTS_CHILD, " ", events, " '--gtest_filter=", filter, "' >/dev/null 2>&1");
  const int status = std::system(command.c_str());
  ChildRun run;
  run.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (TestEvent& e : EventReader(events).ReadNew()) {
    if (e.kind == TestEvent::Kind::kEnd) run.ends.push_back(std::move(e));
  }
  std::remove(events.c_str());
  return run;
}

TEST(ChildExitTest, AFailureOutsideEveryTestIsTheExitStatus) {
  const ChildRun run = RunChild("OutsideTests.*");
  EXPECT_THAT(run.ends, AllOf(Not(IsEmpty()), Each(Field(&TestEvent::status, TestStatus::kPass))));
  EXPECT_EQ(run.exit_status, kChildFailedOutsideTests);
}

// A failed test is its event's to report (an expectation may make it an xfail): exit 0.
TEST(ChildExitTest, FailedTestsAloneLeaveTheExitStatusAtZero) {
  const ChildRun run = RunChild("RunnerMessages.*");
  EXPECT_THAT(run.ends, Contains(Field(&TestEvent::status, TestStatus::kFail)));
  EXPECT_EQ(run.exit_status, 0);
}

}  // namespace
}  // namespace rdmacheck
