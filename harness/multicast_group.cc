#include "harness/multicast_group.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

#include "absl/strings/str_cat.h"

namespace rdmacheck {

MulticastGroup Ipv4MulticastGroup(uint8_t n) {
  MulticastGroup group;
  group.ipv4 = true;
  const uint8_t ip[4] = {239, 77, n, 1};
  group.gid.raw[10] = 0xff;
  group.gid.raw[11] = 0xff;
  std::memcpy(group.gid.raw + 12, ip, 4);
  auto* in = reinterpret_cast<sockaddr_in*>(&group.address);
  in->sin_family = AF_INET;
  std::memcpy(&in->sin_addr, ip, 4);
  group.text = absl::StrCat("239.77.", n, ".1");
  return group;
}

MulticastGroup Ipv6MulticastGroup(uint8_t n) {
  MulticastGroup group;
  group.gid.raw[0] = 0xff;
  group.gid.raw[1] = 0x12;
  group.gid.raw[13] = 0x4d;
  group.gid.raw[15] = n;
  auto* in6 = reinterpret_cast<sockaddr_in6*>(&group.address);
  in6->sin6_family = AF_INET6;
  std::memcpy(&in6->sin6_addr, group.gid.raw, 16);
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(AF_INET6, group.gid.raw, text, sizeof(text));
  group.text = text;
  return group;
}

MulticastGroup MulticastGroupFor(const GidEntry& sgid, uint8_t n) {
  return sgid.IsIpv4Mapped() ? Ipv4MulticastGroup(n) : Ipv6MulticastGroup(n);
}

ibv_ah_attr AhAttrToGroup(const Selection& selection, const GidEntry& sgid, const MulticastGroup& group) {
  ibv_ah_attr ah = AhAttrToOwnGid(selection, sgid);
  ah.is_global = 1;
  ah.grh.dgid = group.gid;
  ah.grh.sgid_index = static_cast<uint8_t>(sgid.index);
  ah.dlid = static_cast<uint16_t>(0xC000 + group.gid.raw[15]);
  return ah;
}

}  // namespace rdmacheck
