// Remote access through a memory region: an RDMA WRITE, READ or atomic that names the
// wrong rkey, a right the MR does not grant, bytes outside the MR, or an MR of another PD
// is refused by the responder, and not one byte inside or around the MR changes.
// The spec is a table (IBTA Vol 1 10.6.3.2: the responder validates R_Key, PD, access
// rights and bounds of every remote access), so the test is one TEST_P over it. The target
// MR is on the responder's side wherever it lives (two-host mode: on the peer host, its
// canary read back over the side channel).
#include <infiniband/verbs.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/connection/guarded_target.h"
#include "suites/access/refusal.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

constexpr int kAllRemoteRights =
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

enum class Fault {
  kWrongRkey,        // an rkey whose key byte differs from the MR's
  kDeregisteredMr,   // the rkey of an MR deregistered before the request
  kMissingRight,     // the MR grants every remote right except the one the request needs
  kOneBeforeTheMr,   // the bytes just before the MR's first byte
  kOnePastTheMr,     // the bytes just after the MR's last byte
  kStraddlesTheEnd,  // starts inside the MR, ends past it
  kMrOfAnotherPd,    // a valid rkey, but the MR is on another PD than the responder's QP
};

std::string FaultName(Fault fault) {
  switch (fault) {
    case Fault::kWrongRkey: return "WrongRkey";
    case Fault::kDeregisteredMr: return "DeregisteredMr";
    case Fault::kMissingRight: return "MissingRight";
    case Fault::kOneBeforeTheMr: return "OneBeforeTheMr";
    case Fault::kOnePastTheMr: return "OnePastTheMr";
    case Fault::kStraddlesTheEnd: return "StraddlesTheEnd";
    case Fault::kMrOfAnotherPd: return "MrOfAnotherPd";
  }
  return "?";
}

struct RemoteCase {
  AccessOp op;
  Fault fault;
};
std::string ParamName(const RemoteCase& c) { return AccessOpName(c.op) + "_" + FaultName(c.fault); }

std::vector<RemoteCase> AllRemoteCases() {
  std::vector<RemoteCase> cases;
  for (AccessOp op : {AccessOp::kWrite, AccessOp::kRead, AccessOp::kCompareSwap, AccessOp::kFetchAdd}) {
    for (Fault fault : {Fault::kWrongRkey, Fault::kDeregisteredMr, Fault::kMissingRight, Fault::kOneBeforeTheMr,
                        Fault::kOnePastTheMr, Fault::kStraddlesTheEnd, Fault::kMrOfAnotherPd}) {
      // An atomic's 8 bytes must be 8-aligned (IBTA 9.4.5), so it cannot straddle the end.
      if (IsAtomic(op) && fault == Fault::kStraddlesTheEnd) continue;
      cases.push_back({op, fault});
    }
  }
  return cases;
}

// Where the request goes: 8 bytes (an atomic's size) placed as the fault says.
RemoteBuffer Aim(const RemoteBuffer& mr, const RemoteCase& c) {
  constexpr uint32_t kLength = 8;
  switch (c.fault) {
    case Fault::kWrongRkey: return {mr.addr, mr.rkey ^ 0x5a, kLength};
    case Fault::kOneBeforeTheMr: return {mr.addr - kLength, mr.rkey, kLength};
    case Fault::kOnePastTheMr: return {mr.addr + mr.length, mr.rkey, kLength};
    case Fault::kStraddlesTheEnd: return {mr.addr + mr.length - kLength / 2, mr.rkey, kLength};
    default: return mr.At(0, kLength);
  }
}

class RemoteMrAccessTest : public PairTestWith<RemoteCase> {};

RDMACHECK_ABOUT(RemoteMrAccessTest, IsRefusedAndMemoryIsUntouched,
                "an RDMA WRITE / READ / atomic with a wrong or stale rkey, a missing access right, an address "
                "outside the MR or an MR of another PD completes with IBV_WC_REM_ACCESS_ERR at the requester "
                "(iWARP WRITE: may complete before the TERMINATE), the responder's QP goes to the error state, "
                "the MR and the pages around it keep their canary, and a READ/atomic brings nothing back; every QP that got an error completion reads back ERR (ibv_query_qp)",
                "IBTA Vol 1 10.6.3.2 (R_Key checks), 9.7.5.2.5 (NAK Remote Access Error), 9.9.3 (responder QP to "
                "Error); RFC 5040 7.1 (iWARP: the data sink terminates)",
                Cap::kRcQp);
