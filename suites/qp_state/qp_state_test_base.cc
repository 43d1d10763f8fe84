#include "suites/qp_state/qp_state_test_base.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/connection/qp_transitions.h"
#include "suites/qp_state/transition_cases.h"

namespace rdmacheck {
namespace {

Cap CapOfType(ibv_qp_type type) {
  switch (type) {
    case IBV_QPT_UC: return Cap::kUcQp;
    case IBV_QPT_UD: return Cap::kUdQp;
    case IBV_QPT_XRC_SEND:
    case IBV_QPT_XRC_RECV: return Cap::kXrc;
    default: return Cap::kRcQp;
  }
}

template <typename T>
void Compare(std::vector<std::string>& out, const char* name, T set, T got) {
  if (set != got) out.push_back(absl::StrCat(name, ": set ", static_cast<int64_t>(set), ", query says ",
                                             static_cast<int64_t>(got)));
}

}  // namespace

void QpStateTest::RequireType(ibv_qp_type type) { RDMACHECK_REQUIRE(CapOfType(type)); }

Route QpStateTest::RouteTo(ibv_qp_type type, ibv_qp_state state) {
  if (!NeedsConnection(type, state) || Decide(profile(), Cap::kManualConnect).available) return Route::kManual;
  if (type == IBV_QPT_RC && Decide(profile(), Cap::kRdmaCm).available) return Route::kRdmaCm;
  // No way to connect: skip (GTEST_SKIP returns, hence the lambda); callers check IsSkipped().
  [] { RDMACHECK_REQUIRE(Cap::kManualConnect); }();
  return Route::kManual;
}

void QpStateTest::Start(ibv_qp_type type, ibv_qp_state state) {
  RequireType(type);
  if (IsSkipped()) return;
  const Route route = RouteTo(type, state);
  if (IsSkipped()) return;
  ASSERT_OK_AND_ASSIGN(q_, QpUnderTest::Create(context(), selection(), type, route));
  absl::Status reached = q_->Reach(state);
  if (absl::IsNotFound(reached)) {
    // Only SQE ends here: the device put the QP elsewhere after a send error. That deviation
    // is QpSqeTest's to report, in its instance for this QP type; here the start state is
    // simply out of reach.
    RDMACHECK_SKIP_AS_CONSEQUENCE_OF(absl::StrCat("QpSqeTest.SendErrorEntersSqeAndRtsRecovers/", QpTypeName(type)))
        << "the start state SQE is out of reach: " << reached.message();
  }
  ASSERT_OK(reached);
}

void QpStateTest::ExpectState(ibv_qp* qp, ibv_qp_state expected) {
  absl::StatusOr<ibv_qp_attr> attr = QueryQp(qp, IBV_QP_STATE);
  ASSERT_OK(attr);
  ExpectReadBack(attr->qp_state, expected);
}

void QpStateTest::ExpectReadBack(ibv_qp_state got, ibv_qp_state expected) {
  EXPECT_EQ(got, expected) << "ibv_query_qp says " << QpStateName(got) << ", expected " << QpStateName(expected);
  if (got != expected) return;
  const auto query = profile().observed.find(Cap::kQpStateQuery);
  if (query != profile().observed.end() && query->second.outcome == Outcome::kBroken) {
    ADD_FAILURE() << "ibv_query_qp says " << QpStateName(got) << " as expected, but that proves nothing: this device's "
                  << "query_qp does not report states (qp_state_query broken: " << query->second.detail << ")";
  }
}

std::vector<std::string> QpStateTest::Mismatches(const QpAttr& set, const ibv_qp_attr& got) {
  std::vector<std::string> out;
  const ibv_qp_attr& s = set.attr();
  if (set.has(IBV_QP_EN_SQD_ASYNC_NOTIFY)) Compare(out, "EN_SQD_ASYNC_NOTIFY", s.en_sqd_async_notify, got.en_sqd_async_notify);
  if (set.has(IBV_QP_ACCESS_FLAGS)) Compare(out, "ACCESS_FLAGS", s.qp_access_flags, got.qp_access_flags);
  if (set.has(IBV_QP_PKEY_INDEX)) Compare(out, "PKEY_INDEX", s.pkey_index, got.pkey_index);
  if (set.has(IBV_QP_PORT)) Compare(out, "PORT", s.port_num, got.port_num);
  if (set.has(IBV_QP_QKEY)) Compare(out, "QKEY", s.qkey, got.qkey);
  if (set.has(IBV_QP_PATH_MTU)) Compare(out, "PATH_MTU", static_cast<int>(s.path_mtu), static_cast<int>(got.path_mtu));
  if (set.has(IBV_QP_TIMEOUT)) Compare(out, "TIMEOUT", s.timeout, got.timeout);
  if (set.has(IBV_QP_RETRY_CNT)) Compare(out, "RETRY_CNT", s.retry_cnt, got.retry_cnt);
  if (set.has(IBV_QP_RNR_RETRY)) Compare(out, "RNR_RETRY", s.rnr_retry, got.rnr_retry);
  if (set.has(IBV_QP_RQ_PSN)) Compare(out, "RQ_PSN", s.rq_psn, got.rq_psn);
  if (set.has(IBV_QP_MAX_QP_RD_ATOMIC)) Compare(out, "MAX_QP_RD_ATOMIC", s.max_rd_atomic, got.max_rd_atomic);
  if (set.has(IBV_QP_MIN_RNR_TIMER)) Compare(out, "MIN_RNR_TIMER", s.min_rnr_timer, got.min_rnr_timer);
  if (set.has(IBV_QP_SQ_PSN)) Compare(out, "SQ_PSN", s.sq_psn, got.sq_psn);
  if (set.has(IBV_QP_MAX_DEST_RD_ATOMIC)) {
    Compare(out, "MAX_DEST_RD_ATOMIC", s.max_dest_rd_atomic, got.max_dest_rd_atomic);
  }
  if (set.has(IBV_QP_DEST_QPN)) Compare(out, "DEST_QPN", s.dest_qp_num, got.dest_qp_num);
  if (set.has(IBV_QP_AV)) {
    const ibv_ah_attr &a = s.ah_attr, &b = got.ah_attr;
    Compare(out, "AV.port_num", a.port_num, b.port_num);
    Compare(out, "AV.is_global", a.is_global, b.is_global);
    if (a.is_global) {
      Compare(out, "AV.grh.sgid_index", a.grh.sgid_index, b.grh.sgid_index);
      if (std::memcmp(a.grh.dgid.raw, b.grh.dgid.raw, sizeof(a.grh.dgid.raw)) != 0) {
        out.push_back("AV.grh.dgid: query says another GID");
      }
    } else {
      Compare(out, "AV.dlid", a.dlid, b.dlid);
    }
  }
  return out;
}

}  // namespace rdmacheck
