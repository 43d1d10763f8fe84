// RLIMIT_MEMLOCK bounds what a process may register: beyond it ibv_reg_mr fails with
// ENOMEM (not a crash, not an OOM). The lab runs as root with an unlimited limit, so the
// tests lower the soft limit and drop CAP_IPC_LOCK (which bypasses it) for their duration
// (testing/memlock_limit.h).
#include <infiniband/verbs.h>

#include <cerrno>

#include "testing/device_test.h"
#include "testing/memlock_limit.h"
#include "harness/verbs/factories.h"
#include "suites/mr/mapped_memory.h"

namespace rdmacheck {
namespace {

constexpr rlim_t kLoweredLimit = 1u << 20;  // 1 MiB

class MrMemlockTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
    ASSERT_OK_AND_ASSIGN(memory_, MappedMemory::Map(4 * kLoweredLimit));
  }
  PdPtr pd_;
  MappedMemory memory_;
};

RDMACHECK_ABOUT(MrMemlockTest, BeyondMemlockFailsEnomem,
                "with RLIMIT_MEMLOCK at 1 MiB (and no CAP_IPC_LOCK), registering 4 MiB fails with ENOMEM",
                "ibv_reg_mr(3); Linux ib_umem_get (pinned pages beyond RLIMIT_MEMLOCK without CAP_IPC_LOCK -> ENOMEM)");
TEST_F(MrMemlockTest, BeyondMemlockFailsEnomem) {
  absl::StatusOr<MrPtr> mr = absl::UnknownError("not tried");
  ASSERT_OK(RunUnderMemlockLimit(kLoweredLimit, [&] {
    mr = RegMr(pd_.get(), memory_.data(), memory_.size(), IBV_ACCESS_LOCAL_WRITE);
  }));
  EXPECT_THAT(mr.status(), HasErrno(ENOMEM)) << "4 MiB under a 1 MiB RLIMIT_MEMLOCK";
}

RDMACHECK_ABOUT(MrMemlockTest, WithinLoweredMemlockSucceeds,
                "with RLIMIT_MEMLOCK at 1 MiB (and no CAP_IPC_LOCK), registering 256 KiB still succeeds",
                "ibv_reg_mr(3); getrlimit(2) RLIMIT_MEMLOCK");
TEST_F(MrMemlockTest, WithinLoweredMemlockSucceeds) {
  absl::StatusOr<MrPtr> mr = absl::UnknownError("not tried");
  ASSERT_OK(RunUnderMemlockLimit(kLoweredLimit, [&] {
    mr = RegMr(pd_.get(), memory_.data(), kLoweredLimit / 4, IBV_ACCESS_LOCAL_WRITE);
  }));
  EXPECT_OK(mr) << "256 KiB under a 1 MiB RLIMIT_MEMLOCK";
}

}  // namespace
}  // namespace rdmacheck
