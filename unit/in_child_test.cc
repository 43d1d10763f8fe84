// CallInChild (testing/in_child.h): a call that returns, one that kills its process, one
// that never returns.
#include "testing/in_child.h"

#include <signal.h>
#include <unistd.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

TEST(CallInChildTest, ReturnsTheCallsValue) {
  EXPECT_THAT(CallInChild([] { return int64_t{-22}; }, absl::Seconds(10)), IsOkAndHolds(-22));
}

TEST(CallInChildTest, ACallThatKillsItsProcessIsAnErrorNamingTheSignal) {
  absl::StatusOr<int64_t> r = CallInChild([]() -> int64_t { raise(SIGFPE); return 0; }, absl::Seconds(10));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(r.status().message(), HasSubstr("killed by signal 8 (FPE)"));
}

TEST(CallInChildTest, ACallThatHangsIsKilledAtTheDeadline) {
  absl::StatusOr<int64_t> r = CallInChild([]() -> int64_t { pause(); return 0; }, absl::Milliseconds(200));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
}

}  // namespace
}  // namespace rdmacheck
