// One side of an rdma_cm connection driven step by step, for the tests of rdma_cm itself
// (the datapath suites use ConnectedPair instead): its event channel and id, and once
// address resolution (active) or a connect request (passive) has bound the id to a
// device, the verbs objects a QP needs, created on that device's context.
#ifndef RDMACHECK_SUITES_RDMA_CM_CM_SIDE_H_
#define RDMACHECK_SUITES_RDMA_CM_CM_SIDE_H_

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "harness/connection/cm_events.h"
#include "harness/connection/cm_steps.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

struct CmSide {
  CmSide() = default;
  CmSide(const CmSide&) = delete;
  CmSide& operator=(const CmSide&) = delete;
  ~CmSide();

  // A channel and an id (RDMA_PS_TCP unless `ps` says otherwise).
  static absl::StatusOr<std::unique_ptr<CmSide>> Create(rdma_port_space ps = RDMA_PS_TCP);

  // PD, one CQ for both queues, a 4 KiB registered buffer and a QP of `type` on `id`.
  absl::Status AddQp(ibv_qp_type type = IBV_QPT_RC);

  // A SEND of `length` bytes from the buffer and its completion (bounded wait).
  absl::StatusOr<ibv_wc> Send(uint32_t length);

  rdma_event_channel* events() const { return channel.get(); }

  CmChannelPtr channel;
  CmIdPtr listener;  // passive side
  CmIdPtr id;        // active side, or the id of an accepted request
  std::vector<uint8_t> buffer = std::vector<uint8_t>(4096);
  PdPtr pd;
  CqPtr cq;
  MrPtr mr;
};

// A server listening on `address` (its `listener`), and a client whose route to it is
// resolved and whose QP exists: where the tests of connection set-up start.
struct ResolvedCm {
  std::unique_ptr<CmSide> server;
  std::unique_ptr<CmSide> client;
};
absl::StatusOr<ResolvedCm> ListenAndResolve(const sockaddr_storage& address);

// Why the tests built on two CmSides skip in two-host mode (RDMACHECK_REQUIRE_LOOPBACK).
inline constexpr char kBothCmSidesHere[] =
    "it drives both rdma_cm ids of one connection (the listener, the CONNECT_REQUEST, accept or reject) and reads "
    "both sides' rdma_cm events in this process; the side channel has no requests for a passive rdma_cm id";

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_RDMA_CM_CM_SIDE_H_
