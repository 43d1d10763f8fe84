// LocalEndpoint over rdma_cm. The passive side listens on the selected GID's IP address,
// the active side resolves it and connects; each side's EndpointInfo travels in the
// private data of CONNECT and ACCEPT. RC uses RDMA_PS_TCP; UD uses RDMA_PS_UDP, where
// "connecting" is a SIDR exchange that gives the active side the passive QP's number,
// QKey and an address vector (the passive side learns the active QP from the private data).
#include <arpa/inet.h>
#include <endian.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/connection/cm_events.h"
#include "harness/connection/cm_steps.h"
#include "harness/connection/local_endpoint.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"
#include "harness/verbs/post.h"

namespace rdmacheck {
namespace {

// Private data layout, big-endian so that a peer on another host reads it too. 38 bytes:
// within the smallest limit rdmacheck connects under (56 bytes for an RC CONNECT over IB CM).
struct __attribute__((packed)) Announcement {
  uint64_t addr;
  uint32_t rkey;
  uint32_t length;
  uint32_t qp_num;
  uint16_t lid;
  uint8_t gid[16];
};

Announcement Announce(const EndpointInfo& info) {
  Announcement a{htobe64(info.buffer.addr), htonl(info.buffer.rkey), htonl(info.buffer.length),
                 htonl(info.address.qp_num), htons(info.address.lid), {}};
  std::memcpy(a.gid, info.address.gid.raw, sizeof(a.gid));
  return a;
}

absl::StatusOr<EndpointInfo> ReadAnnouncement(const void* data, size_t length, absl::string_view who) {
  if (data == nullptr || length < sizeof(Announcement)) {
    return absl::DataLossError(absl::StrCat(who, " private data too short: ", length, " bytes, expected ",
                                            sizeof(Announcement)));
  }
  Announcement a;
  std::memcpy(&a, data, sizeof(a));
  EndpointInfo info;
  info.buffer = {be64toh(a.addr), ntohl(a.rkey), ntohl(a.length)};
  info.address.qp_num = ntohl(a.qp_num);
  info.address.lid = ntohs(a.lid);
  std::memcpy(info.address.gid.raw, a.gid, sizeof(a.gid));
  return info;
}

rdma_conn_param ConnParam(const PathOptions& path, const Announcement& data) {
  rdma_conn_param param{};
  param.private_data = &data;
  param.private_data_len = sizeof(data);
  param.responder_resources = path.max_dest_rd_atomic;
  param.initiator_depth = path.max_rd_atomic;
  param.retry_count = path.retry_cnt;
  param.rnr_retry_count = path.rnr_retry;
  return param;
}

// The local ACK timeout of the path, as a manual pair has it. Left alone, rdma_cm derives it
// from the path's packet lifetime (RoCE: CMA_IBOE_PACKET_LIFETIME in drivers/infiniband/core/
// cma.c, about 2 s per try), and the two ways of connecting would recover from a lost packet
// on clocks 30 times apart. RC only: the kernel refuses it for UD (rdma_set_ack_timeout()).
absl::Status SetAckTimeout(rdma_cm_id* id, const PairOptions& options, const PathOptions& path) {
  if (options.qp_type != IBV_QPT_RC) return absl::OkStatus();
  uint8_t timeout = path.timeout;
  if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout, sizeof(timeout)) != 0) {
    return ErrnoStatus(errno, absl::StrCat("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT, ", static_cast<int>(timeout), ")"));
  }
  return absl::OkStatus();
}

rdma_port_space PortSpace(const PairOptions& options) {
  return options.qp_type == IBV_QPT_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
}

