// Every required attribute of every legal transition, left out on its own: the modify fails
// with EINVAL and the QP stays where it was. (Leaving out each attribute alone, not just
// sending each one alone, is what shows that every one of them is really checked.)
#include "suites/qp_state/transition_test.h"

namespace rdmacheck {
namespace {

class QpMissingAttrTest : public TransitionTest {};

RDMACHECK_ABOUT(QpMissingAttrTest, FailsAndStateStays,
                "a legal move without one of its required attributes fails with EINVAL, and ibv_query_qp "
                "still reports the state the QP was in",
                "IBTA Vol 1 11.2.5.2 table 91 (required modifiers); ibv_modify_qp(3) EINVAL");
TEST_P(QpMissingAttrTest, FailsAndStateStays) {
  const TransitionCase& c = GetParam();
  QpAttr attr = TransitionAttr(c.from, c.to, q().values());
  attr.clear(static_cast<ibv_qp_attr_mask>(c.mask));

  EXPECT_THAT(ModifyQp(q().qp(), attr), HasErrno(EINVAL)) << "sent: " << AttrMaskNames(attr.mask());
  ExpectState(q().qp(), c.from);
}

INSTANTIATE_TEST_SUITE_P(Table, QpMissingAttrTest, ::testing::ValuesIn(MissingAttrCases()), MissingAttrName);

}  // namespace
}  // namespace rdmacheck
