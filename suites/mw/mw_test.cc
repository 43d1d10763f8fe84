// Memory windows: allocation, binding (type 1 with ibv_bind_mw, type 2 with a bind work
// request), what a binding grants, and the rules that keep a window's PD and MR alive.
// Each test needs the window type it uses (capabilities mw_type1, mw_type2).
#include <infiniband/verbs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/completion.h"
#include "harness/status.h"
#include "testing/device_test.h"
#include "testing/refusal_status.h"
#include "harness/verbs/factories.h"
#include "harness/verbs/post.h"

namespace rdmacheck {
namespace {

Cap CapFor(ibv_mw_type type) { return type == IBV_MW_TYPE_1 ? Cap::kMwType1 : Cap::kMwType2; }

std::string TypeName(const ::testing::TestParamInfo<ibv_mw_type>& info) {
  return info.param == IBV_MW_TYPE_1 ? "Type1" : "Type2";
}

// ---- Objects only: no traffic.
class MwAllocTest : public DeviceTest, public ::testing::WithParamInterface<ibv_mw_type> {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    RDMACHECK_REQUIRE(CapFor(GetParam()));
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
  }
  PdPtr pd_;
};

RDMACHECK_ABOUT(MwAllocTest, AllocAndDealloc,
                "ibv_alloc_mw returns a window of the requested type on the PD; ibv_dealloc_mw returns 0",
                "ibv_alloc_mw(3); IBTA Vol 1 10.6.7 (memory windows), 11.2.10.1 (Allocate MW)");
TEST_P(MwAllocTest, AllocAndDealloc) {
  ibv_mw* mw = ibv_alloc_mw(pd_.get(), GetParam());
  ASSERT_NE(mw, nullptr) << ErrnoName(errno);
  EXPECT_EQ(mw->type, GetParam());
  EXPECT_EQ(mw->pd, pd_.get());
  EXPECT_EQ(mw->context, context());
  EXPECT_THAT(ibv_dealloc_mw(mw), ErrnoIs(0));
}

RDMACHECK_ABOUT(MwAllocTest, DeallocPdWithLiveMwFailsBusy,
                "ibv_dealloc_pd refuses with EBUSY while a memory window is allocated on the PD",
                "ibv_alloc_pd(3) (EBUSY: PD still in use); IBTA Vol 1 ch. 11 (Deallocate PD)");
TEST_P(MwAllocTest, DeallocPdWithLiveMwFailsBusy) {
  ASSERT_OK_AND_ASSIGN(MwPtr mw, AllocMw(pd_.get(), GetParam()));
  const int rc = ibv_dealloc_pd(pd_.get());
  if (rc == 0) pd_.release();  // deallocated after all
  EXPECT_THAT(rc, ErrnoIs(EBUSY));
}

INSTANTIATE_TEST_SUITE_P(Types, MwAllocTest, ::testing::Values(IBV_MW_TYPE_1, IBV_MW_TYPE_2), TypeName);

// ---- Binding on a connected RC pair. Windows live on pair.local() (bound by its QP);
// pair.remote() uses them with RDMA WRITEs.
constexpr size_t kWindowOffset = 256;
constexpr uint32_t kWindowLength = 64;

struct BindOutcome {
  ibv_wc wc{};
  uint32_t rkey = 0;  // the window's rkey if the bind succeeded
};

class MwBindTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    PairOptions options;
    options.mr_access |= IBV_ACCESS_MW_BIND;
    options.path.retry_cnt = kRefusedRetryCnt;  // writes through revoked windows are refused
    ASSERT_OK_AND_ASSIGN(pair_, CreatePair(options));
  }

  LocalEndpoint& local() { return pair_->local(); }
  Endpoint& remote() { return pair_->remote(); }

  // Binds `mw` to `length` bytes at `offset` of `mr` with `access`: type 1 through
  // ibv_bind_mw, type 2 through an IBV_WR_BIND_MW work request; waits for the bind's
  // completion. An error status means the bind was refused when posted.
  absl::StatusOr<BindOutcome> Bind(ibv_mw* mw, ibv_mr* mr, size_t offset, uint64_t length,
                                   int access = IBV_ACCESS_REMOTE_WRITE) {
    ibv_mw_bind_info info{};
    info.mr = mr;
    info.addr = reinterpret_cast<uint64_t>(mr->addr) + offset;
    info.length = length;
    info.mw_access_flags = static_cast<unsigned>(access);
    BindOutcome outcome;
    if (mw->type == IBV_MW_TYPE_1) {
      ibv_mw_bind bind{};
      bind.wr_id = 77;
      bind.send_flags = IBV_SEND_SIGNALED;
      bind.bind_info = info;
      if (int rc = BindMw(local().qp(), mw, &bind); rc != 0) return ErrnoStatus(rc, "ibv_bind_mw");
      outcome.rkey = mw->rkey;  // ibv_bind_mw(3): the new rkey is in mw->rkey
    } else {
      ibv_send_wr wr{};
      wr.wr_id = 77;
      wr.opcode = IBV_WR_BIND_MW;
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.bind_mw.mw = mw;
      wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
      wr.bind_mw.bind_info = info;
      RDMACHECK_RETURN_IF_ERROR(local().PostSend(wr));
      outcome.rkey = wr.bind_mw.rkey;
    }
    RDMACHECK_ASSIGN_OR_RETURN(outcome.wc, PollCompletion(local().send_cq()));
    return outcome;
  }

  // An 8-byte RDMA WRITE from the remote side to `offset` of the local buffer with `rkey`;
  // returns its completion.
  absl::StatusOr<ibv_wc> WriteThrough(uint32_t rkey, size_t offset, uint32_t length = 8) {
    RemoteBuffer target{reinterpret_cast<uint64_t>(local().buffer().data()) + offset, rkey, length};
    RDMACHECK_RETURN_IF_ERROR(remote().Post(SendRequest::Write(/*wr_id=*/88, {{0, length}}, target)));
    return remote().PollSend();
  }

  absl::optional<ConnectedPair> pair_;
};

