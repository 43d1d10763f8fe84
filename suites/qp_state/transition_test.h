// The fixture of the table tests: a QP of the case's type, already in the case's
// from-state (qp_state_test_base.h), before each TEST_P body runs.
#ifndef RDMACHECK_SUITES_QP_STATE_TRANSITION_TEST_H_
#define RDMACHECK_SUITES_QP_STATE_TRANSITION_TEST_H_

#include "suites/qp_state/qp_state_test_base.h"
#include "suites/qp_state/transition_cases.h"

namespace rdmacheck {

class TransitionTest : public QpStateTest, public ::testing::WithParamInterface<TransitionCase> {
 protected:
  void SetUp() override {
    QpStateTest::SetUp();
    if (IsSkipped()) return;
    const TransitionCase& c = GetParam();
    // Moving a connected QP from RTR to RTS by hand is what manual wiring is: on a device
    // where that cannot work (iWARP), the transition itself has no test here
    // (IwarpQpTest.ManualRtrToRtsFails documents it).
    if (c.from == IBV_QPS_RTR && c.to == IBV_QPS_RTS && NeedsConnection(c.type, c.to)) {
      RDMACHECK_REQUIRE(Cap::kManualConnect);
    }
    ASSERT_NO_FATAL_FAILURE(Start(c.type, c.from));
  }
};

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_QP_STATE_TRANSITION_TEST_H_
