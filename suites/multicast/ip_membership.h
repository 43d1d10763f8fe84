// The network's side of a multicast join on RoCE: an IGMP/MLD membership of the port's
// netdev in the group, held by a UDP socket for as long as the object lives.
//
// ibv_attach_mcast(3) only tells the device which QPs a group's datagrams go to; "in order
// to receive multicast messages, a join request for the multicast group must be sent to
// the subnet administrator (SA), so that the fabric's multicast routing is configured to
// deliver messages to the local port". On RoCE the fabric is IP: the join is an IGMP
// (IPv4) or MLD (IPv6) membership of the netdev, which rdma_join_multicast makes through
// the kernel (cma_igmp_send). A test of the verbs alone makes it here, the same way a UDP
// application would (IP_ADD_MEMBERSHIP / IPV6_JOIN_GROUP on the netdev's ifindex); without
// it Linux does not loop a group's datagrams back to the sending host.
#ifndef RDMACHECK_SUITES_MULTICAST_IP_MEMBERSHIP_H_
#define RDMACHECK_SUITES_MULTICAST_IP_MEMBERSHIP_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "harness/multicast_group.h"

namespace rdmacheck {

class IpMembership {
 public:
  // Joins `group` on `netdev`.
  static absl::StatusOr<std::unique_ptr<IpMembership>> Join(const MulticastGroup& group, const std::string& netdev);
  ~IpMembership();  // leaves (closing the socket drops the membership)
  IpMembership(const IpMembership&) = delete;
  IpMembership& operator=(const IpMembership&) = delete;

 private:
  explicit IpMembership(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_MULTICAST_IP_MEMBERSHIP_H_
