// Memory registration access rights: every combination the spec allows registers and grants
// what it names, and the ones it forbids (remote write or remote atomic without local write)
// fail with EINVAL. (That an MR refuses the rights it lacks is the access suite's.)
#include <infiniband/verbs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "harness/completion.h"
#include "testing/device_test.h"
#include "harness/verbs/factories.h"
#include "harness/verbs/post.h"

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

// Where in the MR each check of MrGrantsTest works (the atomic target is 8-byte aligned).
constexpr size_t kWriteAt = 0, kReadAt = 64, kAtomicAt = 128, kSendFrom = 256, kRecvInto = 512;
constexpr uint32_t kBytes = 8;

// The rights an MR was registered with, used: its lkey as a SEND's source (local read is
// always granted) and, with LOCAL_WRITE, as a receive's target; its rkey for each remote
// right it has. The peer of a loopback (or two-host) RC pair is the remote side.
class MrGrantsTest : public DeviceTest, public ::testing::WithParamInterface<int> {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    PairOptions options;
    atomics_ = Decide(profile(), Cap::kAtomics).available;
    if (atomics_) options.path.access |= IBV_ACCESS_REMOTE_ATOMIC;  // the QP's right; the MR's is the test's
    ASSERT_OK_AND_ASSIGN(pair_, CreatePair(options));
    ASSERT_OK_AND_ASSIGN(mr_, RegMr(local().pd(), absl::MakeSpan(buffer_), GetParam()));
  }
  void TearDown() override {
    mr_.reset();
    pair_.reset();
  }
  LocalEndpoint& local() { return pair_->local(); }
  Endpoint& remote() { return pair_->remote(); }
  RemoteBuffer Target(size_t offset) const {
    return {reinterpret_cast<uint64_t>(buffer_.data()) + offset, mr_->rkey, kBytes};
  }

  std::vector<uint8_t> buffer_ = std::vector<uint8_t>(8192);
  std::optional<ConnectedPair> pair_;
  MrPtr mr_;
  bool atomics_ = false;  // the device has remote atomics: REMOTE_ATOMIC is checked too
};

RDMACHECK_ABOUT(MrGrantsTest, EveryRightAskedForWorks,
                "an MR registered with an allowed access combination reports the address and length asked for, "
                "and grants each right in it: a SEND from it (lkey, local read) carries its bytes; with LOCAL_WRITE a "
                "receive lands in it; with REMOTE_WRITE / REMOTE_READ / REMOTE_ATOMIC the peer's RDMA WRITE, READ "
                "and fetch-and-add through its rkey succeed on its bytes",
                "ibv_reg_mr(3) (access flags); IBTA Vol 1 10.6.3 (access rights) and 11.2.8.1 (Register Memory "
                "Region)",
                Cap::kRcQp);
