// A connected pair of QP endpoints for a test, built in one call.
//
//   ASSERT_OK_AND_ASSIGN(ConnectedPair pair, ConnectedPair::Create(context(), selection(), options));
//   // or, in a DeviceTest, CreatePair(options): the connect method the device needs, and in
//   // two-host mode the remote endpoint on the peer host.
//
// local() is the active side (it connects), remote() the passive side (it listens).
// Loopback (the default): both endpoints live in this process on one device. Two-host
// mode: remote() is an endpoint in an `rdmacheck serve` process on the peer host, driven
// over a TCP side channel (harness/remote/); the same test code runs either way.
//
// How the pair is connected (PairOptions::method):
//   manual:  both sides Prepare() (resources, QP in RESET) and exchange EndpointInfo, then
//            Wire() (RESET->INIT->RTR->RTS with the selected GID, the path MTU and the
//            PathOptions in one attribute builder, qp_attr.h). Also every UD pair without
//            rdma_cm. InfiniBand and RoCE.
//   rdma_cm: remote Listen()s, local Connect()s (private data: its EndpointInfo), remote
//            Accept()s (private data: its own), ESTABLISHED on both. RC (RDMA_PS_TCP) and
//            UD (RDMA_PS_UDP). Required by iWARP.
// See local_endpoint.h for the details of each side.
#ifndef RDMACHECK_HARNESS_CONNECTION_CONNECTED_PAIR_H_
#define RDMACHECK_HARNESS_CONNECTION_CONNECTED_PAIR_H_

#include <infiniband/verbs.h>

#include <memory>

#include "absl/status/statusor.h"
#include "harness/connection/connect_method.h"
#include "harness/connection/endpoint.h"
#include "harness/connection/local_endpoint.h"
#include "harness/connection/pair_options.h"
#include "harness/connection/qp_attr.h"
#include "harness/connection/work_requests.h"
#include "harness/device.h"

namespace rdmacheck {

// Where a pair's passive endpoint lives when it is not in this process (two-host mode;
// implemented by harness/remote/peer_link.h).
class RemoteEndpointFactory {
 public:
  virtual ~RemoteEndpointFactory() = default;
  virtual absl::StatusOr<std::unique_ptr<Endpoint>> NewEndpoint() = 0;
  virtual ibv_mtu active_mtu() const = 0;  // of the peer's port
};

class ConnectedPair {
 public:
  // `peer` null: loopback; else the passive endpoint is made by `peer`.
  static absl::StatusOr<ConnectedPair> Create(ibv_context* context, const Selection& selection,
                                              const PairOptions& options, RemoteEndpointFactory* peer = nullptr);

  LocalEndpoint& local() { return *local_; }
  Endpoint& remote() { return *remote_; }
  ConnectMethod method() const { return method_; }
  // The options the pair was built with, as completed by Create() (connect method; in
  // two-host mode the path MTU both ports carry).
  const PairOptions& options() const { return options_; }
  bool two_host() const { return !remote_->in_this_process(); }

 private:
  ConnectedPair() = default;
  absl::Status ConnectManually(const PairOptions& options);
  absl::Status ConnectWithCm(const PairOptions& options);

  // Declaration order: the passive side goes first (for rdma_cm it disconnects), then the
  // active side.
  std::unique_ptr<LocalEndpoint> local_;
  std::unique_ptr<Endpoint> remote_;
  ConnectMethod method_ = ConnectMethod::kManual;
  PairOptions options_;
};

// The path MTU a two-host pair is wired with unless its options set one: the smaller of
// the two ports' active MTUs, so that both carry it (a run records it: environment.path_mtu).
ibv_mtu TwoHostPathMtu(const Selection& selection, ibv_mtu peer_active_mtu);

// PathOptions for `selection`: its port, GID index, and MTU (active MTU unless `mtu` set).
PathOptions PathFor(const Selection& selection, PathOptions base, absl::optional<ibv_mtu> mtu = absl::nullopt);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_CONNECTED_PAIR_H_
