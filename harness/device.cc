#include "harness/device.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netpacket/packet.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "harness/status.h"

namespace rdmacheck {

bool GidEntry::IsZero() const {
  return std::all_of(std::begin(gid.raw), std::end(gid.raw), [](uint8_t b) { return b == 0; });
}

bool GidEntry::IsIpv4Mapped() const {
  static constexpr uint8_t kPrefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  return std::memcmp(gid.raw, kPrefix, sizeof(kPrefix)) == 0;
}

std::string GidEntry::Address() const {
  char text[INET6_ADDRSTRLEN] = {};
  if (IsIpv4Mapped()) {
    inet_ntop(AF_INET, gid.raw + 12, text, sizeof(text));
  } else {
    inet_ntop(AF_INET6, gid.raw, text, sizeof(text));
  }
  return text;
}

std::string GidEntry::TypeName() const {
  switch (type) {
    case IBV_GID_TYPE_IB: return "IB";
    case IBV_GID_TYPE_ROCE_V1: return "RoCEv1";
    case IBV_GID_TYPE_ROCE_V2: return "RoCEv2";
  }
  return absl::StrCat("type ", static_cast<int>(type));
}

namespace {

constexpr absl::string_view kNoDeviceHint = "on a machine without one, run inside the lab: scripts/lab.sh";

absl::StatusOr<DeviceListPtr> GetDeviceList(int* count) {
  DeviceListPtr list(ibv_get_device_list(count));
  if (list) return list;
  if (errno == ENOSYS) {  // no uverbs in this kernel at all
    return absl::NotFoundError(
        absl::StrCat("no RDMA device found: this kernel has no RDMA support (ibv_get_device_list: ENOSYS); ",
                     kNoDeviceHint));
  }
  return ErrnoStatus(errno, "ibv_get_device_list");
}

}  // namespace

absl::Status NoDeviceError() { return absl::NotFoundError(absl::StrCat("no RDMA device found; ", kNoDeviceHint)); }

absl::StatusOr<std::vector<std::string>> DeviceNames() {
  int count = 0;
  RDMACHECK_ASSIGN_OR_RETURN(DeviceListPtr list, GetDeviceList(&count));
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.emplace_back(ibv_get_device_name(list.get()[i]));
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<ContextPtr> OpenDevice(absl::string_view name) {
  int count = 0;
  RDMACHECK_ASSIGN_OR_RETURN(DeviceListPtr list, GetDeviceList(&count));
  if (count == 0) return NoDeviceError();
  std::vector<std::string> names;
  ibv_device* chosen = nullptr;
  for (int i = 0; i < count; ++i) {
    names.emplace_back(ibv_get_device_name(list.get()[i]));
    if (names.back() == name) chosen = list.get()[i];
  }
  std::sort(names.begin(), names.end());
  if (name.empty()) {
    if (count > 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "several RDMA devices, choose one with --device (devices: ", absl::StrJoin(names, ", "), ")"));
    }
    chosen = list.get()[0];
  }
  if (chosen == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown device '", name,
                                            "' (devices: ", absl::StrJoin(names, ", "), ")"));
  }
  ContextPtr context(ibv_open_device(chosen));
  if (!context) return ErrnoStatus(errno, absl::StrCat("ibv_open_device(", name, ")"));
  return context;
}

namespace {

// sysfs names the netdev of a GID entry when the verbs API gives no ifindex.
std::string NetdevFromSysfs(ibv_context* context, uint8_t port, uint32_t index) {
  std::ifstream in(absl::StrCat("/sys/class/infiniband/", ibv_get_device_name(context->device),
                                "/ports/", port, "/gid_attrs/ndevs/", index));
  std::string netdev;
  std::getline(in, netdev);
  return netdev;
}

GidEntry FromEntry(ibv_context* context, uint8_t port, const ibv_gid_entry& e) {
  GidEntry entry;
  entry.index = e.gid_index;
  entry.gid = e.gid;
  entry.type = static_cast<ibv_gid_type>(e.gid_type);
  char name[IF_NAMESIZE] = {};
  if (e.ndev_ifindex != 0 && if_indextoname(e.ndev_ifindex, name) != nullptr) {
    entry.netdev = name;
  } else {
    entry.netdev = NetdevFromSysfs(context, port, e.gid_index);
  }
  return entry;
}

}  // namespace

