// Two-host mode, the test side: the connection to an `rdmacheck serve` process on the
// peer host, which makes and drives the passive endpoint of every pair a test builds.
//
//   rdmacheck serve --device=rxe0 --listen=18515                 # on host B
//   rdmacheck run --device=rxe0 --peer=hostB:18515 --suites=...   # on host A
//
// `run` passes --peer to its children; each child opens one PeerLink and installs it in
// TestDevice, and DeviceTest::CreatePair() then builds every pair with its remote()
// endpoint on host B (a ProxyEndpoint). Requests are JSON lines (harness/remote/wire.h);
// each carries a sequence number the answer repeats, so an answer that arrives after its
// request timed out is recognised and dropped instead of answering the next request.
#ifndef RDMACHECK_HARNESS_REMOTE_PEER_LINK_H_
#define RDMACHECK_HARNESS_REMOTE_PEER_LINK_H_

#include <memory>
#include <mutex>
#include <string>

#include "absl/flags/declare.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/connection/connected_pair.h"
#include "harness/remote/side_channel.h"
#include "harness/timeouts.h"
#include "nlohmann/json.hpp"

ABSL_DECLARE_FLAG(std::string, peer);

namespace rdmacheck {

class PeerLink : public RemoteEndpointFactory {
 public:
  // Connects and exchanges `hello`; fails unless the peer's transport equals `transport`.
  static absl::StatusOr<std::unique_ptr<PeerLink>> Connect(const std::string& host_port,
                                                           ibv_transport_type transport);

  absl::StatusOr<std::unique_ptr<Endpoint>> NewEndpoint() override;
  ibv_mtu active_mtu() const override { return active_mtu_; }

  // What the peer said about itself: device, transport, port, GID, active MTU.
  const nlohmann::json& hello() const { return hello_; }
  std::string Describe() const;  // "rxe0 on 10.0.0.2:18515 (RoCEv2 10.77.1.1)"

  // Sends `request` and returns the answer's payload, or the error the peer reported.
  // `work` is how long the request itself may take on the peer; the wait adds DefaultWait().
  absl::StatusOr<nlohmann::json> Call(nlohmann::json request, absl::Duration work = absl::ZeroDuration());

 private:
  explicit PeerLink(SideChannel channel, std::string where) : channel_(std::move(channel)), where_(std::move(where)) {}

  std::mutex mutex_;
  SideChannel channel_;
  std::string where_;
  uint64_t next_seq_ = 1;
  nlohmann::json hello_;
  ibv_mtu active_mtu_ = IBV_MTU_1024;
};

// Is the `rdmacheck serve` at "HOST:PORT" alive? Connects anew and sends a `ping`, again
// and again until `within` has passed; OK at the first answer (any answer: a server that
// predates `ping` answers "unknown request", alive too). Else the first error: the connect
// refused, the connection closed or reset, or DeadlineExceeded when it stayed silent. A
// fresh connection is a session of its own on the peer, so a session stuck in a request
// does not make its peer look dead.
absl::Status PingPeer(const std::string& host_port, absl::Duration within);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_REMOTE_PEER_LINK_H_
