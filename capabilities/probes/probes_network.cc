// Probes of multicast and of the network under the port: whether a UD QP can be attached to
// a multicast group (ibv_attach_mcast) and an rdma_cm id can join one (rdma_join_multicast),
// whether this process can take the port's netdev down and up (the link event tests), and
// whether the GID table is built from the netdev's IP addresses (the address event tests).
// None of them sends to a group, flaps a link or adds an address: that is what the
// multicast and link_events suites grade.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <rdma/rdma_cma.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "capabilities/probes/probe_traffic.h"
#include "capabilities/probes/probes.h"
#include "capabilities/system/memlock.h"
#include "harness/connection/cm_events.h"
#include "harness/multicast_group.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

constexpr uint8_t kProbeGroup = 200;  // the tests use groups below 100

// ibv_attach_mcast(3) and ibv_detach_mcast(3) of a UD QP: both accepted. A device without
// UD QPs refuses the QP itself (siw: EOPNOTSUPP), and that is the evidence.
absl::Status ProbeMulticast(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdAndCq base, MakePdAndCq(s.context()));
  errno = 0;
  absl::StatusOr<QpPtr> qp = CreateQp(base.pd.get(), QpInitAttr(IBV_QPT_UD, base.cq.get()));
  if (!qp.ok()) {
    s.Tried(Cap::kMulticast, InContext(qp.status(), "a UD QP (multicast needs one)"), "");
    return absl::OkStatus();
  }
  const MulticastGroup group = MulticastGroupFor(s.selection().gid, kProbeGroup);
  int rc = ibv_attach_mcast(qp->get(), &group.gid, 0);
  if (rc != 0) {
    s.Tried(Cap::kMulticast, ErrnoStatus(rc, absl::StrCat("ibv_attach_mcast(UD QP, ", group.text, ")")), "");
    return absl::OkStatus();
  }
  rc = ibv_detach_mcast(qp->get(), &group.gid, 0);
  if (rc != 0) {
    s.Record(Cap::kMulticast, Outcome::kBroken, rc,
             absl::StrCat("ibv_attach_mcast(", group.text, ") accepted, then ibv_detach_mcast failed: ",
                          ErrnoName(rc)));
    return absl::OkStatus();
  }
  s.Record(Cap::kMulticast, Outcome::kSupported, 0,
           absl::StrCat("a UD QP attached to and detached from ", group.text));
  return absl::OkStatus();
}

// rdma_join_multicast(3) on a UD id bound to the selected address: the call accepted and
// RDMA_CM_EVENT_MULTICAST_JOIN reported. iWARP has no multicast: rdma_cm refuses the join
// (ENOSYS) there.
absl::Status ProbeCmMulticast(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(sockaddr_storage local, SelectionAddress(s.selection()));
  CmChannelPtr channel(rdma_create_event_channel());
  if (!channel) return ErrnoStatus(errno, "rdma_create_event_channel");
  rdma_cm_id* raw = nullptr;
  if (rdma_create_id(channel.get(), &raw, nullptr, RDMA_PS_UDP) != 0) return ErrnoStatus(errno, "rdma_create_id");
  CmIdPtr id(raw);
  if (rdma_bind_addr(id.get(), reinterpret_cast<sockaddr*>(&local)) != 0) {
    return ErrnoStatus(errno, absl::StrCat("rdma_bind_addr(", SockaddrToString(local), ")"));
  }
  if (id->verbs == nullptr || s.selection().device != ibv_get_device_name(id->verbs->device)) {
    s.Record(Cap::kCmMulticast, Outcome::kUnsupported, 0,
             absl::StrCat("rdma_cm bound ", SockaddrToString(local), " to ",
                          id->verbs ? ibv_get_device_name(id->verbs->device) : "no RDMA device"));
    return absl::OkStatus();
  }
  // The group of the bound address's family: rdma_cm on RoCEv2 joins IPv4 groups only
  // (cma_iboe_join_multicast refuses IPv6 ones with ENOTSUPP).
  MulticastGroup group = local.ss_family == AF_INET ? Ipv4MulticastGroup(kProbeGroup) : Ipv6MulticastGroup(kProbeGroup);
  if (rdma_join_multicast(id.get(), reinterpret_cast<sockaddr*>(&group.address), nullptr) != 0) {
    s.Tried(Cap::kCmMulticast, ErrnoStatus(errno, absl::StrCat("rdma_join_multicast(", group.text, ")")), "");
    return absl::OkStatus();
  }
  {
    absl::StatusOr<CmEventPtr> event = WaitCmEvent(channel.get());  // acknowledged at the end of this block
    if (!event.ok()) {
      s.Record(Cap::kCmMulticast, Outcome::kBroken, 0,
               absl::StrCat("rdma_join_multicast(", group.text, ") accepted, then no event: ",
                            event.status().message()));
    } else if ((*event)->event != RDMA_CM_EVENT_MULTICAST_JOIN) {
      s.Record(Cap::kCmMulticast, Outcome::kBroken, 0,
               absl::StrCat("rdma_join_multicast(", group.text, ") accepted, then ",
                            rdma_event_str((*event)->event), " (status ", (*event)->status, ")"));
    } else {
      s.Record(Cap::kCmMulticast, Outcome::kSupported, 0,
               absl::StrCat("rdma_join_multicast(", group.text, ") on ", SockaddrToString(local),
                            ": RDMA_CM_EVENT_MULTICAST_JOIN"));
    }
  }
  rdma_leave_multicast(id.get(), reinterpret_cast<sockaddr*>(&group.address));
  return absl::OkStatus();
}