absl::StatusOr<std::vector<GidEntry>> ReadGidTable(ibv_context* context, const ibv_port_attr& attr,
                                                   uint8_t port) {
  std::vector<GidEntry> gids;
  for (int i = 0; i < attr.gid_tbl_len; ++i) {
    ibv_gid_entry e{};
    int rc = ibv_query_gid_ex(context, port, i, &e, 0);
    if (rc == 0) {
      gids.push_back(FromEntry(context, port, e));
      continue;
    }
    if (rc == ENODATA || rc == EINVAL) continue;  // an empty slot
    // Older kernels: the plain query, which knows no GID types.
    ibv_gid gid{};
    if (ibv_query_gid(context, port, i, &gid) != 0) {
      return ErrnoStatus(rc, absl::StrCat("ibv_query_gid_ex(port=", port, ", index=", i, ")"));
    }
    GidEntry entry;
    entry.index = i;
    entry.gid = gid;
    entry.netdev = NetdevFromSysfs(context, port, i);
    if (!entry.IsZero()) gids.push_back(entry);
  }
  return gids;
}

absl::StatusOr<DeviceInfo> Describe(ibv_context* context) {
  DeviceInfo info;
  info.name = ibv_get_device_name(context->device);
  info.node_type = context->device->node_type;
  info.transport = context->device->transport_type;
  ibv_device_attr attr{};
  if (int rc = ibv_query_device(context, &attr); rc != 0) return ErrnoStatus(rc, "ibv_query_device");
  for (uint8_t p = 1; p <= attr.phys_port_cnt; ++p) {
    PortInfo port;
    port.num = p;
    if (int rc = ibv_query_port(context, p, &port.attr); rc != 0) {
      return ErrnoStatus(rc, absl::StrCat("ibv_query_port(", p, ")"));
    }
    RDMACHECK_ASSIGN_OR_RETURN(port.gids, ReadGidTable(context, port.attr, p));
    info.ports.push_back(std::move(port));
  }
  return info;
}

absl::StatusOr<uint8_t> ChoosePort(const std::vector<PortInfo>& ports) {
  for (const PortInfo& port : ports) {
    if (port.attr.state == IBV_PORT_ACTIVE) return port.num;
  }
  std::vector<std::string> states;
  for (const PortInfo& port : ports) {
    states.push_back(absl::StrCat(port.num, ":", PortStateName(port.attr.state)));
  }
  return absl::FailedPreconditionError(absl::StrCat(
      "no ACTIVE port (ports: ", states.empty() ? "none" : absl::StrJoin(states, ", "), ")"));
}

absl::StatusOr<uint32_t> ChooseGid(const std::vector<GidEntry>& gids, ibv_transport_type transport) {
  auto find = [&](auto predicate) -> const GidEntry* {
    for (const GidEntry& g : gids) {
      if (!g.IsZero() && predicate(g)) return &g;
    }
    return nullptr;
  };
  const GidEntry* best = nullptr;
  if (transport == IBV_TRANSPORT_IWARP) {
    best = find([](const GidEntry&) { return true; });
  } else {
    best = find([](const GidEntry& g) { return g.type == IBV_GID_TYPE_ROCE_V2 && g.IsIpv4Mapped(); });
    if (!best) best = find([](const GidEntry& g) { return g.type == IBV_GID_TYPE_ROCE_V2; });
    if (!best) best = find([](const GidEntry& g) { return g.type == IBV_GID_TYPE_ROCE_V1; });
    if (!best) best = find([](const GidEntry&) { return true; });
  }
  if (!best) return absl::FailedPreconditionError("the port has no usable (non-zero) GID entry");
  return best->index;
}

absl::StatusOr<Selection> Select(ibv_context* context, const SelectionRequest& request) {
  RDMACHECK_ASSIGN_OR_RETURN(DeviceInfo info, Describe(context));
  Selection selection;
  selection.device = info.name;
  selection.transport = info.transport;
  if (request.port) {
    if (*request.port < 1 || *request.port > info.ports.size()) {
      return absl::InvalidArgumentError(absl::StrCat("--port=", *request.port, ": ", info.name,
                                                     " has ports 1..", info.ports.size()));
    }
    selection.port = *request.port;
  } else {
    RDMACHECK_ASSIGN_OR_RETURN(selection.port, ChoosePort(info.ports));
  }
  const PortInfo& port = info.ports[selection.port - 1];
  selection.port_attr = port.attr;
  uint32_t gid_index = 0;
  if (request.gid_index) {
    gid_index = *request.gid_index;
  } else {
    RDMACHECK_ASSIGN_OR_RETURN(gid_index, ChooseGid(port.gids, info.transport));
  }
  auto it = std::find_if(port.gids.begin(), port.gids.end(),
                         [&](const GidEntry& g) { return g.index == gid_index; });
  if (it == port.gids.end()) {
    return absl::InvalidArgumentError(absl::StrCat("--gid_index=", gid_index, ": no valid GID at that index on ",
                                                   info.name, " port ", selection.port));
  }
  selection.gid = *it;
  return selection;
}

