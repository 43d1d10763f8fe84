#include "suites/multicast/ip_membership.h"

#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {

absl::StatusOr<std::unique_ptr<IpMembership>> IpMembership::Join(const MulticastGroup& group,
                                                                  const std::string& netdev) {
  const unsigned ifindex = if_nametoindex(netdev.c_str());
  if (ifindex == 0) return ErrnoStatus(errno, absl::StrCat("if_nametoindex(", netdev, ")"));
  const int fd = socket(group.ipv4 ? AF_INET : AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return ErrnoStatus(errno, "socket(SOCK_DGRAM)");
  std::unique_ptr<IpMembership> membership(new IpMembership(fd));
  int rc;
  if (group.ipv4) {
    ip_mreqn request{};
    std::memcpy(&request.imr_multiaddr, group.gid.raw + 12, 4);
    request.imr_ifindex = static_cast<int>(ifindex);
    rc = setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &request, sizeof(request));
  } else {
    ipv6_mreq request{};
    std::memcpy(&request.ipv6mr_multiaddr, group.gid.raw, 16);
    request.ipv6mr_interface = ifindex;
    rc = setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &request, sizeof(request));
  }
  if (rc != 0) {
    return ErrnoStatus(errno, absl::StrCat(group.ipv4 ? "IP_ADD_MEMBERSHIP(" : "IPV6_JOIN_GROUP(", group.text, " on ",
                                           netdev, ")"));
  }
  return membership;
}

IpMembership::~IpMembership() { close(fd_); }

}  // namespace rdmacheck
