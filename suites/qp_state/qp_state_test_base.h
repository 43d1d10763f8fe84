// What the qp_state tests share: the capability gate of each QP type, the route a QP takes
// to a state on this device, reading a QP back, and recording what a device does where the
// spec leaves room.
//
//   class MyTest : public QpStateTest {};
//   TEST_F(MyTest, X) {
//     ASSERT_NO_FATAL_FAILURE(Start(IBV_QPT_RC, IBV_QPS_RTS));
//     if (IsSkipped()) return;
//     ... q().qp() ...
//   }
#ifndef RDMACHECK_SUITES_QP_STATE_QP_STATE_TEST_BASE_H_
#define RDMACHECK_SUITES_QP_STATE_QP_STATE_TEST_BASE_H_

#include <memory>
#include <string>
#include <vector>

#include "harness/connection/qp_attr.h"
#include "testing/device_test.h"
#include "testing/observe.h"
#include "suites/qp_state/qp_under_test.h"

namespace rdmacheck {

class QpStateTest : public DeviceTest {
 protected:
  // Skips unless the device has QPs of `type` (Cap::kRcQp, kUcQp, kUdQp, kXrc).
  static void RequireType(ibv_qp_type type);

  // The way a QP of `type` gets to `state` here: by hand where Cap::kManualConnect holds or
  // no connection is needed; through rdma_cm for RC otherwise (iWARP). Skips, naming
  // manual_connect, when neither works.
  static Route RouteTo(ibv_qp_type type, ibv_qp_state state);

  // A new QP of `type` in `state`, in q(). Skips when the device lacks the type or cannot
  // reach the state (SQE: the reason says where the QP went instead).
  void Start(ibv_qp_type type, ibv_qp_state state);
  QpUnderTest& q() { return *q_; }

  // EXPECTs that ibv_query_qp reports `expected` as the QP's state (ExpectReadBack).
  static void ExpectState(ibv_qp* qp, ibv_qp_state expected);

  // EXPECTs that a state read back with ibv_query_qp, `got`, is `expected`, and that the
  // read-back means something: where the device's query_qp does not report states
  // (capability qp_state_query broken), a read-back that agrees with the test proves
  // nothing, and fails too.
  static void ExpectReadBack(ibv_qp_state got, ibv_qp_state expected);

  // The attributes of `set` whose value ibv_query_qp reports differently, one line each
  // ("PATH_MTU: set 3, query says 5"); empty when all match.
  static std::vector<std::string> Mismatches(const QpAttr& set, const ibv_qp_attr& got);

  std::unique_ptr<QpUnderTest> q_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_QP_STATE_QP_STATE_TEST_BASE_H_
