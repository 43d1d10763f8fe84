// One QP of a chosen type, brought to the state a state-machine test starts from, with
// everything its transitions need around it: a PD, a CQ, a registered buffer, a peer QP for
// RTR to point at, and a valid value for every attribute (AttrValues).
//
//   ASSERT_OK_AND_ASSIGN(auto q, QpUnderTest::Create(context(), selection(), IBV_QPT_UC, Route::kManual));
//   ASSERT_OK(q->Reach(IBV_QPS_RTS));
//   EXPECT_OK(ModifyQp(q->qp(), TransitionAttr(IBV_QPS_RTS, IBV_QPS_SQD, q->values())));
//
// How states are reached (IBTA §10.3.1):
//   RESET  the QP as created;            INIT  RESET->INIT;         RTR  INIT->RTR (peer QP);
//   RTS    manual: RTR->RTS. rdma_cm: the active side of a connection, born in RTS (iWARP:
//          only the MPA exchange inside rdma_cm brings a QP to RTS);
//   SQD    RTS->SQD, then the drain is waited for (ibv_query_qp: SQD, sq_draining 0);
//   SQE    UC/UD only: RTS, then a send with an invalid lkey (IBTA: an unreliable QP's send
//          error moves it to SQE). A device that moves it to ERR instead gets kNotFound;
//   ERR    RESET->INIT->ERR (needs no connection).
// The peer QP stays in RESET: the state machine needs its number, not its traffic.
#ifndef RDMACHECK_SUITES_QP_STATE_QP_UNDER_TEST_H_
#define RDMACHECK_SUITES_QP_STATE_QP_UNDER_TEST_H_

#include <infiniband/verbs.h>

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/connection/connected_pair.h"
#include "harness/connection/qp_attr.h"
#include "harness/device.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

enum class Route { kManual, kRdmaCm };

class QpUnderTest {
 public:
  // kRdmaCm: RC only; the QP starts in RTS and can only Reach RTS or SQD.
  static absl::StatusOr<std::unique_ptr<QpUnderTest>> Create(ibv_context* context, const Selection& selection,
                                                             ibv_qp_type type, Route route);
  ~QpUnderTest();

  ibv_qp* qp() const { return qp_; }
  ibv_qp_type type() const { return values_.type; }
  Route route() const { return route_; }
  // Valid values for every attribute; cur_state follows the state last reached.
  const AttrValues& values() const { return values_; }

  // Manual route: the CQ of both queues, `length` bytes of the registered buffer, and (UD)
  // an address handle to the peer QP, made on first use.
  ibv_cq* cq() const { return cq_.get(); }
  ibv_sge Sge(uint32_t length) const;
  absl::StatusOr<ibv_ah*> PeerAh();

  // Moves the QP from where it is now along the path above to `state`.
  absl::Status Reach(ibv_qp_state state);

  // Polls ibv_query_qp until the QP reports SQD with the drain finished, for up to `timeout`.
  absl::Status WaitDrained(absl::Duration timeout);

 private:
  QpUnderTest() = default;
  absl::Status Step(ibv_qp_state from, ibv_qp_state to);
  absl::Status EnterSqe();

  Route route_ = Route::kManual;
  ibv_qp_state state_ = IBV_QPS_RESET;  // where Reach left the QP
  AttrValues values_;

  // Manual route. Declaration order is release order reversed.
  PdPtr pd_;
  XrcdPtr xrcd_;
  CqPtr cq_;
  std::unique_ptr<uint8_t[]> buffer_;
  MrPtr mr_;
  QpPtr peer_;
  QpPtr own_;
  AhPtr ah_;
  // rdma_cm route.
  std::unique_ptr<ConnectedPair> pair_;
  ibv_qp* qp_ = nullptr;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_QP_STATE_QP_UNDER_TEST_H_
