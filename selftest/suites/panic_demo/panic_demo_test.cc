// A test that panics the kernel (SysRq c), to prove that the VM lab loses no result: the
// suites before it keep their results.json, and scripts/lab.sh names this test and shows
// the console. It does so only when RDMACHECK_SELFTEST_PANIC=1 (selftest/check_lab_panic.sh
// sets it for a lab guest); anywhere else it skips. Built only into rdmacheck_selftest.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "testing/device_test.h"

namespace rdmacheck {
namespace {

class PanicDemoTest : public DeviceTest {};

RDMACHECK_ABOUT(PanicDemoTest, PanicsTheKernel,
                "crashes the guest kernel: the lab reports this test as the one running, and the earlier results stay",
                "selftest; Documentation/admin-guide/sysrq.rst ('c': crash)");
TEST_F(PanicDemoTest, PanicsTheKernel) {
  const char* asked = std::getenv("RDMACHECK_SELFTEST_PANIC");
  if (asked == nullptr || std::strcmp(asked, "1") != 0 || std::getenv("RDMACHECK_LAB") == nullptr) {
    GTEST_SKIP() << "panics the kernel only in a lab guest with RDMACHECK_SELFTEST_PANIC=1";
  }
  const int fd = open("/proc/sysrq-trigger", O_WRONLY);
  ASSERT_GE(fd, 0) << "open /proc/sysrq-trigger: " << std::strerror(errno);
  ASSERT_EQ(write(fd, "c", 1), 1) << "SysRq c: " << std::strerror(errno);
  FAIL() << "the kernel did not panic";
}

}  // namespace
}  // namespace rdmacheck
