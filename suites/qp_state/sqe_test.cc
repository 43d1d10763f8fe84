// The Send Queue Error state of unreliable QPs: a send that completes in error moves a UC or
// UD QP to SQE (not ERR: its receive queue keeps working), and SQE -> RTS recovers it.
#include "harness/completion.h"
#include "suites/qp_state/qp_state_test_base.h"

namespace rdmacheck {
namespace {

class QpSqeTest : public QpStateTest, public ::testing::WithParamInterface<ibv_qp_type> {};

RDMACHECK_ABOUT(QpSqeTest, SendErrorEntersSqeAndRtsRecovers,
                "a UC/UD send with a stale lkey completes in error and leaves the QP in SQE; SQE->RTS with no "
                "further attributes succeeds and the QP sends again",
                "IBTA Vol 1 10.3.1 (Send Queue Error state: UC, UD), 11.2.5.2 table 91 (SQEr->RTS)");
TEST_P(QpSqeTest, SendErrorEntersSqeAndRtsRecovers) {
  const ibv_qp_type type = GetParam();
  RequireType(type);
  if (IsSkipped()) return;
  if (type == IBV_QPT_UD) RDMACHECK_REQUIRE(Cap::kAddressHandle);
  const Route route = RouteTo(type, IBV_QPS_SQE);
  if (IsSkipped()) return;
  ASSERT_OK_AND_ASSIGN(q_, QpUnderTest::Create(context(), selection(), type, route));
  ASSERT_OK(q().Reach(IBV_QPS_SQE));

  ASSERT_OK(ModifyQp(q().qp(), TransitionAttr(IBV_QPS_SQE, IBV_QPS_RTS, q().values())));
  ExpectState(q().qp(), IBV_QPS_RTS);
  ibv_sge sge = q().Sge(64);
  ibv_send_wr wr = SendWr(/*wr_id=*/9, &sge, 1);
  if (type == IBV_QPT_UD) {
    ASSERT_OK_AND_ASSIGN(wr.wr.ud.ah, q().PeerAh());
    wr.wr.ud.remote_qpn = q().values().peer.qp_num;
    wr.wr.ud.remote_qkey = q().values().path.qkey;
  }
  ASSERT_OK(PostSend(q().qp(), wr));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, PollCompletion(q().cq()));
  EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << DescribeWc(wc);
  EXPECT_EQ(wc.wr_id, 9u);
}

INSTANTIATE_TEST_SUITE_P(Types, QpSqeTest, ::testing::Values(IBV_QPT_UC, IBV_QPT_UD),
                         [](const ::testing::TestParamInfo<ibv_qp_type>& info) { return QpTypeName(info.param); });

}  // namespace
}  // namespace rdmacheck
