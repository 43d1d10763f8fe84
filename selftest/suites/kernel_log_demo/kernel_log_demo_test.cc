// A test that makes the kernel log a warning, through a path we control: it writes a
// WARNING-shaped line into /dev/kmsg (as a driver's WARN_ON would print it). Built only
// into rdmacheck_selftest. selftest/check_kernel_log.sh runs it and checks that the run
// failed exactly this test, with the line attached, and not the clean test after it.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "absl/strings/str_cat.h"
#include "testing/device_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

class KernelLogDemoTest : public DeviceTest {};

RDMACHECK_ABOUT(KernelLogDemoTest, AWarnsInTheKernelLog,
                "passes by its verbs, but a WARNING appears in the kernel log while it runs: the run must fail it "
                "with the line attached",
                "selftest; Documentation/ABI/testing/dev-kmsg (writing a record)");
TEST_F(KernelLogDemoTest, AWarnsInTheKernelLog) {
  ASSERT_OK(AllocPd(context()).status());
  const int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "cannot write /dev/kmsg: " << std::strerror(errno) << " (needs root)";
  const std::string line = absl::StrCat("<4>WARNING: CPU: 0 PID: ", getpid(),
                                        " at selftest/kernel_log_demo (rdmacheck selftest: not a kernel bug)\n");
  const ssize_t n = write(fd, line.data(), line.size());
  const int err = errno;
  close(fd);
  ASSERT_EQ(n, static_cast<ssize_t>(line.size())) << "write /dev/kmsg: " << std::strerror(err);
}

RDMACHECK_ABOUT(KernelLogDemoTest, BStaysClean, "passes and logs nothing: the warning before must not reach it",
                "selftest");
TEST_F(KernelLogDemoTest, BStaysClean) { ASSERT_OK(AllocPd(context()).status()); }

}  // namespace
}  // namespace rdmacheck