class MwBindTypeTest : public MwBindTest, public ::testing::WithParamInterface<ibv_mw_type> {
 protected:
  void SetUp() override {
    MwBindTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    RDMACHECK_REQUIRE(CapFor(GetParam()));
    ASSERT_OK_AND_ASSIGN(mw_, AllocMw(local().pd(), GetParam()));
  }
  void TearDown() override { mw_.reset(); }  // before the pair's MR and PD
  MwPtr mw_;
};

RDMACHECK_ABOUT(MwBindTypeTest, BindGrantsRemoteWrite,
                "a bind of 64 bytes with REMOTE_WRITE completes with IBV_WC_SUCCESS / IBV_WC_BIND_MW, and an RDMA "
                "WRITE through the window's rkey lands in the window",
                "ibv_bind_mw(3), ibv_post_send(3) IBV_WR_BIND_MW; IBTA Vol 1 10.6.7.2 (binding)", Cap::kRcQp,
                Cap::kRdmaWrite);
TEST_P(MwBindTypeTest, BindGrantsRemoteWrite) {
  ASSERT_OK_AND_ASSIGN(BindOutcome bind, Bind(mw_.get(), local().mr(), kWindowOffset, kWindowLength));
  ASSERT_EQ(bind.wc.status, IBV_WC_SUCCESS) << DescribeWc(bind.wc);
  EXPECT_EQ(bind.wc.opcode, IBV_WC_BIND_MW) << DescribeWc(bind.wc);
  EXPECT_EQ(bind.wc.wr_id, 77u);
  const std::vector<uint8_t> bytes(8, 0xab);
  ASSERT_OK(remote().Write(0, bytes));
  std::fill_n(local().buffer().data() + kWindowOffset, 8, 0);
  ASSERT_OK_AND_ASSIGN(ibv_wc write, WriteThrough(bind.rkey, kWindowOffset));
  EXPECT_EQ(write.status, IBV_WC_SUCCESS) << DescribeWc(write);
  EXPECT_EQ(local().buffer()[kWindowOffset], 0xab) << "the write through the window did not land";
}

