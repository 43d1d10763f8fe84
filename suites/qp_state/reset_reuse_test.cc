// A QP that went to ERR is usable again after ERR -> RESET -> INIT -> RTR -> RTS: both QPs of
// a pair are reset and re-wired with new PSNs, and a message goes through. Both sides are
// driven through Endpoint, so the remote one may be on the peer host (two-host mode).
#include "harness/completion.h"
#include "suites/qp_state/pair_type_test.h"

namespace rdmacheck {
namespace {

class QpResetReuseTest : public PairTypeTest {};

// One SEND from local to remote; both completions must succeed.
void ExpectSendGoesThrough(ConnectedPair& pair, uint64_t wr_id) {
  ASSERT_OK(pair.remote().PostRecv(wr_id, 0, 256));
  ASSERT_OK(pair.local().Post(SendRequest::Send(wr_id, {{0, 64}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_EQ(send.status, IBV_WC_SUCCESS) << DescribeWc(send);
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_EQ(recv.status, IBV_WC_SUCCESS) << DescribeWc(recv);
  EXPECT_EQ(recv.wr_id, wr_id);
}

RDMACHECK_ABOUT(QpResetReuseTest, ErrResetAndBringUpCarriesTrafficAgain,
                "after a message, both QPs of a pair go to ERR and then RESET (ibv_query_qp says RESET); "
                "brought up again by hand with new PSNs, they carry a message again",
                "IBTA Vol 1 10.3.1 (Reset: any state -> Reset returns the QP to its created condition); "
                "ibv_modify_qp(3)");
TEST_P(QpResetReuseTest, ErrResetAndBringUpCarriesTrafficAgain) {
  // Re-wiring after RESET is manual wiring; iWARP QPs get to RTS only inside rdma_cm.
  if (type() != IBV_QPT_UD) RDMACHECK_REQUIRE(Cap::kManualConnect);
  PairOptions options = Options();
  options.method = ConnectMethod::kManual;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_NO_FATAL_FAILURE(ExpectSendGoesThrough(pair, 1));

  // Through Endpoint: the remote QP may be on the peer host (two-host mode).
  for (Endpoint* e : {static_cast<Endpoint*>(&pair.local()), &pair.remote()}) {
    ASSERT_OK(e->MoveQpTo(IBV_QPS_ERR));
    ASSERT_OK(e->MoveQpTo(IBV_QPS_RESET));
    ASSERT_OK_AND_ASSIGN(ibv_qp_state state, e->QpState());
    ExpectReadBack(state, IBV_QPS_RESET);
  }
  constexpr uint32_t kLocalPsn = 0x3000, kRemotePsn = 0x4000;
  QpAddress to_remote = pair.remote().address();
  to_remote.psn = kRemotePsn;
  QpAddress to_local = pair.local().address();
  to_local.psn = kLocalPsn;
  ASSERT_OK(pair.local().Rewire(to_remote, kLocalPsn, pair.options()));
  ASSERT_OK(pair.remote().Rewire(to_local, kRemotePsn, pair.options()));
  ExpectState(pair.local().qp(), IBV_QPS_RTS);

  ASSERT_NO_FATAL_FAILURE(ExpectSendGoesThrough(pair, 2));
}

INSTANTIATE_TEST_SUITE_P(Types, QpResetReuseTest, PairTypes(), PairTypeName);

}  // namespace
}  // namespace rdmacheck