TEST_P(RemoteMrAccessTest, IsRefusedAndMemoryIsUntouched) {
  const RemoteCase& c = param();
  RDMACHECK_REQUIRE(CapOf(c.op));
  PairOptions options = Options();
  if (IsAtomic(c.op)) options.EnableAtomics();
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));

  // On the responder's side: in this process, or on the peer host in two-host mode.
  GuardSpec spec;
  spec.access = c.fault == Fault::kMissingRight ? kAllRemoteRights & ~RemoteRightOf(c.op) : kAllRemoteRights;
  spec.other_pd = c.fault == Fault::kMrOfAnotherPd;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> target, pair.remote().Guard(spec));
  const RemoteBuffer aim = Aim(target->remote(), c);
  if (c.fault == Fault::kDeregisteredMr) ASSERT_OK(target->Deregister());

  ASSERT_OK(pair.local().Fill({0, 64}, Pattern::Constant(0xa5)));
  ASSERT_OK_AND_ASSIGN(Refusal refusal, PostRefused(pair, RequestOf(c.op, /*wr_id=*/1, aim)));
  EXPECT_THAT(refusal.requester, IsRefusal(RemoteAccessStatuses(c.op, IsIwarp())));
  EXPECT_EQ(refusal.requester.wr_id, 1u);
  EXPECT_THAT(refusal.responder_recv, IsFlushed());
  ExpectErrorStates(refusal, pair.local(), pair.remote());
  EXPECT_OK(target->CheckCanary());
  if (c.op != AccessOp::kWrite) {
    EXPECT_OK(pair.local().Check({0, 64}, Pattern::Constant(0xa5))) << "the refused request brought bytes back";
  }
}

INSTANTIATE_TEST_SUITE_P(Connect, RemoteMrAccessTest,
                         ::testing::Combine(AllConnectMethods(), ::testing::ValuesIn(AllRemoteCases())),
                         PairParamName<RemoteCase>);

class ReregAccessTest : public PairTestWith<AccessOp> {};

RDMACHECK_ABOUT(ReregAccessTest, DroppedRightIsRefused,
                "after ibv_rereg_mr(IBV_REREG_MR_CHANGE_ACCESS) takes away REMOTE_WRITE / REMOTE_READ, a request "
                "that needs the dropped right is refused with IBV_WC_REM_ACCESS_ERR and the memory is untouched; every QP that got an error completion reads back ERR (ibv_query_qp)",
                "ibv_rereg_mr(3); IBTA Vol 1 11.2.8.4 (Reregister Memory Region), 10.6.3.2", Cap::kRcQp,
                Cap::kReregMr);
TEST_P(ReregAccessTest, DroppedRightIsRefused) {
  const AccessOp op = param();
  RDMACHECK_REQUIRE(CapOf(op));
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> target,
                       pair.remote().Guard({kAllRemoteRights & ~IBV_ACCESS_REMOTE_ATOMIC, false, {}}));
  const int reduced = IBV_ACCESS_LOCAL_WRITE | ((IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) & ~RemoteRightOf(op));
  ASSERT_OK(target->Reregister(reduced));

  ASSERT_OK(pair.local().Fill({0, 64}, Pattern::Constant(0xa5)));
  // The keys may change with the re-registration (ibv_rereg_mr(3)): remote() has the current ones.
  const RemoteBuffer aim = target->remote().At(0, 8);
  ASSERT_OK_AND_ASSIGN(Refusal refusal, PostRefused(pair, RequestOf(op, /*wr_id=*/1, aim)));
  EXPECT_THAT(refusal.requester, IsRefusal(RemoteAccessStatuses(op, IsIwarp())));
  EXPECT_THAT(refusal.responder_recv, IsFlushed());
  ExpectErrorStates(refusal, pair.local(), pair.remote());
  EXPECT_OK(target->CheckCanary());
}

INSTANTIATE_TEST_SUITE_P(Connect, ReregAccessTest,
                         ::testing::Combine(AllConnectMethods(), ::testing::Values(AccessOp::kWrite, AccessOp::kRead)),
                         PairParamName<AccessOp>);

}  // namespace
}  // namespace rdmacheck