namespace {

// The netdev with this MAC address (siw's GID is its netdev's MAC followed by zeros).
std::string NetdevWithMac(const uint8_t* mac) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string found;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_PACKET) continue;
    auto* ll = reinterpret_cast<sockaddr_ll*>(a->ifa_addr);
    if (ll->sll_halen == 6 && std::memcmp(ll->sll_addr, mac, 6) == 0) {
      found = a->ifa_name;
      break;
    }
  }
  freeifaddrs(list);
  return found;
}

}  // namespace

absl::StatusOr<sockaddr_storage> SelectionAddress(const Selection& selection) {
  sockaddr_storage address{};
  if (selection.gid.IsIpv4Mapped()) {
    auto* in = reinterpret_cast<sockaddr_in*>(&address);
    in->sin_family = AF_INET;
    std::memcpy(&in->sin_addr, selection.gid.gid.raw + 12, 4);
    return address;
  }
  std::string netdev = selection.gid.netdev;
  if (netdev.empty()) netdev = NetdevWithMac(selection.gid.gid.raw);
  if (netdev.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot find the netdev of ", selection.device, " GID ", selection.gid.index,
        " (needed for an IP address for rdma_cm)"));
  }
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return ErrnoStatus(errno, "getifaddrs");
  bool found = false;
  for (int family : {AF_INET, AF_INET6}) {  // IPv4 first: every rdma_cm stack handles it
    for (ifaddrs* a = list; a != nullptr && !found; a = a->ifa_next) {
      if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != family || netdev != a->ifa_name) continue;
      std::memcpy(&address, a->ifa_addr, family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6));
      found = true;
    }
  }
  freeifaddrs(list);
  if (!found) {
    return absl::FailedPreconditionError(
        absl::StrCat("netdev ", netdev, " of ", selection.device, " has no IP address (rdma_cm needs one)"));
  }
  return address;
}

std::string SockaddrToString(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&address)->sin_addr, text, sizeof(text));
  } else if (address.ss_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&address)->sin6_addr, text, sizeof(text));
  }
  return text;
}

const char* TransportName(ibv_transport_type transport) {
  switch (transport) {
    case IBV_TRANSPORT_IB: return "InfiniBand";
    case IBV_TRANSPORT_IWARP: return "iWARP";
    case IBV_TRANSPORT_USNIC: return "usNIC";
    case IBV_TRANSPORT_USNIC_UDP: return "usNIC/UDP";
    case IBV_TRANSPORT_UNSPECIFIED: return "unspecified";
    default: return "unknown";
  }
}

const char* LinkLayerName(uint8_t link_layer) {
  switch (link_layer) {
    case IBV_LINK_LAYER_INFINIBAND: return "InfiniBand";
    case IBV_LINK_LAYER_ETHERNET: return "Ethernet";
    default: return "unspecified";
  }
}

const char* PortStateName(ibv_port_state state) {
  switch (state) {
    case IBV_PORT_NOP: return "NOP";
    case IBV_PORT_DOWN: return "DOWN";
    case IBV_PORT_INIT: return "INIT";
    case IBV_PORT_ARMED: return "ARMED";
    case IBV_PORT_ACTIVE: return "ACTIVE";
    case IBV_PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
  }
  return "unknown";
}

int MtuBytes(ibv_mtu mtu) { return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128 << mtu : 0; }

ibv_ah_attr AhAttrToOwnGid(const Selection& selection, const GidEntry& gid) {
  ibv_ah_attr attr{};
  attr.port_num = selection.port;
  attr.dlid = selection.port_attr.lid;
  attr.is_global = 1;
  attr.grh.dgid = gid.gid;
  attr.grh.sgid_index = static_cast<uint8_t>(gid.index);
  attr.grh.hop_limit = 64;
  return attr;
}

ibv_ah_attr AhAttrToOwnGid(const Selection& selection) { return AhAttrToOwnGid(selection, selection.gid); }

}  // namespace rdmacheck
