// Memory regions at an iova (ibv_reg_mr_iova2): the MR is addressed by the iova it was
// registered at, through its rkey and through its lkey alike, and no longer by the virtual
// address of its buffer. ibv_reg_mr(3): "the user is allowed to specify the virtual base
// address of the MR when accessed through a lkey or rkey. The offset in the memory region
// is computed as 'addr + (iova - hca_va)'. Specifying 0 for hca_va has the same effect as
// IBV_ACCESS_ZERO_BASED" (IBTA Vol 1 10.6.3.1: a region's virtual address is the one
// given at registration; 10.6.3.5 zero-based virtual addresses).
//
// Two bases, one table: an iova far from any user address, and 0 (zero-based). The target
// is a guarded region on the responder's side (every byte a canary, guard pages around),
// so an access that lands at the wrong offset, or through the wrong address, shows.
#include <infiniband/verbs.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/connection/guarded_target.h"
#include "harness/patterns.h"
#include "suites/access/refusal.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

enum class IovaBase {
  kShifted,    // 1 << 44: page-aligned like the buffer, and no user address on x86-64 is near it
  kZeroBased,  // 0
};
std::string ParamName(IovaBase base) { return base == IovaBase::kShifted ? "Shifted" : "ZeroBased"; }
uint64_t IovaOf(IovaBase base) { return base == IovaBase::kShifted ? uint64_t{1} << 44 : 0; }
Cap CapOf(IovaBase base) { return base == IovaBase::kShifted ? Cap::kMrIova : Cap::kZeroBasedMr; }

constexpr int kRights = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

// OK when the MR's bytes [offset, offset + length) hold `pattern` and every other byte of
// the guarded region (the rest of the MR, both guard pages) still holds the canary.
absl::Status CheckOnlyChanged(const GuardedTarget& target, size_t offset, uint32_t length, Pattern pattern) {
  absl::StatusOr<std::vector<uint8_t>> bytes = target.ReadAll();
  if (!bytes.ok()) return bytes.status();
  const size_t start = GuardedRegion::kGuardBytes + offset;
  absl::Span<const uint8_t> all(*bytes);
  if (absl::Status landed = CheckPattern(all.subspan(start, length), pattern); !landed.ok()) {
    return absl::DataLossError(absl::StrCat("the bytes at MR offset ", offset, " are not what was written: ",
                                            landed.message()));
  }
  std::vector<uint8_t> rest(all.begin(), all.end());
  std::fill_n(rest.begin() + start, length, GuardedRegion::kCanary);
  return GuardedRegion::CheckGuardedBytes(rest);
}

class IovaMrTest : public PairTestWith<IovaBase> {
 protected:
  void SetUp() override {
    PairTestWith<IovaBase>::SetUp();
    if (IsSkipped()) return;
    RDMACHECK_REQUIRE(CapOf(param()));
  }
  // The responder's guarded MR at this instance's iova.
  absl::StatusOr<std::unique_ptr<GuardedTarget>> GuardAtIova(Endpoint& side, int access = kRights) {
    GuardSpec spec;
    spec.access = access;
    spec.iova = IovaOf(param());
    return side.Guard(spec);
  }
};

RDMACHECK_ABOUT(IovaMrTest, WriteAndReadAtTheIova,
                "an RDMA WRITE to iova + 128 with the MR's rkey completes and lands at byte 128 of the buffer (and "
                "nowhere else), and an RDMA READ of iova + 128 brings the same bytes back: the responder translates "
                "the iova, not the virtual address",
                "ibv_reg_mr(3) (ibv_reg_mr_iova: 'addr + (iova - hca_va)'); IBTA Vol 1 10.6.3.1, 10.6.3.5 "
                "(zero-based), 9.7.5.2.5 (a bad address is NAKed Remote Access Error)",
                Cap::kRcQp, Cap::kRdmaWrite, Cap::kRdmaRead);
