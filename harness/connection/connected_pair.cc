#include "harness/connection/connected_pair.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {

PathOptions PathFor(const Selection& selection, PathOptions base, absl::optional<ibv_mtu> mtu) {
  base.port = selection.port;
  base.sgid_index = static_cast<uint8_t>(selection.gid.index);
  base.path_mtu = mtu.value_or(selection.port_attr.active_mtu);
  return base;
}

ibv_mtu TwoHostPathMtu(const Selection& selection, ibv_mtu peer_active_mtu) {
  return std::min(selection.port_attr.active_mtu, peer_active_mtu);  // both ports must carry it
}

namespace {

// An endpoint takes its shared objects from `passive_shared` (LocalEndpoint::AddResources):
// the active one gets `active_shared` there.
PairOptions ActiveSide(const PairOptions& options) {
  PairOptions active = options;
  active.passive_shared = options.active_shared;
  active.active_shared = {};
  return active;
}

}  // namespace

absl::StatusOr<ConnectedPair> ConnectedPair::Create(ibv_context* context, const Selection& selection,
                                                    const PairOptions& options, RemoteEndpointFactory* peer) {
  PairOptions o = options;
  o.method = options.method.value_or(selection.transport == IBV_TRANSPORT_IWARP ? ConnectMethod::kRdmaCm
                                                                                : ConnectMethod::kManual);
  ConnectedPair pair;
  pair.method_ = *o.method;
  pair.local_ = std::make_unique<LocalEndpoint>(context, selection);
  if (peer == nullptr) {
    pair.remote_ = std::make_unique<LocalEndpoint>(context, selection);
  } else {
    if (o.passive_shared.pd != nullptr) {
      return absl::FailedPreconditionError("SharedObjects cannot be used by an endpoint on another host");
    }
    if (!o.path_mtu) o.path_mtu = TwoHostPathMtu(selection, peer->active_mtu());
    RDMACHECK_ASSIGN_OR_RETURN(pair.remote_, peer->NewEndpoint());
  }
  RDMACHECK_RETURN_IF_ERROR(pair.method_ == ConnectMethod::kManual ? pair.ConnectManually(o) : pair.ConnectWithCm(o));
  pair.options_ = o;
  return pair;
}

absl::Status ConnectedPair::ConnectManually(const PairOptions& options) {
  const PairOptions active = ActiveSide(options);
  RDMACHECK_ASSIGN_OR_RETURN(EndpointInfo local_info, local_->Prepare(active));
  RDMACHECK_ASSIGN_OR_RETURN(EndpointInfo remote_info, remote_->Prepare(options));
  RDMACHECK_RETURN_IF_ERROR(remote_->Wire(local_info, options));
  return local_->Wire(remote_info, active);
}

absl::Status ConnectedPair::ConnectWithCm(const PairOptions& options) {
  const PairOptions active = ActiveSide(options);
  RDMACHECK_ASSIGN_OR_RETURN(sockaddr_storage listening, remote_->Listen(options));
  RDMACHECK_RETURN_IF_ERROR(local_->Connect(listening, active));
  RDMACHECK_RETURN_IF_ERROR(remote_->Accept(options));
  RDMACHECK_RETURN_IF_ERROR(local_->AwaitAccepted());
  return remote_->AwaitEstablished();
}

}  // namespace rdmacheck