absl::Status CheckCmType(const PairOptions& options) {
  if (options.qp_type != IBV_QPT_RC && options.qp_type != IBV_QPT_UD) {
    return absl::InvalidArgumentError("the pair builder connects only RC and UD QPs through rdma_cm");
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status LocalEndpoint::CreateCmQp(const PairOptions& options) {
  RDMACHECK_RETURN_IF_ERROR(AddResources(cm_id_->verbs, options));
  ibv_qp_init_attr_ex attr = InitAttr(options);
  if (rdma_create_qp_ex(cm_id_.get(), &attr) != 0) {
    return ErrnoStatus(errno, absl::StrCat("rdma_create_qp_ex(send_ops_flags 0x", absl::Hex(options.send_ops_flags), ")"));
  }
  qp_ = cm_id_->qp;
  ForgetPosts(qp_);  // a destroyed QP's number may come back
  granted_cap_ = attr.cap;
  if (options.send_ops_flags != 0) qp_ex_ = ibv_qp_to_qp_ex(qp_);
  address_ = {qp_->qp_num, selection_.port_attr.lid, selection_.gid.gid, 0};
  if (cm_ud_) {
    // rdma_cm set the QKey (RDMA_UDP_QKEY) while taking the QP to RTS.
    ibv_qp_attr qp_attr{};
    ibv_qp_init_attr init{};
    if (int rc = ibv_query_qp(qp_, &qp_attr, IBV_QP_QKEY, &init); rc != 0) return ErrnoStatus(rc, "ibv_query_qp(QKEY)");
    qkey_ = qp_attr.qkey;
  }
  return absl::OkStatus();
}

absl::StatusOr<sockaddr_storage> LocalEndpoint::Listen(const PairOptions& options) {
  RDMACHECK_RETURN_IF_ERROR(CheckCmType(options));
  cm_ud_ = options.qp_type == IBV_QPT_UD;
  RDMACHECK_ASSIGN_OR_RETURN(sockaddr_storage address, SelectionAddress(selection_));
  RDMACHECK_ASSIGN_OR_RETURN(cm_channel_, CreateCmChannel());
  RDMACHECK_ASSIGN_OR_RETURN(listen_id_, CreateCmId(cm_channel_.get(), PortSpace(options)));
  return rdmacheck::Listen(listen_id_.get(), address);
}

absl::Status LocalEndpoint::Accept(const PairOptions& options) {
  if (!listen_id_) return absl::FailedPreconditionError("Accept() before Listen()");
  EndpointInfo peer;
  {
    RDMACHECK_ASSIGN_OR_RETURN(CmEventPtr request, ExpectCmEvent(cm_channel_.get(), RDMA_CM_EVENT_CONNECT_REQUEST));
    cm_id_.reset(request->id);  // the new id is ours once the request is acknowledged
    const void* data = cm_ud_ ? request->param.ud.private_data : request->param.conn.private_data;
    const size_t length = cm_ud_ ? request->param.ud.private_data_len : request->param.conn.private_data_len;
    RDMACHECK_ASSIGN_OR_RETURN(peer, ReadAnnouncement(data, length, "CONNECT"));
  }
  // The QP exists before rdma_accept: rdma_accept takes it to RTR/RTS (or, for UD,
  // announces its number); accepting first leaves the peer connected to nothing.
  RDMACHECK_RETURN_IF_ERROR(CreateCmQp(options));
  const PathOptions path = Path(options);
  RDMACHECK_RETURN_IF_ERROR(SetAckTimeout(cm_id_.get(), options, path));
  const Announcement own = Announce(Info());
  rdma_conn_param accept = ConnParam(path, own);
  if (cm_ud_) {
    accept.qp_num = qp_->qp_num;
    accept.responder_resources = accept.initiator_depth = 0;
  }
  if (rdma_accept(cm_id_.get(), &accept) != 0) return ErrnoStatus(errno, "rdma_accept");
  if (cm_ud_) peer.address.psn = 0;
  return SetPeer(peer, options);
}

absl::Status LocalEndpoint::AwaitEstablished() {
  if (cm_ud_) return absl::OkStatus();  // SIDR has no third step
  return ExpectCmEvent(cm_channel_.get(), RDMA_CM_EVENT_ESTABLISHED).status();
}

absl::Status LocalEndpoint::Connect(const sockaddr_storage& destination, const PairOptions& options) {
  RDMACHECK_RETURN_IF_ERROR(CheckCmType(options));
  cm_ud_ = options.qp_type == IBV_QPT_UD;
  RDMACHECK_ASSIGN_OR_RETURN(sockaddr_storage source, SelectionAddress(selection_));
  RDMACHECK_ASSIGN_OR_RETURN(cm_channel_, CreateCmChannel());
  RDMACHECK_ASSIGN_OR_RETURN(cm_id_, CreateCmId(cm_channel_.get(), PortSpace(options)));
  RDMACHECK_RETURN_IF_ERROR(ResolveRoute(cm_id_.get(), source, destination));
  RDMACHECK_RETURN_IF_ERROR(CreateCmQp(options));
  const PathOptions path = Path(options);
  RDMACHECK_RETURN_IF_ERROR(SetAckTimeout(cm_id_.get(), options, path));
  const Announcement own = Announce(Info());
  rdma_conn_param connect = ConnParam(path, own);
  if (rdma_connect(cm_id_.get(), &connect) != 0) return ErrnoStatus(errno, "rdma_connect");
  return absl::OkStatus();
}

absl::Status LocalEndpoint::AwaitAccepted() {
  RDMACHECK_ASSIGN_OR_RETURN(CmEventPtr established, ExpectCmEvent(cm_channel_.get(), RDMA_CM_EVENT_ESTABLISHED));
  if (!cm_ud_) {
    RDMACHECK_ASSIGN_OR_RETURN(EndpointInfo peer, ReadAnnouncement(established->param.conn.private_data,
                                                                   established->param.conn.private_data_len, "ACCEPT"));
    peer_address_ = peer.address;
    peer_buffer_ = peer.buffer;
    return absl::OkStatus();
  }
  // UD: the SIDR reply carries the passive QP's number and QKey and the address vector.
  const rdma_ud_param& ud = established->param.ud;
  RDMACHECK_ASSIGN_OR_RETURN(EndpointInfo peer, ReadAnnouncement(ud.private_data, ud.private_data_len, "ACCEPT"));
  peer_address_ = peer.address;
  peer_address_.qp_num = ud.qp_num;
  peer_buffer_ = peer.buffer;
  qkey_ = ud.qkey;
  ibv_ah_attr ah_attr = ud.ah_attr;
  RDMACHECK_ASSIGN_OR_RETURN(peer_ah_, CreateAh(pd_, ah_attr));
  return absl::OkStatus();
}

absl::Status LocalEndpoint::MoveOffListener() {
  if (!listen_id_ || !cm_id_) return absl::FailedPreconditionError("MoveOffListener() needs an accepted rdma_cm id");
  RDMACHECK_ASSIGN_OR_RETURN(CmChannelPtr own, CreateCmChannel());
  if (rdma_migrate_id(cm_id_.get(), own.get()) != 0) return ErrnoStatus(errno, "rdma_migrate_id");
  listen_id_.reset();
  std::swap(cm_channel_, own);  // `own` now holds the listener's channel, which goes with it
  return absl::OkStatus();
}

}  // namespace rdmacheck
