#include "harness/connection/cm_steps.h"

#include <arpa/inet.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/connection/cm_events.h"
#include "harness/status.h"

namespace rdmacheck {

absl::StatusOr<CmChannelPtr> CreateCmChannel() {
  CmChannelPtr channel(rdma_create_event_channel());
  if (!channel) return ErrnoStatus(errno, "rdma_create_event_channel");
  return channel;
}

absl::StatusOr<CmIdPtr> CreateCmId(rdma_event_channel* channel, rdma_port_space ps) {
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(channel, &id, nullptr, ps) != 0) return ErrnoStatus(errno, "rdma_create_id");
  return CmIdPtr(id);
}

uint16_t PortOf(const sockaddr_storage& address) {
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&address)->sin_port);
  return ntohs(reinterpret_cast<const sockaddr_in6*>(&address)->sin6_port);
}

sockaddr_storage WithPort(sockaddr_storage address, uint16_t port) {
  if (address.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&address)->sin_port = htons(port);
  } else {
    reinterpret_cast<sockaddr_in6*>(&address)->sin6_port = htons(port);
  }
  return address;
}

sockaddr* AsSockaddr(sockaddr_storage& address) { return reinterpret_cast<sockaddr*>(&address); }

absl::StatusOr<sockaddr_storage> Listen(rdma_cm_id* id, const sockaddr_storage& address, int backlog) {
  sockaddr_storage bind_to = address;
  if (rdma_bind_addr(id, AsSockaddr(bind_to)) != 0) {
    return ErrnoStatus(errno, absl::StrCat("rdma_bind_addr(", SockaddrToString(address), ":", PortOf(address), ")"));
  }
  if (rdma_listen(id, backlog) != 0) return ErrnoStatus(errno, "rdma_listen");
  return WithPort(address, ntohs(rdma_get_src_port(id)));
}

absl::Status ResolveRoute(rdma_cm_id* id, const sockaddr_storage& source, const sockaddr_storage& destination,
                          absl::Duration timeout) {
  sockaddr_storage from = WithPort(source, 0);
  sockaddr_storage to = destination;
  const int ms = static_cast<int>(absl::ToInt64Milliseconds(timeout));
  if (rdma_resolve_addr(id, AsSockaddr(from), AsSockaddr(to), ms) != 0) {
    return ErrnoStatus(errno, absl::StrCat("rdma_resolve_addr(", SockaddrToString(destination), ")"));
  }
  RDMACHECK_RETURN_IF_ERROR(ExpectCmEvent(id->channel, RDMA_CM_EVENT_ADDR_RESOLVED, timeout).status());
  if (rdma_resolve_route(id, ms) != 0) return ErrnoStatus(errno, "rdma_resolve_route");
  return ExpectCmEvent(id->channel, RDMA_CM_EVENT_ROUTE_RESOLVED, timeout).status();
}

absl::StatusOr<ibv_context*> PairContext(ibv_context* own, const Selection& selection, ConnectMethod method) {
  if (method == ConnectMethod::kManual) return own;
  int count = 0;
  ibv_context** list = rdma_get_devices(&count);
  if (list == nullptr) return ErrnoStatus(errno, "rdma_get_devices");
  ibv_context* found = nullptr;
  for (int i = 0; i < count; ++i) {
    if (selection.device == ibv_get_device_name(list[i]->device)) found = list[i];
  }
  rdma_free_devices(list);  // the contexts stay open: librdmacm keeps them for its ids
  if (found == nullptr) return absl::NotFoundError(absl::StrCat("rdma_cm does not know device ", selection.device));
  return found;
}

}  // namespace rdmacheck
