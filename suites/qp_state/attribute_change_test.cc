// The transitions that exist to change attributes in place (INIT->INIT, RTS->RTS, SQD->SQD):
// one optional attribute changed to a new valid value; the QP keeps its state and
// ibv_query_qp reports the new value.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "suites/qp_state/transition_test.h"

namespace rdmacheck {
namespace {

class QpAttrChangeTest : public TransitionTest {
 protected:
  // `values` with the attribute of `bit` moved to another valid value.
  static AttrValues Changed(AttrValues values, int bit) {
    if (bit & IBV_QP_QKEY) values.path.qkey = 0x22222222;  // bit 31 clear: no privileged QKey
    if (bit & IBV_QP_MIN_RNR_TIMER) values.path.min_rnr_timer += 2;
    if (bit & IBV_QP_TIMEOUT) values.path.timeout += 2;
    if (bit & IBV_QP_ACCESS_FLAGS) {
      values.path.access ^= values.type == IBV_QPT_UC ? IBV_ACCESS_REMOTE_WRITE : IBV_ACCESS_REMOTE_READ;
    }
    return values;
  }
};

RDMACHECK_ABOUT(QpAttrChangeTest, QueryShowsTheNewValue,
                "a self-transition (INIT->INIT, RTS->RTS, SQD->SQD) changing one optional attribute "
                "succeeds, keeps the state, and ibv_query_qp reports the new value",
                "IBTA Vol 1 11.2.5.2 table 91 (optional modifiers of Init->Init, RTS->RTS, SQD->SQD); "
                "ibv_query_qp(3)");
TEST_P(QpAttrChangeTest, QueryShowsTheNewValue) {
  const TransitionCase& c = GetParam();
  QpAttr attr;
  attr.set_state(c.to);
  AddAttrs(attr, c.mask, Changed(q().values(), c.mask));
  ASSERT_OK(ModifyQp(q().qp(), attr));

  ASSERT_OK_AND_ASSIGN(ibv_qp_attr got, QueryQp(q().qp(), attr.mask()));
  ExpectReadBack(got.qp_state, c.to);
  EXPECT_THAT(Mismatches(attr, got), ::testing::IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(Table, QpAttrChangeTest, ::testing::ValuesIn(AttrChangeCases()),
                         [](const ::testing::TestParamInfo<TransitionCase>& info) {
                           return CaseName(info.param, absl::StrCat("_", AttrMaskNames(info.param.mask)));
                         });

}  // namespace
}  // namespace rdmacheck
