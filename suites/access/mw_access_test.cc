// Remote access through a memory window: the window's rkey opens only the window, only
// with the rights the bind granted, only while the window is bound. Each refused access
// leaves the window's MR and the pages around it untouched.
// The window is bound with verbs calls on the responder's QP, so the responder is
// pair.local() (in this process in every mode) and the requests come from pair.remote()
// (on the peer host in two-host mode).
#include <infiniband/verbs.h>

#include <string>
#include <vector>

#include "harness/completion.h"
#include "harness/status.h"
#include "testing/pair_test.h"
#include "harness/verbs/factories.h"
#include "harness/verbs/post.h"
#include "harness/connection/guarded_region.h"
#include "suites/access/refusal.h"

namespace rdmacheck {
namespace {

constexpr size_t kWindowOffset = 256;
constexpr uint32_t kWindowLength = 64;

enum class MwFault {
  kDeallocated,    // the window was deallocated after the bind
  kInvalidated,    // type 1: re-bound with length 0; type 2: IBV_WR_LOCAL_INV of its rkey
  kOutsideWindow,  // just past the window, inside the MR
  kMissingRight,   // the bind granted the other remote right only
};

std::string MwFaultName(MwFault fault) {
  switch (fault) {
    case MwFault::kDeallocated: return "Deallocated";
    case MwFault::kInvalidated: return "Invalidated";
    case MwFault::kOutsideWindow: return "OutsideWindow";
    case MwFault::kMissingRight: return "MissingRight";
  }
  return "?";
}

struct MwCase {
  ibv_mw_type type;
  AccessOp op;
  MwFault fault;
};
std::string ParamName(const MwCase& c) {
  return std::string(c.type == IBV_MW_TYPE_1 ? "Type1_" : "Type2_") + AccessOpName(c.op) + "_" + MwFaultName(c.fault);
}

std::vector<MwCase> AllMwCases() {
  std::vector<MwCase> cases;
  for (ibv_mw_type type : {IBV_MW_TYPE_1, IBV_MW_TYPE_2}) {
    for (AccessOp op : {AccessOp::kWrite, AccessOp::kRead}) {
      for (MwFault fault : {MwFault::kDeallocated, MwFault::kInvalidated, MwFault::kOutsideWindow,
                            MwFault::kMissingRight}) {
        cases.push_back({type, op, fault});
      }
    }
  }
  return cases;
}

class MwAccessTest : public PairTestWith<MwCase> {
 protected:
  // Binds `mw` over the window of `mr` granting `rights` through pair.local()'s QP (type 1:
  // ibv_bind_mw; type 2: an IBV_WR_BIND_MW work request) and returns the window's rkey.
  static absl::StatusOr<uint32_t> Bind(ConnectedPair& pair, ibv_mw* mw, ibv_mr* mr, size_t offset, uint64_t length,
                                       int rights) {
    uint32_t rkey = 0;
    if (mw->type == IBV_MW_TYPE_1) {
      ibv_mw_bind bind{};
      bind.wr_id = 70;
      bind.send_flags = IBV_SEND_SIGNALED;
      bind.bind_info = {mr, reinterpret_cast<uint64_t>(mr->addr) + offset, length, static_cast<unsigned>(rights)};
      if (int rc = BindMw(pair.local().qp(), mw, &bind); rc != 0) return ErrnoStatus(rc, "ibv_bind_mw");
      rkey = mw->rkey;
    } else {
      ibv_send_wr wr = BindMwWr(70, mw, mr, offset, length, rights);
      RDMACHECK_RETURN_IF_ERROR(pair.local().PostSend(wr));
      rkey = wr.bind_mw.rkey;
    }
    RDMACHECK_ASSIGN_OR_RETURN(ibv_wc wc, PollCompletion(pair.local().send_cq()));
    if (wc.status != IBV_WC_SUCCESS) return absl::InternalError("the bind failed: " + DescribeWc(wc));
    return rkey;
  }

