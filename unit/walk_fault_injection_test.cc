// walk/fault_injection.h: what can be checked without a kernel built with fault injection
// (this machine's has none; the lab's debug kernel does, and device.<dev>.walk runs a walk
// with --fail_alloc there).
#include "walk/fault_injection.h"

#include <unistd.h>

#include <cerrno>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck::walk {
namespace {

using ::testing::HasSubstr;

TEST(FaultInjectionTest, IntervalBelowOneIsRefused) {
  absl::StatusOr<FaultInjection> armed = FaultInjection::Arm(0);
  ASSERT_FALSE(armed.ok());
  EXPECT_EQ(armed.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(FaultInjectionTest, KernelWithoutFaultInjectionIsOneLineNamingTheDebugKernel) {
  if (access("/sys/kernel/debug/failslab/task-filter", F_OK) == 0) GTEST_SKIP() << "this kernel has failslab";
  absl::StatusOr<FaultInjection> armed = FaultInjection::Arm(5);
  ASSERT_FALSE(armed.ok());
  EXPECT_EQ(armed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(armed.status().message(), HasSubstr("RDMACHECK_KERNEL=debug"));
  EXPECT_EQ(std::string(armed.status().message()).find('\n'), std::string::npos);
}

// The scope's own write to make-it-fail must not replace the errno of the call it wraps.
TEST(FaultInjectionTest, ScopeKeepsTheCallsErrno) {
  {
    FailingScope failing(true);
    errno = ENOMEM;
  }
  EXPECT_EQ(errno, ENOMEM);
}

}  // namespace
}  // namespace rdmacheck::walk
