#include "doctor/facts.h"

#include <dirent.h>
#include <fcntl.h>
#include <net/if.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "capabilities/system/rdma_netlink.h"
#include "capabilities/system/sysfs_file.h"
#include "harness/connection/cm_steps.h"
#include "harness/device.h"
#include "harness/timeouts.h"

namespace rdmacheck {
namespace {

// How long rdma_cm may take to resolve a local address: an ARP-free, local lookup.
constexpr absl::Duration kResolveWait = absl::Seconds(2);

std::vector<std::string> ListDir(const std::string& path, std::string* error) {
  std::vector<std::string> names;
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) {
    if (error && errno != ENOENT) *error = absl::StrCat("cannot read ", path, ": ", std::strerror(errno));
    return names;
  }
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') names.push_back(e->d_name);
  }
  closedir(dir);
  std::sort(names.begin(), names.end());
  return names;
}

UverbsNode ReadUverbs(const std::string& name) {
  UverbsNode node;
  node.name = name;
  node.device = ReadSysfsLine("/sys/class/infiniband_verbs/" + name + "/ibdev");
  const std::string path = "/dev/infiniband/" + name;
  struct stat st {};
  node.present = stat(path.c_str(), &st) == 0;
  if (!node.present) return node;
  node.mode = st.st_mode & 07777;
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  node.openable = fd >= 0;
  if (fd >= 0) {
    close(fd);
  } else {
    node.open_error = std::strerror(errno);
  }
  return node;
}

bool ProcessRunning(const std::string& comm) {
  for (const std::string& pid : ListDir("/proc", nullptr)) {
    if (!std::all_of(pid.begin(), pid.end(), ::isdigit)) continue;
    if (ReadSysfsLine("/proc/" + pid + "/comm") == comm) return true;
  }
  return false;
}

void ReadNetdev(PortFact& port) {
  if (port.netdev.empty()) return;
  port.netdev_here = if_nametoindex(port.netdev.c_str()) != 0;
  if (!port.netdev_here) return;
  const std::string dir = "/sys/class/net/" + port.netdev;
  std::string mtu = ReadSysfsLine(dir + "/mtu");
  port.netdev_mtu = mtu.empty() ? 0 : std::atoi(mtu.c_str());
  port.netdev_state = ReadSysfsLine(dir + "/operstate");
}

// rdma_cm's configfs entry exists only once someone made it (cma_roce_mode does);
// doctor reads it and never creates it.
std::optional<std::string> DefaultRoceMode(const std::string& device, int port) {
  const std::string path =
      absl::StrCat("/sys/kernel/config/rdma_cm/", device, "/ports/", port, "/default_roce_mode");
  if (access(path.c_str(), R_OK) != 0) return std::nullopt;
  return ReadSysfsLine(path);
}

CmFact TryRdmaCm(const Selection& selection) {
  CmFact cm;
  absl::StatusOr<sockaddr_storage> address = SelectionAddress(selection);
  if (!address.ok()) return cm;  // no address: the check says so
  cm.address = SockaddrToString(*address);
  absl::StatusOr<CmChannelPtr> channel = CreateCmChannel();
  if (!channel.ok()) {
    cm.bind_error = std::string(channel.status().message());
    return cm;
  }
  absl::StatusOr<CmIdPtr> id = CreateCmId(channel->get());
  absl::StatusOr<sockaddr_storage> bound = id.ok() ? Listen(id->get(), *address) : id.status();
  if (!bound.ok()) {
    cm.bind_error = std::string(bound.status().message());
    return cm;
  }
  if ((*id)->verbs != nullptr) cm.bound_device = ibv_get_device_name((*id)->verbs->device);
  absl::StatusOr<CmIdPtr> client = CreateCmId(channel->get());
  absl::Status resolved = client.ok() ? ResolveRoute(client->get(), *address, *bound, Scaled(kResolveWait))
                                      : client.status();
  if (!resolved.ok()) cm.resolve_error = std::string(resolved.message());
  return cm;
}

DeviceFact ReadDevice(const std::string& name) {
  DeviceFact d;
  d.name = name;
  absl::StatusOr<NetlinkDevice> netlink = QueryNetlinkDevice(name);
  if (netlink.ok()) d.driver = netlink->driver;
  absl::StatusOr<ContextPtr> context = OpenDevice(name);
  absl::StatusOr<DeviceInfo> info = context.ok() ? Describe(context->get()) : context.status();
  if (!info.ok()) {
    d.open_error = std::string(info.status().message());
    return d;
  }
  d.transport = TransportName(info->transport);
  for (const PortInfo& p : info->ports) {
    PortFact port;
    port.num = p.num;
    port.state = PortStateName(p.attr.state);
    port.active_mtu = MtuBytes(p.attr.active_mtu);
    if (d.link_layer.empty()) d.link_layer = LinkLayerName(p.attr.link_layer);
    if (netlink.ok() && netlink->port_netdevs.count(p.num)) port.netdev = netlink->port_netdevs.at(p.num);
    for (const GidEntry& g : p.gids) {
      if (g.IsZero()) continue;
      port.gids.push_back({g.index, g.TypeName(), g.Address(), g.IsIpv4Mapped()});
      if (port.netdev.empty()) port.netdev = g.netdev;
    }
    ReadNetdev(port);
    port.default_roce_mode = DefaultRoceMode(name, p.num);
    d.ports.push_back(std::move(port));
  }
  SelectionRequest request;
  request.device = name;
  absl::StatusOr<Selection> selection = Select(context->get(), request);
  if (selection.ok()) d.cm = TryRdmaCm(*selection);
  return d;
}

}  // namespace

HostFacts GatherFacts(const std::string& device) {
  HostFacts f;
  if (access("/sys/class", R_OK) != 0) {
    f.sysfs_error = "/sys is not mounted or not readable";
    return f;
  }
  f.sysfs_devices = ListDir("/sys/class/infiniband", &f.sysfs_error);
  for (const std::string& name : ListDir("/sys/class/infiniband_verbs", nullptr)) {
    if (name.rfind("uverbs", 0) == 0) f.uverbs.push_back(ReadUverbs(name));
  }
  f.memlock = CurrentMemlockLimit();
  absl::StatusOr<bool> shared = QueryNetnsShared();
  if (shared.ok()) {
    f.netns_shared = *shared;
  } else {
    f.netns_error = std::string(shared.status().message());
  }
  f.iwpmd_running = ProcessRunning("iwpmd");
  for (const std::string& name : f.sysfs_devices) {
    if (!device.empty() && name != device) continue;
    f.devices.push_back(ReadDevice(name));
  }
  return f;
}

}  // namespace rdmacheck
