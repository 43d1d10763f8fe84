// ibv_rereg_mr: changing a registered region's access, PD or memory in place. Skipped
// where the device cannot re-register (capability rereg_mr).
#include <infiniband/verbs.h>

#include <cerrno>
#include <vector>

#include "testing/device_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

class MrReregTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
    ASSERT_OK_AND_ASSIGN(mr_, RegMr(pd_.get(), absl::MakeSpan(buffer_), IBV_ACCESS_LOCAL_WRITE));
  }
  std::vector<uint8_t> buffer_ = std::vector<uint8_t>(8192);
  std::vector<uint8_t> other_buffer_ = std::vector<uint8_t>(4096);
  PdPtr pd_;
  MrPtr mr_;
};

RDMACHECK_ABOUT(MrReregTest, ChangeAccess,
                "ibv_rereg_mr(IBV_REREG_MR_CHANGE_ACCESS) from LOCAL_WRITE to LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ "
                "returns 0 and keeps address, length and PD",
                "ibv_rereg_mr(3); IBTA Vol 1 ch. 11 (Reregister Memory Region)", Cap::kReregMr);
TEST_F(MrReregTest, ChangeAccess) {
  EXPECT_EQ(ibv_rereg_mr(mr_.get(), IBV_REREG_MR_CHANGE_ACCESS, nullptr, nullptr, 0,
                         IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ),
            0)
      << ErrnoName(errno);
  EXPECT_EQ(mr_->addr, buffer_.data());
  EXPECT_EQ(mr_->length, buffer_.size());
  EXPECT_EQ(mr_->pd, pd_.get());
}

RDMACHECK_ABOUT(MrReregTest, ChangePd,
                "ibv_rereg_mr(IBV_REREG_MR_CHANGE_PD) moves the region to another PD: mr->pd is the new PD and the "
                "old PD can be deallocated",
                "ibv_rereg_mr(3); IBTA Vol 1 ch. 11", Cap::kReregMr);
TEST_F(MrReregTest, ChangePd) {
  ASSERT_OK_AND_ASSIGN(PdPtr other, AllocPd(context()));
  ASSERT_EQ(ibv_rereg_mr(mr_.get(), IBV_REREG_MR_CHANGE_PD, other.get(), nullptr, 0, 0), 0) << ErrnoName(errno);
  EXPECT_EQ(mr_->pd, other.get());
  mr_.reset();  // the region now holds `other`: release it before `other` goes
  EXPECT_THAT(ibv_dealloc_pd(pd_.release()), ErrnoIs(0)) << "the old PD is still in use";
}

RDMACHECK_ABOUT(MrReregTest, ChangeTranslation,
                "ibv_rereg_mr(IBV_REREG_MR_CHANGE_TRANSLATION) points the region at another buffer: mr->addr and "
                "mr->length follow",
                "ibv_rereg_mr(3); IBTA Vol 1 ch. 11", Cap::kReregMr);
TEST_F(MrReregTest, ChangeTranslation) {
  ASSERT_EQ(ibv_rereg_mr(mr_.get(), IBV_REREG_MR_CHANGE_TRANSLATION, nullptr, other_buffer_.data(),
                         other_buffer_.size(), 0),
            0)
      << ErrnoName(errno);
  EXPECT_EQ(mr_->addr, other_buffer_.data());
  EXPECT_EQ(mr_->length, other_buffer_.size());
}

RDMACHECK_ABOUT(MrReregTest, ForbiddenAccessFails,
                "ibv_rereg_mr to REMOTE_WRITE without LOCAL_WRITE fails (a non-zero ibv_rereg_mr_err_code) with errno "
                "EINVAL",
                "ibv_rereg_mr(3); ibv_reg_mr(3) access rules; IBTA Vol 1 10.6.3", Cap::kReregMr);
TEST_F(MrReregTest, ForbiddenAccessFails) {
  errno = 0;
  const int rc = ibv_rereg_mr(mr_.get(), IBV_REREG_MR_CHANGE_ACCESS, nullptr, nullptr, 0, IBV_ACCESS_REMOTE_WRITE);
  EXPECT_NE(rc, 0) << "re-registered with REMOTE_WRITE but no LOCAL_WRITE";
  EXPECT_THAT(errno, ErrnoIs(EINVAL));
  RecordProperty("rereg_err_code", rc);
}

}  // namespace
}  // namespace rdmacheck
