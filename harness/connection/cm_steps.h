// The rdma_cm steps the pair builder uses, for tests of rdma_cm itself to reuse:
//
//   ASSERT_OK_AND_ASSIGN(CmChannelPtr channel, CreateCmChannel());
//   ASSERT_OK_AND_ASSIGN(CmIdPtr id, CreateCmId(channel.get(), RDMA_PS_TCP));
//   ASSERT_OK_AND_ASSIGN(sockaddr_storage listening, Listen(id.get(), address));
//   ASSERT_OK(ResolveRoute(client.get(), address, listening));
//
// Every wait is bounded (DefaultWait()).
#ifndef RDMACHECK_HARNESS_CONNECTION_CM_STEPS_H_
#define RDMACHECK_HARNESS_CONNECTION_CM_STEPS_H_

#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/connection/connect_method.h"
#include "harness/device.h"
#include "harness/timeouts.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

absl::StatusOr<CmChannelPtr> CreateCmChannel();
absl::StatusOr<CmIdPtr> CreateCmId(rdma_event_channel* channel, rdma_port_space ps = RDMA_PS_TCP);

// Binds `id` to `address` (port 0: an ephemeral one) and listens; returns the address with
// the port it listens on.
absl::StatusOr<sockaddr_storage> Listen(rdma_cm_id* id, const sockaddr_storage& address, int backlog = 8);

// rdma_resolve_addr from `source` (its port ignored) to `destination`, then
// rdma_resolve_route, each waited for on the id's channel.
absl::Status ResolveRoute(rdma_cm_id* id, const sockaddr_storage& source, const sockaddr_storage& destination,
                          absl::Duration timeout = DefaultWait());

uint16_t PortOf(const sockaddr_storage& address);  // host order
sockaddr_storage WithPort(sockaddr_storage address, uint16_t port);  // host order
sockaddr* AsSockaddr(sockaddr_storage& address);

// The verbs context resources of a pair must live on: `own` for manual wiring; for
// rdma_cm, librdmacm's own context of the same device (rdma_create_qp refuses a PD of
// another context).
absl::StatusOr<ibv_context*> PairContext(ibv_context* own, const Selection& selection, ConnectMethod method);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_CM_STEPS_H_