RDMACHECK_ABOUT(MwBindTypeTest, BindBeyondMrFailsMwBindErr,
                "a bind reaching past the end of its MR completes with IBV_WC_MW_BIND_ERR",
                "IBTA Vol 1 10.6.7.2 (the window must lie within the MR; C10-75); ibv_bind_mw(3)", Cap::kRcQp);
TEST_P(MwBindTypeTest, BindBeyondMrFailsMwBindErr) {
  ASSERT_OK_AND_ASSIGN(BindOutcome bind,
                       Bind(mw_.get(), local().mr(), 0, local().mr()->length + static_cast<uint64_t>(sysconf(_SC_PAGESIZE))));
  EXPECT_EQ(bind.wc.status, IBV_WC_MW_BIND_ERR) << DescribeWc(bind.wc);
}

RDMACHECK_ABOUT(MwBindTypeTest, BindWithoutMwBindAccessFails,
                "binding to an MR registered without IBV_ACCESS_MW_BIND fails: refused when posted with EINVAL, or "
                "completed with IBV_WC_MW_BIND_ERR",
                "IBTA Vol 1 10.6.7.2 (C10-73: the MR must allow window binding); ibv_reg_mr(3) IBV_ACCESS_MW_BIND; "
                "ibv_post_send(3), ibv_bind_mw(3) (EINVAL: invalid value provided in wr)",
                Cap::kRcQp);
TEST_P(MwBindTypeTest, BindWithoutMwBindAccessFails) {
  std::vector<uint8_t> buffer(4096);
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(local().pd(), absl::MakeSpan(buffer), IBV_ACCESS_LOCAL_WRITE));
  absl::StatusOr<BindOutcome> bind = Bind(mw_.get(), mr.get(), 0, 64);
  if (bind.ok()) {
    EXPECT_EQ(bind->wc.status, IBV_WC_MW_BIND_ERR) << DescribeWc(bind->wc);
  } else {
    RecordProperty("refused_when_posted", std::string(bind.status().message()));
    EXPECT_EQ(ErrnoOf(bind.status()), EINVAL) << "refused when posted, but not with EINVAL: " << bind.status();
  }
  mw_.reset();  // before `mr`
}

RDMACHECK_ABOUT(MwBindTypeTest, DeregMrWithBoundMwFails,
                "ibv_dereg_mr of an MR with a window bound to it fails with an errno value, and the MR stays "
                "registered: an RDMA WRITE through the window still lands (the errno is recorded)",
                "IBTA Vol 1 10.6.7.2.6 (an MR with bound windows cannot be deregistered); ibv_reg_mr(3) (\"returns "
                "0 on success, or the value of errno on failure\")",
                Cap::kRcQp, Cap::kRdmaWrite);
TEST_P(MwBindTypeTest, DeregMrWithBoundMwFails) {
  std::vector<uint8_t> buffer(4096);
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(local().pd(), absl::MakeSpan(buffer),
                                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND));
  ASSERT_OK_AND_ASSIGN(BindOutcome bind, Bind(mw_.get(), mr.get(), 0, 64));
  ASSERT_EQ(bind.wc.status, IBV_WC_SUCCESS) << DescribeWc(bind.wc);
  const int rc = ibv_dereg_mr(mr.get());
  if (rc == 0) mr.release();  // deregistered after all
  ASSERT_NE(rc, 0) << "an MR with a bound window was deregistered";
  EXPECT_GT(rc, 0) << "ibv_dereg_mr returned " << rc << ": want a (positive) errno value";
  RecordProperty("errno", ErrnoName(rc));

  // Still registered: the window over it still takes a write.
  const std::vector<uint8_t> bytes(8, 0xcd);
  ASSERT_OK(remote().Write(0, bytes));
  RemoteBuffer target{reinterpret_cast<uint64_t>(buffer.data()), bind.rkey, 8};
  ASSERT_OK(remote().Post(SendRequest::Write(/*wr_id=*/89, {{0, 8}}, target)));
  ASSERT_OK_AND_ASSIGN(ibv_wc write, remote().PollSend());
  EXPECT_EQ(write.status, IBV_WC_SUCCESS) << "after the refused dereg: " << DescribeWc(write);
  EXPECT_EQ(buffer[0], 0xcd) << "after the refused dereg, a write through the window did not land";
  mw_.reset();  // unbinds; then the MR can go
}

