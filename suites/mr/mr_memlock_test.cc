// RLIMIT_MEMLOCK bounds what a process may register: beyond it ibv_reg_mr fails with
// ENOMEM (not a crash, not an OOM). The lab runs as root with an unlimited limit, so the
// tests lower the soft limit and drop CAP_IPC_LOCK (which bypasses it) for their duration;
// each suite runs in its own child process, and both are restored afterwards.
#include <infiniband/verbs.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "testing/device_test.h"
#include "harness/verbs/factories.h"
#include "suites/mr/mapped_memory.h"

namespace rdmacheck {
namespace {

// Lowers the soft RLIMIT_MEMLOCK to `bytes` and removes CAP_IPC_LOCK from this thread's
// effective capabilities; restores both on destruction.
class ScopedMemlockLimit {
 public:
  explicit ScopedMemlockLimit(rlim_t bytes) {
    if (getrlimit(RLIMIT_MEMLOCK, &saved_limit_) != 0) return;
    rlimit lowered = saved_limit_;
    lowered.rlim_cur = bytes;
    if (setrlimit(RLIMIT_MEMLOCK, &lowered) != 0) return;
    limit_set_ = true;
    header_.version = _LINUX_CAPABILITY_VERSION_3;
    header_.pid = 0;
    if (syscall(SYS_capget, &header_, saved_caps_) != 0) return;
    __user_cap_data_struct dropped[2] = {saved_caps_[0], saved_caps_[1]};
    dropped[CAP_TO_INDEX(CAP_IPC_LOCK)].effective &= ~CAP_TO_MASK(CAP_IPC_LOCK);
    caps_set_ = syscall(SYS_capset, &header_, dropped) == 0;
  }
  ~ScopedMemlockLimit() {
    if (caps_set_) syscall(SYS_capset, &header_, saved_caps_);
    if (limit_set_) setrlimit(RLIMIT_MEMLOCK, &saved_limit_);
  }
  ScopedMemlockLimit(const ScopedMemlockLimit&) = delete;
  ScopedMemlockLimit& operator=(const ScopedMemlockLimit&) = delete;

  bool ok() const { return limit_set_ && caps_set_; }

 private:
  rlimit saved_limit_{};
  __user_cap_header_struct header_{};
  __user_cap_data_struct saved_caps_[2] = {};
  bool limit_set_ = false;
  bool caps_set_ = false;
};

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
  ScopedMemlockLimit limit(kLoweredLimit);
  ASSERT_TRUE(limit.ok()) << "cannot lower RLIMIT_MEMLOCK or drop CAP_IPC_LOCK: " << ErrnoName(errno);
  errno = 0;
  MrPtr mr(ibv_reg_mr(pd_.get(), memory_.data(), memory_.size(), IBV_ACCESS_LOCAL_WRITE));
  EXPECT_EQ(mr, nullptr) << "4 MiB were registered under a 1 MiB RLIMIT_MEMLOCK";
  if (!mr) {
    EXPECT_THAT(errno, ErrnoIs(ENOMEM));
  }
}

RDMACHECK_ABOUT(MrMemlockTest, WithinLoweredMemlockSucceeds,
                "with RLIMIT_MEMLOCK at 1 MiB (and no CAP_IPC_LOCK), registering 256 KiB still succeeds",
                "ibv_reg_mr(3); getrlimit(2) RLIMIT_MEMLOCK");
TEST_F(MrMemlockTest, WithinLoweredMemlockSucceeds) {
  ScopedMemlockLimit limit(kLoweredLimit);
  ASSERT_TRUE(limit.ok()) << "cannot lower RLIMIT_MEMLOCK or drop CAP_IPC_LOCK: " << ErrnoName(errno);
  EXPECT_OK(RegMr(pd_.get(), memory_.data(), kLoweredLimit / 4, IBV_ACCESS_LOCAL_WRITE));
}

}  // namespace
}  // namespace rdmacheck
