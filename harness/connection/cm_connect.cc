// ConnectedPair over rdma_cm: the passive side listens on the selected GID's IP address,
// the active side resolves it and connects; each side's buffer (addr, rkey, length)
// travels in the private data of CONNECT and ACCEPT.
#include <arpa/inet.h>
#include <endian.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/connection/cm_events.h"
#include "harness/connection/connected_pair.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

// Private data layout, big-endian so that a peer on another host reads it too.
struct __attribute__((packed)) BufferAnnouncement {
  uint64_t addr;
  uint32_t rkey;
  uint32_t length;
};

BufferAnnouncement Announce(const RemoteBuffer& b) { return {htobe64(b.addr), htonl(b.rkey), htonl(b.length)}; }

absl::StatusOr<RemoteBuffer> ReadAnnouncement(const rdma_conn_param& param, absl::string_view who) {
  if (param.private_data == nullptr || param.private_data_len < sizeof(BufferAnnouncement)) {
    return absl::DataLossError(absl::StrCat(who, " private data too short: ", param.private_data_len, " bytes"));
  }
  BufferAnnouncement a;
  std::memcpy(&a, param.private_data, sizeof(a));
  return RemoteBuffer{be64toh(a.addr), ntohl(a.rkey), ntohl(a.length)};
}

void SetPort(sockaddr_storage& address, uint16_t port_be) {
  if (address.ss_family == AF_INET) {
    reinterpret_cast<sockaddr_in*>(&address)->sin_port = port_be;
  } else {
    reinterpret_cast<sockaddr_in6*>(&address)->sin6_port = port_be;
  }
}

absl::StatusOr<CmChannelPtr> CreateChannel() {
  CmChannelPtr channel(rdma_create_event_channel());
  if (!channel) return ErrnoStatus(errno, "rdma_create_event_channel");
  return channel;
}

absl::StatusOr<CmIdPtr> CreateId(rdma_event_channel* channel) {
  rdma_cm_id* id = nullptr;
  if (rdma_create_id(channel, &id, nullptr, RDMA_PS_TCP) != 0) return ErrnoStatus(errno, "rdma_create_id");
  return CmIdPtr(id);
}

rdma_conn_param ConnParam(const PathOptions& path, const BufferAnnouncement& data) {
  rdma_conn_param param{};
  param.private_data = &data;
  param.private_data_len = sizeof(data);
  param.responder_resources = path.max_dest_rd_atomic;
  param.initiator_depth = path.max_rd_atomic;
  param.retry_count = path.retry_cnt;
  param.rnr_retry_count = path.rnr_retry;
  return param;
}

}  // namespace

absl::StatusOr<ConnectedPair> ConnectedPair::ConnectWithCm(const Selection& selection, const PairOptions& options) {
  ConnectedPair pair;
  pair.method_ = ConnectMethod::kRdmaCm;
  Endpoint& client = *pair.local_;
  Endpoint& server = *pair.remote_;
  const PathOptions path = PathFor(selection, options.path, options.path_mtu);
  const int resolve_ms = static_cast<int>(absl::ToInt64Milliseconds(DefaultWait()));
  RDMACHECK_ASSIGN_OR_RETURN(sockaddr_storage address, SelectionAddress(selection));

  // Passive side: listen on an ephemeral port of the device's address.
  RDMACHECK_ASSIGN_OR_RETURN(server.cm_channel_, CreateChannel());
  RDMACHECK_ASSIGN_OR_RETURN(server.listen_id_, CreateId(server.cm_channel_.get()));
  if (rdma_bind_addr(server.listen_id_.get(), reinterpret_cast<sockaddr*>(&address)) != 0) {
    return ErrnoStatus(errno, absl::StrCat("rdma_bind_addr(", SockaddrToString(address), ")"));
  }
  if (rdma_listen(server.listen_id_.get(), 8) != 0) return ErrnoStatus(errno, "rdma_listen");
  sockaddr_storage destination = address;
  SetPort(destination, rdma_get_src_port(server.listen_id_.get()));

  // Active side: resolve address and route, then create its QP on the device rdma_cm chose.
  RDMACHECK_ASSIGN_OR_RETURN(client.cm_channel_, CreateChannel());
  RDMACHECK_ASSIGN_OR_RETURN(client.cm_id_, CreateId(client.cm_channel_.get()));
  sockaddr_storage source = address;
  SetPort(source, 0);
  if (rdma_resolve_addr(client.cm_id_.get(), reinterpret_cast<sockaddr*>(&source),
                        reinterpret_cast<sockaddr*>(&destination), resolve_ms) != 0) {
    return ErrnoStatus(errno, "rdma_resolve_addr");
  }
  RDMACHECK_RETURN_IF_ERROR(ExpectCmEvent(client.cm_channel_.get(), RDMA_CM_EVENT_ADDR_RESOLVED).status());
  if (rdma_resolve_route(client.cm_id_.get(), resolve_ms) != 0) return ErrnoStatus(errno, "rdma_resolve_route");
  RDMACHECK_RETURN_IF_ERROR(ExpectCmEvent(client.cm_channel_.get(), RDMA_CM_EVENT_ROUTE_RESOLVED).status());

  auto attach_qp = [&](Endpoint& e) -> absl::Status {
    RDMACHECK_RETURN_IF_ERROR(AddResources(e, e.cm_id_->verbs, options));
    ibv_qp_init_attr attr = QpInitAttrFor(e, options);
    if (rdma_create_qp(e.cm_id_.get(), e.pd(), &attr) != 0) return ErrnoStatus(errno, "rdma_create_qp");
    e.qp_ = e.cm_id_->qp;
    e.address_.qp_num = e.qp_->qp_num;
    return absl::OkStatus();
  };
  RDMACHECK_RETURN_IF_ERROR(attach_qp(client));
  const BufferAnnouncement client_buffer = Announce(client.remote_buffer());
  rdma_conn_param connect = ConnParam(path, client_buffer);
  if (rdma_connect(client.cm_id_.get(), &connect) != 0) return ErrnoStatus(errno, "rdma_connect");

  // Passive side: take the request, build its QP, accept with its own buffer.
  {
    RDMACHECK_ASSIGN_OR_RETURN(CmEventPtr request,
                               ExpectCmEvent(server.cm_channel_.get(), RDMA_CM_EVENT_CONNECT_REQUEST));
    server.cm_id_.reset(request->id);  // the new id is ours once the request is acknowledged
    RDMACHECK_ASSIGN_OR_RETURN(server.peer_buffer_, ReadAnnouncement(request->param.conn, "CONNECT"));
  }
  RDMACHECK_RETURN_IF_ERROR(attach_qp(server));
  const BufferAnnouncement server_buffer = Announce(server.remote_buffer());
  rdma_conn_param accept = ConnParam(path, server_buffer);
  if (rdma_accept(server.cm_id_.get(), &accept) != 0) return ErrnoStatus(errno, "rdma_accept");

  {
    RDMACHECK_ASSIGN_OR_RETURN(CmEventPtr established,
                               ExpectCmEvent(client.cm_channel_.get(), RDMA_CM_EVENT_ESTABLISHED));
    RDMACHECK_ASSIGN_OR_RETURN(client.peer_buffer_, ReadAnnouncement(established->param.conn, "ACCEPT"));
  }
  RDMACHECK_RETURN_IF_ERROR(ExpectCmEvent(server.cm_channel_.get(), RDMA_CM_EVENT_ESTABLISHED).status());
  client.peer_address_.qp_num = server.address_.qp_num;
  server.peer_address_.qp_num = client.address_.qp_num;
  return pair;
}

}  // namespace rdmacheck
