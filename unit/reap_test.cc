// Reaping with a bound (harness/reap.h): a killed child is reaped, and one that outlives
// SIGKILL (stuck in the driver, state D) is named, never waited for. A process SIGKILL cannot
// end is not one the host can make; the naming is read from a live sleeping child instead,
// and the D case from the /proc texts a stuck process shows.
#include "harness/reap.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

// A child that sleeps until a signal ends it.
pid_t SleepingChild() {
  const pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  return pid;
}

TEST(ReapTest, AChildThatExitsOnSigkillIsReaped) {
  const pid_t pid = SleepingChild();
  ASSERT_GT(pid, 0);
  EXPECT_OK(KillAndReap(pid, absl::Seconds(10)));
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1) << "already reaped: no longer our child";
}

TEST(ReapTest, ReapWithinGivesTheExitStatus) {
  const pid_t pid = fork();
  if (pid == 0) _exit(3);
  ASSERT_GT(pid, 0);
  absl::StatusOr<int> wstatus = ReapWithin(pid, absl::Seconds(10));
  ASSERT_OK(wstatus);
  EXPECT_TRUE(WIFEXITED(*wstatus) && WEXITSTATUS(*wstatus) == 3) << *wstatus;
}

TEST(ReapTest, AChildStillThereAtTheBoundIsNotWaitedFor) {
  const pid_t pid = SleepingChild();
  ASSERT_GT(pid, 0);
  EXPECT_TRUE(absl::IsDeadlineExceeded(ReapWithin(pid, absl::Milliseconds(50)).status()));
  // What KillAndReap would say, had SIGKILL not ended it: its state (once it is in pause())
  // and where it waits.
  const std::string sleeping = absl::StrCat("process ", pid, " did not exit 10s after SIGKILL: state S (sleeping), ");
  std::string said;
  for (int i = 0; i < 100 && !absl::StartsWith(said, sleeping); ++i) {
    said = StuckProcess(pid, absl::Seconds(10));
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_THAT(said, ::testing::AllOf(::testing::StartsWith(sleeping), ::testing::HasSubstr("waiting in ")));
  EXPECT_OK(KillAndReap(pid, absl::Seconds(10)));
}

TEST(ReapTest, AProcessNotOurChildIsAnErrorAtOnce) {
  const absl::Time start = absl::Now();
  EXPECT_THAT(ReapWithin(getppid(), absl::Seconds(10)), HasErrno(ECHILD));
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

TEST(ReapTest, AStuckProcessIsNamedByItsStateAndWaitChannel) {
  EXPECT_EQ(DescribeProcessState("1234 (rdmacheck (x) y) D 1 1 1 0 -1 4194560", "siw_qp_llp_close\n"),
            "state D (uninterruptible sleep, in the kernel), waiting in siw_qp_llp_close");
  EXPECT_EQ(DescribeProcessState("1234 (rdmacheck) D 1", "0"),
            "state D (uninterruptible sleep, in the kernel), waiting in an unknown place (no wchan)");
  EXPECT_EQ(DescribeProcessState("", ""),
            "its state is unreadable (/proc/PID/stat), waiting in an unknown place (no wchan)");
}

}  // namespace
}  // namespace rdmacheck
