// A peer that can die: the passive side of a pair in a process of its own, which a test
// kills with SIGKILL mid-transfer to see what the survivor's device does.
//
// The peer is `rdmacheck serve` on the same device, started for the test on a free port
// of the loopback side channel (harness/remote/peer_server.h). Its endpoints are made and
// driven in that process, with a context of its own, exactly as a second host's would be:
// when it is killed, the kernel tears its QPs, MRs and rdma_cm ids down the way it does
// for any process that dies (closing its uverbs and rdma_cm files), and the survivor sees
// what a node whose application crashed looks like from the other end of the wire.
//
//   ASSERT_OK_AND_ASSIGN(std::unique_ptr<DyingPeer> peer, DyingPeer::Start(selection()));
//   ASSERT_OK_AND_ASSIGN(ConnectedPair pair, ConnectedPair::Create(context(), selection(), options, peer->link()));
//   ...
//   ASSERT_OK(peer->Kill());  // SIGKILL, reaped: its QP no longer exists
#ifndef RDMACHECK_SUITES_PEER_FAULTS_DYING_PEER_H_
#define RDMACHECK_SUITES_PEER_FAULTS_DYING_PEER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "harness/child_process.h"
#include "harness/device.h"
#include "harness/remote/peer_link.h"

namespace rdmacheck {

class DyingPeer {
 public:
  // Starts the peer on `selection`'s device, port and GID and connects the side channel.
  static absl::StatusOr<std::unique_ptr<DyingPeer>> Start(const Selection& selection);
  ~DyingPeer();  // kills the peer if the test did not

  RemoteEndpointFactory* link() { return link_.get(); }

  // A `ping` on the test's own session, answered once every request sent before it was
  // handled: after a ProxyEndpoint's destructor (its `destroy`: the peer's QP, CQs and MR
  // released), OK means that release returned; a peer stuck in it stays silent.
  absl::Status Ping();

  // SIGKILL, and the process reaped within KillReapBound(): once this returns OK the
  // kernel has released everything the peer held. A peer still there then (stuck in the
  // driver while dying) is the error, named with where it is stuck.
  absl::Status Kill();

 private:
  DyingPeer() = default;

  ChildProcess process_;
  std::unique_ptr<PeerLink> link_;
  bool killed_ = false;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_PEER_FAULTS_DYING_PEER_H_
