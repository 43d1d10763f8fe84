// Every (from, to) pair the table does not list, for every QP type: the modify fails with
// EINVAL and the QP stays in its state. The request carries the attributes of the usual way
// into `to` (e.g. RESET->RTR with INIT->RTR's), so that only the starting state is wrong.
#include "suites/qp_state/transition_test.h"

namespace rdmacheck {
namespace {

class QpIllegalTransitionTest : public TransitionTest {};

RDMACHECK_ABOUT(QpIllegalTransitionTest, FailsAndStateStays,
                "a move between states that the QP state machine does not connect fails with EINVAL, and "
                "ibv_query_qp still reports the state the QP was in",
                "IBTA Vol 1 10.3.1 (QP state diagram), 11.2.5.2 table 91; ibv_modify_qp(3) EINVAL");
TEST_P(QpIllegalTransitionTest, FailsAndStateStays) {
  const TransitionCase& c = GetParam();
  QpAttr attr;
  attr.set_state(c.to);
  AddAttrs(attr, c.mask, q().values());

  EXPECT_THAT(ModifyQp(q().qp(), attr), HasErrno(EINVAL)) << "sent: " << AttrMaskNames(attr.mask());
  ExpectState(q().qp(), c.from);
}

INSTANTIATE_TEST_SUITE_P(Table, QpIllegalTransitionTest, ::testing::ValuesIn(IllegalCases()), TransitionName);

}  // namespace
}  // namespace rdmacheck