INSTANTIATE_TEST_SUITE_P(Types, MwBindTypeTest, ::testing::Values(IBV_MW_TYPE_1, IBV_MW_TYPE_2), TypeName);

class MwType1Test : public MwBindTest {
 protected:
  void SetUp() override {
    MwBindTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_OK_AND_ASSIGN(mw_, AllocMw(local().pd(), IBV_MW_TYPE_1));
  }
  void TearDown() override { mw_.reset(); }
  MwPtr mw_;
};

RDMACHECK_ABOUT(MwType1Test, RkeyChangesOnRebind,
                "binding a type 1 window again gives it a new rkey each time",
                "ibv_bind_mw(3) (mw->rkey is updated by each bind); IBTA Vol 1 10.6.7.2", Cap::kMwType1, Cap::kRcQp);
TEST_F(MwType1Test, RkeyChangesOnRebind) {
  const uint32_t initial = mw_->rkey;
  ASSERT_OK_AND_ASSIGN(BindOutcome first, Bind(mw_.get(), local().mr(), kWindowOffset, kWindowLength));
  ASSERT_EQ(first.wc.status, IBV_WC_SUCCESS) << DescribeWc(first.wc);
  ASSERT_OK_AND_ASSIGN(BindOutcome second, Bind(mw_.get(), local().mr(), kWindowOffset, kWindowLength));
  ASSERT_EQ(second.wc.status, IBV_WC_SUCCESS) << DescribeWc(second.wc);
  EXPECT_NE(first.rkey, initial);
  EXPECT_NE(second.rkey, first.rkey);
}

RDMACHECK_ABOUT(MwType1Test, ZeroLengthBindInvalidates,
                "a zero-length bind of a bound type 1 window succeeds, and an RDMA WRITE with the rkey of the earlier "
                "binding then fails with IBV_WC_REM_ACCESS_ERR (on an impaired wire also IBV_WC_RETRY_EXC_ERR: the NAK was "
                "lost)",
                "ibv_bind_mw(3) (length 0 unbinds the window); IBTA Vol 1 10.6.7.2", Cap::kMwType1, Cap::kRcQp,
                Cap::kRdmaWrite);
TEST_F(MwType1Test, ZeroLengthBindInvalidates) {
  ASSERT_OK_AND_ASSIGN(BindOutcome bound, Bind(mw_.get(), local().mr(), kWindowOffset, kWindowLength));
  ASSERT_EQ(bound.wc.status, IBV_WC_SUCCESS) << DescribeWc(bound.wc);
  ASSERT_OK_AND_ASSIGN(BindOutcome unbound, Bind(mw_.get(), local().mr(), kWindowOffset, 0));
  ASSERT_EQ(unbound.wc.status, IBV_WC_SUCCESS) << DescribeWc(unbound.wc);
  ASSERT_OK_AND_ASSIGN(ibv_wc write, WriteThrough(bound.rkey, kWindowOffset));
  EXPECT_EQ(write.status, RefusalAsTold(write, IBV_WC_REM_ACCESS_ERR)) << DescribeWc(write);
}

RDMACHECK_ABOUT(MwBindTest, IbvBindMwRejectsType2,
                "ibv_bind_mw on a type 2 window returns EINVAL (type 2 windows are bound with IBV_WR_BIND_MW)",
                "ibv_bind_mw(3)", Cap::kMwType2, Cap::kRcQp);
TEST_F(MwBindTest, IbvBindMwRejectsType2) {
  ASSERT_OK_AND_ASSIGN(MwPtr mw, AllocMw(local().pd(), IBV_MW_TYPE_2));
  ibv_mw_bind bind{};
  bind.wr_id = 1;
  bind.send_flags = IBV_SEND_SIGNALED;
  bind.bind_info.mr = local().mr();
  bind.bind_info.addr = reinterpret_cast<uint64_t>(local().mr()->addr);
  bind.bind_info.length = 64;
  bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
  EXPECT_THAT(BindMw(local().qp(), mw.get(), &bind), ErrnoIs(EINVAL));
}

}  // namespace
}  // namespace rdmacheck
