// Every legal transition of every QP type, with exactly the attributes the table requires:
// ibv_modify_qp succeeds, and ibv_query_qp reports the new state and every attribute set.
#include "gmock/gmock.h"
#include "suites/qp_state/transition_test.h"

namespace rdmacheck {
namespace {

class QpLegalTransitionTest : public TransitionTest {};

RDMACHECK_ABOUT(QpLegalTransitionTest, SucceedsAndQueryShowsIt,
                "a legal (from, to) move with exactly its required attributes succeeds; ibv_query_qp then "
                "reports the new state and the value of every attribute the move set",
                "IBTA Vol 1 10.3.1, 11.2.5.2 table 91; ibv_modify_qp(3), ibv_query_qp(3); kernel "
                "qp_state_table (drivers/infiniband/core/verbs.c)");
TEST_P(QpLegalTransitionTest, SucceedsAndQueryShowsIt) {
  const TransitionCase& c = GetParam();
  const QpAttr attr = TransitionAttr(c.from, c.to, q().values());
  ASSERT_OK(ModifyQp(q().qp(), attr));

  ASSERT_OK_AND_ASSIGN(ibv_qp_attr got, QueryQp(q().qp(), attr.mask()));
  ExpectReadBack(got.qp_state, c.to);
  EXPECT_THAT(Mismatches(attr, got), ::testing::IsEmpty()) << "set: " << AttrMaskNames(attr.mask());
}

INSTANTIATE_TEST_SUITE_P(Table, QpLegalTransitionTest, ::testing::ValuesIn(LegalCases()), TransitionName);

}  // namespace
}  // namespace rdmacheck
