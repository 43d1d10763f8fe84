// Local access: the requester's own SGEs and the responder's receive SGEs are checked too.
// An lkey that is wrong, of an MR on another PD than the QP's, or of memory without
// LOCAL_WRITE where the device must write ends in IBV_WC_LOC_PROT_ERR on the side that
// owns the SGE, and the memory behind it is untouched.
#include <infiniband/verbs.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/connection/guarded_target.h"
#include "suites/access/refusal.h"
#include "testing/completion_matchers.h"
#include "testing/pair_test.h"
#include "testing/qp_error_state.h"

namespace rdmacheck {
namespace {

enum class LocalFault {
  kBadLkey,        // an lkey whose key byte differs from the MR's
  kMrOfAnotherPd,  // a valid lkey of an MR on another PD than the QP's
  kNoLocalWrite,   // the device must write into an MR registered without LOCAL_WRITE
};

std::string LocalFaultName(LocalFault fault) {
  switch (fault) {
    case LocalFault::kBadLkey: return "BadLkey";
    case LocalFault::kMrOfAnotherPd: return "MrOfAnotherPd";
    case LocalFault::kNoLocalWrite: return "NoLocalWrite";
  }
  return "?";
}
std::string ParamName(LocalFault fault) { return LocalFaultName(fault); }

struct LocalCase {
  AccessOp op;
  LocalFault fault;
};
std::string ParamName(const LocalCase& c) { return AccessOpName(c.op) + "_" + LocalFaultName(c.fault); }

// The memory behind a faulty SGE, on the side that owns the SGE: a guarded target on the
// endpoint's PD or on a PD of its own, with LOCAL_WRITE unless the fault is its absence.
GuardSpec FaultyMemory(LocalFault fault) {
  GuardSpec spec;
  spec.access = fault == LocalFault::kNoLocalWrite ? 0 : IBV_ACCESS_LOCAL_WRITE;
  spec.other_pd = fault == LocalFault::kMrOfAnotherPd;
  return spec;
}
// What to XOR the target's lkey with: non-zero for a bad lkey.
uint32_t LkeyXor(LocalFault fault) { return fault == LocalFault::kBadLkey ? 0x5a : 0; }

class LocalSgeAccessTest : public PairTestWith<LocalCase> {};

RDMACHECK_ABOUT(LocalSgeAccessTest, RequesterReportsLocalProtectionError,
                "a SEND / RDMA WRITE / RDMA READ whose local SGE has a bad lkey, an MR of another PD, or (READ: "
                "the device writes into it) lacks LOCAL_WRITE completes with IBV_WC_LOC_PROT_ERR; the local "
                "memory and the peer's buffer are untouched",
                "IBTA Vol 1 10.6.3.1 (L_Key checks: key, PD, access), 11.6.2; ibv_poll_cq(3) IBV_WC_LOC_PROT_ERR",
                Cap::kRcQp);
TEST_P(LocalSgeAccessTest, RequesterReportsLocalProtectionError) {
  const LocalCase& c = param();
  RDMACHECK_REQUIRE(CapOf(c.op));
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK(pair.remote().Fill({0, 64}, Pattern::Constant(0x3c)));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> faulty, pair.local().Guard(FaultyMemory(c.fault)));
  ibv_sge sge{faulty->remote().addr, 8, faulty->lkey() ^ LkeyXor(c.fault)};

  ibv_send_wr wr = c.op == AccessOp::kSend
                       ? SendWr(1, &sge, 1)
                       : RdmaWr(1, &sge, 1, c.op == AccessOp::kWrite ? IBV_WR_RDMA_WRITE : IBV_WR_RDMA_READ,
                                pair.local().peer_buffer().At(0, 8));
  ASSERT_OK(pair.remote().PostRecv(2, 0, 64));
  ASSERT_OK(pair.local().PostSend(wr));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(ErrorCompletion(1, pair.local().qp_num(), IBV_WC_LOC_PROT_ERR)));
  EXPECT_OK(faulty->CheckCanary());
  EXPECT_OK(pair.remote().Check({0, 64}, Pattern::Constant(0x3c)));
}

