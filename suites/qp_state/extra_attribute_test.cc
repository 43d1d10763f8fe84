// Every legal transition with one attribute added that the table does not allow for it, for
// each such attribute in turn: the modify fails with EINVAL and the QP stays where it was.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "suites/qp_state/transition_test.h"

namespace rdmacheck {
namespace {

class QpDisallowedAttrTest : public TransitionTest {};

RDMACHECK_ABOUT(QpDisallowedAttrTest, EachFailsAndStateStays,
                "a legal move carrying, besides its required attributes, one attribute the move does not "
                "allow fails with EINVAL and leaves the state as it was; tried for every settable attribute "
                "outside the move's required and optional sets",
                "IBTA Vol 1 11.2.5.2 table 91 (modifiers not listed for a transition are invalid); "
                "ibv_modify_qp(3) EINVAL; kernel ib_modify_qp_is_ok()");
TEST_P(QpDisallowedAttrTest, EachFailsAndStateStays) {
  const TransitionCase& c = GetParam();
  std::vector<std::string> accepted;
  for (ibv_qp_attr_mask bit : AllAttrBits()) {
    if ((c.mask & bit) == 0) continue;
    SCOPED_TRACE(absl::StrCat("with ", AttrBitName(bit)));
    QpAttr attr = TransitionAttr(c.from, c.to, q().values());
    AddAttrs(attr, bit, q().values());
    absl::Status modified = ModifyQp(q().qp(), attr);
    if (modified.ok()) {
      // The QP may have moved: go on from a new one in the start state.
      accepted.push_back(AttrBitName(bit));
      q_.reset();
      ASSERT_NO_FATAL_FAILURE(Start(c.type, c.from));
      continue;
    }
    EXPECT_THAT(modified, HasErrno(EINVAL));
    ExpectState(q().qp(), c.from);
  }
  EXPECT_THAT(accepted, ::testing::IsEmpty()) << "ibv_modify_qp accepted these attributes, which "
                                              << QpStateName(c.from) << "->" << QpStateName(c.to)
                                              << " does not allow";
}

INSTANTIATE_TEST_SUITE_P(Table, QpDisallowedAttrTest, ::testing::ValuesIn(ExtraAttrCases()), TransitionName);

}  // namespace
}  // namespace rdmacheck
