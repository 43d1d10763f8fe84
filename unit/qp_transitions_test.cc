// The QP transition table (harness/connection/qp_transitions.h) and the attribute builders
// made from it: the shape of the table, and the masks the bring-up transitions send.
#include "harness/connection/qp_transitions.h"

#include "gtest/gtest.h"
#include "harness/connection/qp_attr.h"

namespace rdmacheck {
namespace {

const ibv_qp_type kTypes[] = {IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD, IBV_QPT_XRC_SEND, IBV_QPT_XRC_RECV};

TEST(QpTransitionsTest, RequiredAndOptionalAreDisjointAndSettable) {
  for (ibv_qp_type type : kTypes) {
    for (ibv_qp_state from : QpStates()) {
      for (ibv_qp_state to : QpStates()) {
        const TransitionRule r = RuleFor(type, from, to);
        SCOPED_TRACE(::testing::Message() << QpTypeName(type) << " " << QpStateName(from) << "->" << QpStateName(to));
        EXPECT_EQ(r.required & r.optional, 0);
        EXPECT_EQ(r.required & ~kSettableAttrs, 0) << "AddAttrs could not fill " << AttrMaskNames(r.required);
        if (!r.legal) {
          EXPECT_EQ(r.required | r.optional, 0);
        }
      }
    }
  }
}

TEST(QpTransitionsTest, EveryStateHasItsExits) {
  // Any state (but RESET) -> ERR, any state -> RESET; RESET's only way forward is INIT.
  for (ibv_qp_type type : kTypes) {
    for (ibv_qp_state from : QpStates()) {
      if (!StateExists(type, from)) continue;
      EXPECT_TRUE(RuleFor(type, from, IBV_QPS_RESET).legal) << QpTypeName(type) << " " << QpStateName(from);
      EXPECT_EQ(RuleFor(type, from, IBV_QPS_ERR).legal, from != IBV_QPS_RESET)
          << QpTypeName(type) << " " << QpStateName(from);
      EXPECT_FALSE(RuleFor(type, from, IBV_QPS_SQE).legal) << "SQE is entered on errors only";
    }
    EXPECT_FALSE(RuleFor(type, IBV_QPS_RESET, IBV_QPS_RTR).legal);
    EXPECT_FALSE(RuleFor(type, IBV_QPS_INIT, IBV_QPS_RTS).legal);
  }
}

TEST(QpTransitionsTest, LegalPairsPerType) {
  auto count = [](ibv_qp_type type) {
    int n = 0;
    for (ibv_qp_state from : QpStates()) {
      for (ibv_qp_state to : QpStates()) n += StateExists(type, from) && RuleFor(type, from, to).legal;
    }
    return n;
  };
  EXPECT_EQ(count(IBV_QPT_UC), 22);
  EXPECT_EQ(count(IBV_QPT_UD), 22);
  EXPECT_EQ(count(IBV_QPT_RC), 19);  // no SQE
  EXPECT_FALSE(StateExists(IBV_QPT_RC, IBV_QPS_SQE));
}

TEST(QpTransitionsTest, BringUpAttributesAreTheRequiredOnes) {
  const PathOptions path;
  const QpAddress peer{7, 0, {}, 0x10};
  EXPECT_EQ(InitAttr(IBV_QPT_RC, path).mask(), IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
  EXPECT_EQ(InitAttr(IBV_QPT_UD, path).mask(), IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
  EXPECT_EQ(InitAttr(IBV_QPT_UC, path).attr().qp_access_flags,
            static_cast<unsigned>(path.access & IBV_ACCESS_REMOTE_WRITE));
  EXPECT_EQ(RtrAttr(IBV_QPT_RC, peer, path).mask(), IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                                                        IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                                                        IBV_QP_MIN_RNR_TIMER);
  EXPECT_EQ(RtrAttr(IBV_QPT_UC, peer, path).mask(),
            IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN);
  EXPECT_EQ(RtrAttr(IBV_QPT_UD, peer, path).mask(), IBV_QP_STATE);
  EXPECT_EQ(RtrAttr(IBV_QPT_RC, peer, path).attr().dest_qp_num, 7u);
  EXPECT_EQ(RtrAttr(IBV_QPT_RC, peer, path).attr().rq_psn, 0x10u);
  EXPECT_EQ(RtsAttr(IBV_QPT_RC, 0x20, path).mask(), IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
                                                         IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                                         IBV_QP_MAX_QP_RD_ATOMIC);
  EXPECT_EQ(RtsAttr(IBV_QPT_UD, 0x20, path).mask(), IBV_QP_STATE | IBV_QP_SQ_PSN);
  EXPECT_EQ(RtsAttr(IBV_QPT_UD, 0x20, path).attr().sq_psn, 0x20u);
}

TEST(QpTransitionsTest, Names) {
  EXPECT_STREQ(AttrBitName(IBV_QP_PKEY_INDEX), "PKEY_INDEX");
  EXPECT_EQ(AttrMaskNames(IBV_QP_PORT | IBV_QP_PKEY_INDEX), "PKEY_INDEX|PORT");
  EXPECT_EQ(AttrMaskNames(0), "none");
  EXPECT_STREQ(QpTypeName(IBV_QPT_XRC_RECV), "XRC_RECV");
}

}  // namespace
}  // namespace rdmacheck
