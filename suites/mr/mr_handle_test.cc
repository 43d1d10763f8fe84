// Deregistration of handles the kernel no longer (or never) knew: the call must fail
// cleanly, not crash. A freed struct ibv_mr cannot be passed back (that is a use after
// free in the caller), so these tests hand ibv_dereg_mr a copy of a real MR whose kernel
// handle is stale or made up: exactly what reaches the kernel in a double deregistration.
#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdlib>
#include <memory>
#include <vector>

#include "testing/device_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// libibverbs allocates every ibv_mr inside a struct verbs_mr (infiniband/driver.h, which
// libibverbs-dev does not install): ibv_mr, then mr_type and access, which ibv_dereg_mr
// reads. Providers may embed that in a larger struct; the zeroed tail stands in for it.
struct FakeMr {
  ibv_mr mr;
  int mr_type;
  int access;
  uint8_t provider_tail[256];
};

// On the heap: a provider that (wrongly) accepted the handle frees the object it was given.
using FakeMrPtr = std::unique_ptr<FakeMr, void (*)(void*)>;
FakeMrPtr CopyOf(const ibv_mr& mr) {
  FakeMrPtr fake(static_cast<FakeMr*>(calloc(1, sizeof(FakeMr))), free);
  fake->mr = mr;
  return fake;
}

// ibv_dereg_mr on `fake`; if it succeeds the provider has freed it.
int DeregFake(FakeMrPtr& fake) {
  const int rc = ibv_dereg_mr(&fake->mr);
  if (rc == 0) fake.release();
  return rc;
}

class MrHandleTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
  }
  std::vector<uint8_t> buffer_ = std::vector<uint8_t>(4096);
  PdPtr pd_;
};

RDMACHECK_ABOUT(MrHandleTest, DeregTwiceFailsCleanly,
                "deregistering an MR whose kernel handle was already deregistered returns an error (Linux: ENOENT) "
                "instead of crashing or freeing another object",
                "ibv_reg_mr(3) ibv_dereg_mr: \"returns 0 on success, or the value of errno on failure\"");
TEST_F(MrHandleTest, DeregTwiceFailsCleanly) {
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pd_.get(), absl::MakeSpan(buffer_), IBV_ACCESS_LOCAL_WRITE));
  FakeMrPtr stale = CopyOf(*mr);
  ASSERT_THAT(ibv_dereg_mr(mr.release()), ErrnoIs(0));
  const int rc = DeregFake(stale);
  EXPECT_NE(rc, 0) << "a second deregistration of the same handle succeeded";
  RecordProperty("errno", ErrnoName(rc));
  // The PD must be free of the region: the first deregistration really released it.
  EXPECT_THAT(ibv_dealloc_pd(pd_.release()), ErrnoIs(0));
}

RDMACHECK_ABOUT(MrHandleTest, DeregGarbageHandleFailsCleanly,
                "deregistering an MR whose handle the kernel never issued returns an error (Linux: ENOENT) and "
                "leaves the real MR registered",
                "ibv_reg_mr(3) ibv_dereg_mr");
TEST_F(MrHandleTest, DeregGarbageHandleFailsCleanly) {
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pd_.get(), absl::MakeSpan(buffer_), IBV_ACCESS_LOCAL_WRITE));
  FakeMrPtr garbage = CopyOf(*mr);
  garbage->mr.handle = 0x7ffffff0;
  const int rc = DeregFake(garbage);
  EXPECT_NE(rc, 0) << "a made-up handle was deregistered";
  RecordProperty("errno", ErrnoName(rc));
  EXPECT_THAT(ibv_dealloc_pd(pd_.get()), ErrnoIs(EBUSY)) << "the real MR must still hold its PD";
  EXPECT_THAT(ibv_dereg_mr(mr.release()), ErrnoIs(0));
}

}  // namespace
}  // namespace rdmacheck