  // Takes the window away again as the fault says.
  static absl::Status Invalidate(ConnectedPair& pair, MwPtr& mw, ibv_mr* mr, uint32_t rkey) {
    if (mw->type == IBV_MW_TYPE_1) return Bind(pair, mw.get(), mr, 0, 0, 0).status();
    ibv_send_wr wr{};
    wr.wr_id = 71;
    wr.opcode = IBV_WR_LOCAL_INV;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.invalidate_rkey = rkey;
    RDMACHECK_RETURN_IF_ERROR(pair.local().PostSend(wr));
    RDMACHECK_ASSIGN_OR_RETURN(ibv_wc wc, PollCompletion(pair.local().send_cq()));
    if (wc.status != IBV_WC_SUCCESS) return absl::InternalError("the local invalidate failed: " + DescribeWc(wc));
    return absl::OkStatus();
  }
};

RDMACHECK_ABOUT(MwAccessTest, IsRefusedAndMemoryIsUntouched,
                "an RDMA WRITE / READ through a type 1 or type 2 window that was deallocated, invalidated, that "
                "does not cover the addressed bytes (inside the MR, past the window) or whose bind did not grant "
                "the right is refused with IBV_WC_REM_ACCESS_ERR, and the MR and the pages around it keep their "
                "canary; every QP that got an error completion reads back ERR (ibv_query_qp)",
                "IBTA Vol 1 10.6.7 (memory windows), 10.6.3.2 (R_Key checks of a window: bounds and rights of the "
                "bind); ibv_bind_mw(3), ibv_alloc_mw(3)",
                Cap::kRcQp);
TEST_P(MwAccessTest, IsRefusedAndMemoryIsUntouched) {
  const MwCase& c = param();
  RDMACHECK_REQUIRE(c.type == IBV_MW_TYPE_1 ? Cap::kMwType1 : Cap::kMwType2);
  RDMACHECK_REQUIRE(CapOf(c.op));
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK_AND_ASSIGN(GuardedRegion target,
                       GuardedRegion::Create(pair.local().pd(), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
                                                                    IBV_ACCESS_REMOTE_READ | IBV_ACCESS_MW_BIND));
  ASSERT_OK_AND_ASSIGN(MwPtr mw, AllocMw(pair.local().pd(), c.type));
  const int granted = c.fault == MwFault::kMissingRight
                          ? (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) & ~RemoteRightOf(c.op)
                          : IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  ASSERT_OK_AND_ASSIGN(uint32_t rkey, Bind(pair, mw.get(), target.mr(), kWindowOffset, kWindowLength, granted));

  RemoteBuffer aim{target.remote().addr + kWindowOffset, rkey, 8};
  switch (c.fault) {
    case MwFault::kDeallocated: mw.reset(); break;
    case MwFault::kInvalidated: ASSERT_OK(Invalidate(pair, mw, target.mr(), rkey)); break;
    case MwFault::kOutsideWindow: aim.addr += kWindowLength; break;
    case MwFault::kMissingRight: break;
  }
  ASSERT_OK(pair.remote().Fill({0, 64}, Pattern::Constant(0xa5)));
  ASSERT_OK_AND_ASSIGN(Refusal refusal, PostRefused(pair.remote(), pair.local(), RequestOf(c.op, /*wr_id=*/1, aim)));
  EXPECT_THAT(refusal.requester, IsRefusal(RemoteAccessStatuses(c.op, IsIwarp())));
  EXPECT_THAT(refusal.responder_recv, IsFlushed());
  ExpectErrorStates(refusal, pair.remote(), pair.local());
  EXPECT_OK(target.CheckCanary());
  if (c.op == AccessOp::kRead) {
    EXPECT_OK(pair.remote().Check({0, 64}, Pattern::Constant(0xa5))) << "the refused READ brought bytes back";
  }
}

INSTANTIATE_TEST_SUITE_P(Connect, MwAccessTest,
                         ::testing::Combine(AllConnectMethods(), ::testing::ValuesIn(AllMwCases())),
                         PairParamName<MwCase>);

}  // namespace
}  // namespace rdmacheck
