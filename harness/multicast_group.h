// Multicast group addresses for a port's GID family, as GIDs (ibv_attach_mcast, address
// handles) and as socket addresses (rdma_join_multicast, IP-level joins).
//
// RoCEv2 over IPv4 (IBTA Annex A17): the group is an IPv4 multicast address carried as an
// IPv4-mapped GID (::ffff:239.77.N.1); RoCE over IPv6 and InfiniBand: an IPv6-format
// multicast GID (ff12::4d:N, link-local scope, transient). `n` keeps the groups of different
// users (the probe, each test) apart.
//
//   MulticastGroup group = MulticastGroupFor(selection.gid, 3);
//   ibv_attach_mcast(qp, &group.gid, 0);
#ifndef RDMACHECK_HARNESS_MULTICAST_GROUP_H_
#define RDMACHECK_HARNESS_MULTICAST_GROUP_H_

#include <infiniband/verbs.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>

#include "harness/device.h"

namespace rdmacheck {

// The destination QPN of every multicast datagram (IBTA Vol 1: DestQP 0xFFFFFF in the BTH).
inline constexpr uint32_t kMulticastQpn = 0xFFFFFF;

struct MulticastGroup {
  ibv_gid gid{};
  sockaddr_storage address{};  // AF_INET for an IPv4-mapped group, else AF_INET6
  bool ipv4 = false;
  std::string text;            // "239.77.3.1", "ff12::4d:3"
};

// A group of `sgid`'s family: IPv4 when `sgid` is IPv4-mapped, else IPv6.
MulticastGroup MulticastGroupFor(const GidEntry& sgid, uint8_t n);
MulticastGroup Ipv4MulticastGroup(uint8_t n);
MulticastGroup Ipv6MulticastGroup(uint8_t n);

// An address vector to the group from the selected port and `sgid` (global route, hop
// limit 64); the multicast LID 0xC000 + n stands where a LID is needed (ignored on RoCE).
ibv_ah_attr AhAttrToGroup(const Selection& selection, const GidEntry& sgid, const MulticastGroup& group);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_MULTICAST_GROUP_H_
