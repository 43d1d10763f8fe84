// iWARP: a QP gets to RTS only with a connected LLP stream (TCP) and the MPA exchange, both
// of which the iWARP connection manager does (rdma_cm on Linux). RESET->INIT->RTR by hand
// works; RTR->RTS by hand has no stream to bind to and fails. The table tests reach RTS and
// later states on iWARP through rdma_cm (QpUnderTest, Route::kRdmaCm); this test documents
// the manual failure itself.
#include "absl/strings/str_cat.h"
#include "suites/qp_state/qp_state_test_base.h"

namespace rdmacheck {
namespace {

class IwarpQpTest : public QpStateTest {};

RDMACHECK_ABOUT(IwarpQpTest, ManualRtrToRtsFails,
                "on iWARP an RC QP moved RESET->INIT->RTR by hand cannot be moved RTR->RTS by hand (with every "
                "attribute IBTA requires): ibv_modify_qp fails with EINVAL, because RTS needs the TCP stream and "
                "MPA negotiation that only the connection manager provides",
                "RFC 5040 (RDMAP), RFC 5044 (MPA: negotiated on the connected stream); kernel siw_qp_nextstate_from_idle() "
                "(drivers/infiniband/sw/siw/siw_qp.c: RTS without LLP handle or MPA -> EINVAL), iw_cm",
                Cap::kRcQp);
TEST_F(IwarpQpTest, ManualRtrToRtsFails) {
  if (!IsIwarp()) {
    GTEST_SKIP() << "applies to iWARP only: this device's transport is "
                 << TransportName(selection().transport)
                 << ", where RTR->RTS by hand is the normal path (QpLegalTransitionTest.*RC_RTR_to_RTS)";
  }
  ASSERT_OK_AND_ASSIGN(q_, QpUnderTest::Create(context(), selection(), IBV_QPT_RC, Route::kManual));
  ASSERT_OK(q().Reach(IBV_QPS_RTR));

  absl::Status rts = ModifyQp(q().qp(), TransitionAttr(IBV_QPS_RTR, IBV_QPS_RTS, q().values()));
  Observe(absl::StrCat("manual RTR->RTS on iWARP: ", rts.ok() ? "succeeded" : std::string(rts.message())));
  EXPECT_THAT(rts, HasErrno(EINVAL));
}

}  // namespace
}  // namespace rdmacheck