TEST_P(MrGrantsTest, EveryRightAskedForWorks) {
  const int access = GetParam();
  EXPECT_EQ(mr_->addr, buffer_.data());
  EXPECT_EQ(mr_->length, buffer_.size());

  // Local read, always granted: a SEND from the MR.
  std::fill_n(buffer_.data() + kSendFrom, kBytes, 0x5a);
  ASSERT_OK(remote().PostRecv(/*wr_id=*/1, 0, kBytes));
  ibv_sge send_sge = MakeSge(mr_.get(), kSendFrom, kBytes);
  ibv_send_wr send{};
  send.wr_id = 2;
  send.opcode = IBV_WR_SEND;
  send.send_flags = IBV_SEND_SIGNALED;
  send.sg_list = &send_sge;
  send.num_sge = 1;
  ASSERT_OK(local().PostSend(send));
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, local().PollSend());
  EXPECT_EQ(sent.status, IBV_WC_SUCCESS) << "SEND from the MR: " << DescribeWc(sent);
  ASSERT_OK_AND_ASSIGN(ibv_wc arrived, remote().PollRecv());
  EXPECT_EQ(arrived.status, IBV_WC_SUCCESS) << DescribeWc(arrived);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> carried, remote().Read({0, kBytes}));
  EXPECT_EQ(carried, std::vector<uint8_t>(kBytes, 0x5a)) << "the SEND did not carry the MR's bytes";

  if (access & IBV_ACCESS_LOCAL_WRITE) {
    ibv_sge recv_sge = MakeSge(mr_.get(), kRecvInto, kBytes);
    ibv_recv_wr recv{};
    recv.wr_id = 3;
    recv.sg_list = &recv_sge;
    recv.num_sge = 1;
    ibv_recv_wr* bad = nullptr;
    ASSERT_EQ(PostRecv(local().qp(), &recv, &bad), 0);
    ASSERT_OK(remote().Write(0, std::vector<uint8_t>(kBytes, 0x6b)));
    ASSERT_OK(remote().Post(SendRequest::Send(4, {{0, kBytes}})));
    ASSERT_OK_AND_ASSIGN(ibv_wc received, local().PollRecv());
    EXPECT_EQ(received.status, IBV_WC_SUCCESS) << "receive into the MR: " << DescribeWc(received);
    EXPECT_EQ(buffer_[kRecvInto], 0x6b) << "the receive did not land in the MR";
    ASSERT_OK(remote().PollSend().status());
  }
  if (access & IBV_ACCESS_REMOTE_WRITE) {
    ASSERT_OK(remote().Write(0, std::vector<uint8_t>(kBytes, 0x7c)));
    ASSERT_OK(remote().Post(SendRequest::Write(5, {{0, kBytes}}, Target(kWriteAt))));
    ASSERT_OK_AND_ASSIGN(ibv_wc wrote, remote().PollSend());
    EXPECT_EQ(wrote.status, IBV_WC_SUCCESS) << "RDMA WRITE through the rkey: " << DescribeWc(wrote);
    EXPECT_EQ(buffer_[kWriteAt], 0x7c) << "the RDMA WRITE did not land in the MR";
  }
  if (access & IBV_ACCESS_REMOTE_READ) {
    std::fill_n(buffer_.data() + kReadAt, kBytes, 0x8d);
    ASSERT_OK(remote().Post(SendRequest::Read(6, {{64, kBytes}}, Target(kReadAt))));
    ASSERT_OK_AND_ASSIGN(ibv_wc read, remote().PollSend());
    EXPECT_EQ(read.status, IBV_WC_SUCCESS) << "RDMA READ through the rkey: " << DescribeWc(read);
    ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> got, remote().Read({64, kBytes}));
    EXPECT_EQ(got, std::vector<uint8_t>(kBytes, 0x8d)) << "the RDMA READ did not return the MR's bytes";
  }
  if ((access & IBV_ACCESS_REMOTE_ATOMIC) && atomics_) {
    uint64_t value = 40;
    std::memcpy(buffer_.data() + kAtomicAt, &value, sizeof(value));
    ASSERT_OK(remote().Post(SendRequest::FetchAdd(7, {128, 8}, Target(kAtomicAt), 2)));
    ASSERT_OK_AND_ASSIGN(ibv_wc added, remote().PollSend());
    EXPECT_EQ(added.status, IBV_WC_SUCCESS) << "fetch-and-add through the rkey: " << DescribeWc(added);
    std::memcpy(&value, buffer_.data() + kAtomicAt, sizeof(value));
    EXPECT_EQ(value, 42u) << "the fetch-and-add did not change the MR's word";
  }
}

INSTANTIATE_TEST_SUITE_P(Allowed, MrGrantsTest, ::testing::ValuesIn(AccessCombinations(true)), AccessName);

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

RDMACHECK_ABOUT(MrForbiddenAccessTest, RegisterAtAnIovaFailsEinval,
                "ibv_reg_mr_iova with REMOTE_WRITE or REMOTE_ATOMIC but without LOCAL_WRITE returns NULL with errno "
                "EINVAL, as ibv_reg_mr does: an iova moves the addresses the MR answers to, not the rights it may have. "
                "Fails when the MR is registered, or refused with another errno",
                "ibv_reg_mr(3) (ibv_reg_mr_iova; \"EINVAL: invalid access value\"); IBTA Vol 1 10.6.3");
TEST_P(MrForbiddenAccessTest, RegisterAtAnIovaFailsEinval) {
  constexpr uint64_t kIova = 0x10000;
  errno = 0;
  MrPtr mr(ibv_reg_mr_iova(pd_.get(), buffer_.data(), buffer_.size(), kIova, GetParam()));
  EXPECT_EQ(mr, nullptr) << "registered at iova 0x10000 with access 0x" << std::hex << GetParam();
  if (!mr) {
    EXPECT_THAT(errno, ErrnoIs(EINVAL));
  }
}

INSTANTIATE_TEST_SUITE_P(Forbidden, MrForbiddenAccessTest, ::testing::ValuesIn(AccessCombinations(false)),
                         AccessName);

}  // namespace
}  // namespace rdmacheck