std::vector<LocalCase> AllLocalCases() {
  return {{AccessOp::kSend, LocalFault::kBadLkey},  {AccessOp::kSend, LocalFault::kMrOfAnotherPd},
          {AccessOp::kWrite, LocalFault::kBadLkey}, {AccessOp::kWrite, LocalFault::kMrOfAnotherPd},
          {AccessOp::kRead, LocalFault::kBadLkey},  {AccessOp::kRead, LocalFault::kMrOfAnotherPd},
          {AccessOp::kRead, LocalFault::kNoLocalWrite}};
}
INSTANTIATE_TEST_SUITE_P(Connect, LocalSgeAccessTest,
                         ::testing::Combine(AllConnectMethods(), ::testing::ValuesIn(AllLocalCases())),
                         PairParamName<LocalCase>);

class ReceiveSgeAccessTest : public PairTestWith<LocalFault> {};

// What the sender of a SEND that the receiver could not place is told.
//   InfiniBand/RoCE: IBV_WC_REM_OP_ERR (NAK Remote Operational Error; ibv_poll_cq(3): "a
//     malformed WQE on the Receive Queue"). iWARP: the SEND may complete before the
//     receiver's TERMINATE arrives (RFC 5040 7.1), or with the TERMINATE's error.
std::set<ibv_wc_status> SenderStatuses(bool iwarp) {
  if (iwarp) return {IBV_WC_SUCCESS, IBV_WC_REM_OP_ERR, IBV_WC_REM_ACCESS_ERR};
  return {IBV_WC_REM_OP_ERR};
}

RDMACHECK_ABOUT(ReceiveSgeAccessTest, ReceiverReportsLocalProtectionError,
                "a SEND arrives at a receive whose SGE has a bad lkey, an MR of another PD, or no LOCAL_WRITE: the "
                "receive completes with IBV_WC_LOC_PROT_ERR, the sender is told (IB/RoCE: IBV_WC_REM_OP_ERR), "
                "and the receive memory keeps its canary; every QP that got an error completion reads back ERR (ibv_query_qp)",
                "IBTA Vol 1 10.6.3.1, 9.9.3 (responder class B error: NAK Remote Operational Error), 10.3.1; "
                "ibv_poll_cq(3), ibv_query_qp(3)",
                Cap::kRcQp);
TEST_P(ReceiveSgeAccessTest, ReceiverReportsLocalProtectionError) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  // The faulty receive is on the responder's side: on the peer host in two-host mode.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GuardedTarget> faulty, pair.remote().Guard(FaultyMemory(param())));
  ASSERT_OK(faulty->PostRecv(2, 64, LkeyXor(param())));
  ASSERT_OK(pair.local().Fill({0, 64}, Pattern::Seeded(9)));
  ASSERT_OK(pair.local().Post(SendRequest::Send(1, {{0, 64}})));

  ASSERT_OK_AND_ASSIGN(ibv_wc received, pair.remote().PollRecv());
  EXPECT_THAT(received, CompletionIs(ErrorCompletion(2, pair.remote().qp_num(), IBV_WC_LOC_PROT_ERR)));
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, pair.local().PollSend());
  EXPECT_THAT(sent, IsRefusal(SenderStatuses(IsIwarp())));
  ExpectErrorStateAfter(pair.remote(), received, "receiver");
  ExpectErrorStateAfter(pair.local(), sent, "sender");
  EXPECT_OK(faulty->CheckCanary());
}

INSTANTIATE_TEST_SUITE_P(Connect, ReceiveSgeAccessTest,
                         ::testing::Combine(AllConnectMethods(),
                                            ::testing::Values(LocalFault::kBadLkey, LocalFault::kMrOfAnotherPd,
                                                              LocalFault::kNoLocalWrite)),
                         PairParamName<LocalFault>);

}  // namespace
}  // namespace rdmacheck
