// Memory registration access rights: every combination the spec allows registers, and the
// ones it forbids (remote write or remote atomic without local write) fail with EINVAL.
#include <infiniband/verbs.h>

#include <cerrno>
#include <string>
#include <vector>

#include "testing/device_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

struct AccessBit {
  int flag;
  const char* name;
};
constexpr AccessBit kAccessBits[] = {
    {IBV_ACCESS_LOCAL_WRITE, "LocalWrite"},     {IBV_ACCESS_REMOTE_WRITE, "RemoteWrite"},
    {IBV_ACCESS_REMOTE_READ, "RemoteRead"},     {IBV_ACCESS_REMOTE_ATOMIC, "RemoteAtomic"},
    {IBV_ACCESS_MW_BIND, "MwBind"},
};

// ibv_reg_mr(3): "If IBV_ACCESS_REMOTE_WRITE or IBV_ACCESS_REMOTE_ATOMIC is set, then
// IBV_ACCESS_LOCAL_WRITE must be set too" (IBTA Vol 1 10.6.3: remote write and atomic
// access imply local write).
bool AccessAllowed(int access) {
  return !((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE));
}

// Every subset of kAccessBits that is (or is not) allowed.
std::vector<int> AccessCombinations(bool allowed) {
  std::vector<int> out;
  for (int mask = 0; mask < (1 << std::size(kAccessBits)); ++mask) {
    int access = 0;
    for (size_t i = 0; i < std::size(kAccessBits); ++i) {
      if (mask & (1 << i)) access |= kAccessBits[i].flag;
    }
    if (AccessAllowed(access) == allowed) out.push_back(access);
  }
  return out;
}

std::string AccessName(const ::testing::TestParamInfo<int>& info) {
  std::string name;
  for (const AccessBit& bit : kAccessBits) {
    if (info.param & bit.flag) name += (name.empty() ? "" : "_") + std::string(bit.name);
  }
  return name.empty() ? "LocalReadOnly" : name;
}

class MrAccessTest : public DeviceTest, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
  }
  std::vector<uint8_t> buffer_ = std::vector<uint8_t>(8192);
  PdPtr pd_;
};

RDMACHECK_ABOUT(MrAccessTest, RegisterSucceeds,
                "ibv_reg_mr succeeds for an allowed access combination; the MR reports the address, length, PD and "
                "context it was registered with",
                "ibv_reg_mr(3); IBTA Vol 1 10.6.3 (access rights) and 11.2.8.1 (Register Memory Region)");
TEST_P(MrAccessTest, RegisterSucceeds) {
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pd_.get(), absl::MakeSpan(buffer_), GetParam()));
  EXPECT_EQ(mr->addr, buffer_.data());
  EXPECT_EQ(mr->length, buffer_.size());
  EXPECT_EQ(mr->pd, pd_.get());
  EXPECT_EQ(mr->context, context());
}

INSTANTIATE_TEST_SUITE_P(Allowed, MrAccessTest, ::testing::ValuesIn(AccessCombinations(true)), AccessName);

class MrForbiddenAccessTest : public MrAccessTest {};

RDMACHECK_ABOUT(MrForbiddenAccessTest, RegisterFailsEinval,
                "ibv_reg_mr with REMOTE_WRITE or REMOTE_ATOMIC but without LOCAL_WRITE returns NULL with errno EINVAL",
                "ibv_reg_mr(3): \"EINVAL: invalid access value\"; IBTA Vol 1 10.6.3");
TEST_P(MrForbiddenAccessTest, RegisterFailsEinval) {
  errno = 0;
  MrPtr mr(ibv_reg_mr(pd_.get(), buffer_.data(), buffer_.size(), GetParam()));
  EXPECT_EQ(mr, nullptr) << "registered with access 0x" << std::hex << GetParam();
  if (!mr) {
    EXPECT_THAT(errno, ErrnoIs(EINVAL));
  }
}

INSTANTIATE_TEST_SUITE_P(Forbidden, MrForbiddenAccessTest, ::testing::ValuesIn(AccessCombinations(false)),
                         AccessName);

}  // namespace
}  // namespace rdmacheck
