// A fixture for tests over QP types that need a connected pair of the type: RC connected
// the way the device supports (manual, else rdma_cm), UC wired by hand (rdma_cm does not
// connect UC here), UD addressed by hand.
#ifndef RDMACHECK_SUITES_QP_STATE_PAIR_TYPE_TEST_H_
#define RDMACHECK_SUITES_QP_STATE_PAIR_TYPE_TEST_H_

#include <string>

#include "suites/qp_state/qp_state_test_base.h"

namespace rdmacheck {

class PairTypeTest : public QpStateTest, public ::testing::WithParamInterface<ibv_qp_type> {
 protected:
  void SetUp() override {
    QpStateTest::SetUp();
    if (IsSkipped()) return;
    RequireType(type());
    if (type() == IBV_QPT_UC) RDMACHECK_REQUIRE(Cap::kManualConnect);
  }
  ibv_qp_type type() const { return GetParam(); }
  // `options` for this instance's type and the connect method it takes.
  PairOptions Options(PairOptions options = {}) const {
    options.qp_type = type();
    options.method = type() == IBV_QPT_RC ? connect_method() : ConnectMethod::kManual;
    return options;
  }
};

inline auto PairTypes() { return ::testing::Values(IBV_QPT_RC, IBV_QPT_UC, IBV_QPT_UD); }
inline std::string PairTypeName(const ::testing::TestParamInfo<ibv_qp_type>& info) { return QpTypeName(info.param); }

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_QP_STATE_PAIR_TYPE_TEST_H_