bool InPath(const std::string& program) {
  const char* path = getenv("PATH");
  for (absl::string_view dir : absl::StrSplit(path ? path : "/usr/sbin:/usr/bin:/sbin:/bin", ':')) {
    if (access(absl::StrCat(dir, "/", program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

std::string PortNetdev(const ProbeScope& s) {
  std::string netdev = s.selection().gid.netdev;
  for (const nlohmann::json& port : s.declared().value("ports", nlohmann::json::array())) {
    if (netdev.empty() && port.value("port", 0) == s.port()) netdev = port.value("netdev", "");
  }
  return netdev;
}

// The link event tests take the port's netdev down and up with ip(8): they need the
// netdev's name (the kernel names one for RoCE and iWARP ports), CAP_NET_ADMIN and the
// tool. Whether the device reports the change is theirs to grade.
absl::Status ProbeLinkEvents(ProbeScope& s) {
  const std::string netdev = PortNetdev(s);
  if (netdev.empty()) {
    s.Record(Cap::kLinkEvents, Outcome::kUnsupported, 0,
             absl::StrCat("port ", s.port(), " has no netdev (InfiniBand link layer): no link to take down from here"));
    return absl::OkStatus();
  }
  const unsigned index = if_nametoindex(netdev.c_str());
  if (index == 0) {
    s.Record(Cap::kLinkEvents, Outcome::kUnsupported, errno,
             absl::StrCat("netdev ", netdev, " of port ", s.port(), " is not in this network namespace"));
    return absl::OkStatus();
  }
  if (!HasEffectiveCapability(12)) {  // CAP_NET_ADMIN
    s.Record(Cap::kLinkEvents, Outcome::kUnsupported, EPERM,
             absl::StrCat("netdev ", netdev, ": this process lacks CAP_NET_ADMIN (run as root) to take it down and up"));
    return absl::OkStatus();
  }
  if (!InPath("ip")) {
    s.Record(Cap::kLinkEvents, Outcome::kUnsupported, ENOENT, "no ip(8) in PATH (install iproute2)");
    return absl::OkStatus();
  }
  const bool port_active_event = (s.attr().orig_attr.device_cap_flags & IBV_DEVICE_PORT_ACTIVE_EVENT) != 0;
  s.Record(Cap::kLinkEvents, Outcome::kSupported, 0,
           absl::StrCat("port ", s.port(), " on netdev ", netdev, " (ifindex ", index,
                        "), CAP_NET_ADMIN, ip(8); device_cap_flags ", port_active_event ? "has" : "lacks",
                        " PORT_ACTIVE_EVENT"));
  return absl::OkStatus();
}

// RoCE builds its GID table from the netdev's IP addresses (the kernel's roce_gid_mgmt):
// an entry equal to one of them is the evidence. InfiniBand GIDs come from the subnet
// prefix and the port GUID, iWARP's from the MAC: addresses never enter those tables.
absl::Status ProbeIpGids(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<GidEntry> gids, ReadGidTable(s.context(), s.selection().port_attr, s.port()));
  const bool roce = !s.IsIwarp() && s.selection().port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  if (!roce) {
    const GidEntry* first = gids.empty() ? nullptr : &gids.front();
    s.Record(Cap::kIpGids, Outcome::kUnsupported, 0,
             absl::StrCat(s.IsIwarp() ? "iWARP" : "InfiniBand", ": the GID table holds no IP addresses",
                          first ? absl::StrCat(" (GID ", first->index, " is ", first->Address(), ")") : ""));
    return absl::OkStatus();
  }
  const std::string netdev = PortNetdev(s);
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return ErrnoStatus(errno, "getifaddrs");
  std::string found;
  for (ifaddrs* a = list; a != nullptr && found.empty(); a = a->ifa_next) {
    if (a->ifa_addr == nullptr || netdev != a->ifa_name) continue;
    ibv_gid gid{};
    if (a->ifa_addr->sa_family == AF_INET) {
      gid.raw[10] = gid.raw[11] = 0xff;
      std::memcpy(gid.raw + 12, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, 4);
    } else if (a->ifa_addr->sa_family == AF_INET6) {
      std::memcpy(gid.raw, &reinterpret_cast<sockaddr_in6*>(a->ifa_addr)->sin6_addr, 16);
    } else {
      continue;
    }
    for (const GidEntry& g : gids) {
      if (std::memcmp(g.gid.raw, gid.raw, 16) == 0) {
        found = absl::StrCat("GID ", g.index, " (", g.TypeName(), ") is ", g.Address(), ", an address of ", netdev);
        break;
      }
    }
  }
  freeifaddrs(list);
  if (found.empty()) {
    s.Record(Cap::kIpGids, Outcome::kBroken, 0,
             absl::StrCat("RoCE port, but none of its ", gids.size(), " GIDs is an address of netdev ",
                          netdev.empty() ? "(unknown)" : netdev));
  } else {
    s.Record(Cap::kIpGids, Outcome::kSupported, 0, found);
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<ProbeSpec> NetworkProbes() {
  return {
      {"multicast", {Cap::kMulticast}, ProbeMulticast},
      {"cm_multicast", {Cap::kCmMulticast}, ProbeCmMulticast},
      {"link_events", {Cap::kLinkEvents}, ProbeLinkEvents},
      {"ip_gids", {Cap::kIpGids}, ProbeIpGids},
  };
}

}  // namespace rdmacheck