TEST_P(IovaMrTest, WriteAndReadAtTheIova) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> target, GuardAtIova(pair.remote()));
  ASSERT_EQ(target->remote().addr, IovaOf(param()));
  constexpr size_t kAt = 128;
  constexpr uint32_t kLength = 64;
  const Pattern pattern = Pattern::Seeded(0x10a);

  ASSERT_OK(pair.local().Fill({0, kLength}, pattern));
  ASSERT_OK(pair.local().Post(SendRequest::Write(1, {{0, kLength}}, target->remote().At(kAt, kLength))));
  ASSERT_OK_AND_ASSIGN(ibv_wc written, pair.local().PollSend());
  // A failed WRITE moved the QP to ERR (IBTA 10.3.1): whatever the READ did after it would
  // be the consequence, not a second finding.
  ASSERT_EQ(written.status, IBV_WC_SUCCESS) << "RDMA WRITE to the iova: " << DescribeWc(written);
  // The READ follows the WRITE on the same QP, so it sees it (IBTA 9.5, RFC 5040 5.5):
  // on iWARP the WRITE's completion alone does not say the data was placed.
  ASSERT_OK(pair.local().Post(SendRequest::Read(2, {{kLength, kLength}}, target->remote().At(kAt, kLength))));
  absl::StatusOr<ibv_wc> read = pair.local().PollSend();
  ASSERT_TRUE(read.ok()) << "the RDMA READ of the iova never completed: " << read.status();
  EXPECT_EQ(read->status, IBV_WC_SUCCESS) << "RDMA READ from the iova: " << DescribeWc(*read);
  if (read->status == IBV_WC_SUCCESS) {
    EXPECT_OK(pair.local().Check({kLength, kLength}, pattern)) << "the READ of the iova brought other bytes back";
  }
  EXPECT_OK(CheckOnlyChanged(*target, kAt, kLength, pattern));
}

RDMACHECK_ABOUT(IovaMrTest, ReceiveSgeAtTheIova,
                "a receive whose SGE names the MR's lkey and an address inside the iova range takes a SEND into the "
                "buffer at that offset: local access through the lkey is by the iova too",
                "ibv_reg_mr(3) ('the virtual base address of the MR when accessed through a lkey or rkey'); IBTA Vol 1 "
                "10.6.3.1 (L_Key checks use the region's virtual address)",
                Cap::kRcQp);
TEST_P(IovaMrTest, ReceiveSgeAtTheIova) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> target, GuardAtIova(pair.remote()));
  constexpr uint32_t kLength = 64;
  const Pattern pattern = Pattern::Seeded(0x10b);

  ASSERT_OK(target->PostRecv(/*wr_id=*/7, kLength));  // SGE address: target->remote().addr, the iova
  ASSERT_OK(pair.local().Fill({0, kLength}, pattern));
  ASSERT_OK(pair.local().Post(SendRequest::Send(1, {{0, kLength}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, pair.local().PollSend());
  EXPECT_EQ(sent.status, IBV_WC_SUCCESS) << DescribeWc(sent);
  ASSERT_OK_AND_ASSIGN(ibv_wc received, pair.remote().PollRecv());
  EXPECT_EQ(received.status, IBV_WC_SUCCESS) << "receive into an SGE at the iova: " << DescribeWc(received);
  EXPECT_EQ(received.wr_id, 7u);
  EXPECT_OK(CheckOnlyChanged(*target, 0, kLength, pattern));
}

RDMACHECK_ABOUT(IovaMrTest, VirtualAddressIsOutsideTheMr,
                "an RDMA WRITE to the buffer's virtual address, with the MR's rkey, is refused (IBV_WC_REM_ACCESS_ERR; "
                "iWARP: may complete before the TERMINATE), the responder's QP goes to the error state and no byte "
                "changes: once registered at an iova, the MR does not answer to the virtual address",
                "ibv_reg_mr(3) (ibv_reg_mr_iova); IBTA Vol 1 10.6.3.2 (R_Key bounds checks), 9.7.5.2.5; RFC 5040 "
                "7.1",
                Cap::kRcQp, Cap::kRdmaWrite);
TEST_P(IovaMrTest, VirtualAddressIsOutsideTheMr) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> target, GuardAtIova(pair.remote()));
  const RemoteBuffer mr = target->remote();
  const uint64_t va = target->virtual_address();
  ASSERT_TRUE(va + mr.length <= mr.addr || va >= mr.addr + mr.length)
      << "the buffer's address 0x" << std::hex << va << " falls inside the iova range: pick another iova";

  ASSERT_OK(pair.local().Fill({0, 8}, Pattern::Constant(0xa5)));
  ASSERT_OK_AND_ASSIGN(Refusal refusal,
                       PostRefused(pair, RequestOf(AccessOp::kWrite, /*wr_id=*/1, {va, mr.rkey, 8})));
  EXPECT_THAT(refusal.requester, IsRefusal(RemoteAccessStatuses(AccessOp::kWrite, IsIwarp())))
      << "an RDMA WRITE to the virtual address of an MR registered at iova 0x" << std::hex << mr.addr;
  EXPECT_THAT(refusal.responder_recv, IsFlushed());
  EXPECT_OK(target->CheckCanary());
}

INSTANTIATE_TEST_SUITE_P(Connect, IovaMrTest,
                         ::testing::Combine(AllConnectMethods(),
                                            ::testing::Values(IovaBase::kShifted, IovaBase::kZeroBased)),
                         PairParamName<IovaBase>);

}  // namespace
}  // namespace rdmacheck
