#include "capabilities/declared/identity.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "capabilities/declared/declared.h"

namespace rdmacheck {
namespace {

// /sys/class/infiniband/<dev>/device/driver -> .../drivers/<name>; absent for soft devices.
std::string SysfsDriver(const std::string& device) {
  char target[512] = {};
  std::string link = absl::StrCat("/sys/class/infiniband/", device, "/device/driver");
  ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
  if (n <= 0) return "";
  absl::string_view t(target, n);
  return std::string(t.substr(t.rfind('/') + 1));
}

// The installed version of a package; dpkg's status is the one authority on Debian. A
// library renamed by the 64-bit time_t transition (trixie on: librdmacm1t64) counts too.
std::string PackageVersion(absl::string_view package) {
  std::ifstream in("/var/lib/dpkg/status");
  std::string line;
  bool in_package = false;
  while (std::getline(in, line)) {
    if (line.rfind("Package: ", 0) == 0) {
      absl::string_view name = absl::string_view(line).substr(9);
      in_package = name == package || name == absl::StrCat(package, "t64");
    }
    if (in_package && line.rfind("Version: ", 0) == 0) return line.substr(9);
  }
  return "unknown";
}

std::string OsName() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("PRETTY_NAME=", 0) == 0) return std::string(absl::StripAsciiWhitespace(
        absl::StripSuffix(absl::StripPrefix(absl::string_view(line).substr(12), "\""), "\"")));
  }
  return "unknown";
}

}  // namespace

Identity ReadIdentity(ibv_context* context, const Selection& selection, const ibv_device_attr_ex& attr,
                      const NetlinkDevice* netlink) {
  Identity id;
  id.device = selection.device;
  if (netlink != nullptr) {
    id.driver = netlink->driver;
    id.protocol = netlink->protocol;
  }
  if (id.driver.empty()) id.driver = SysfsDriver(selection.device);
  if (id.driver.empty()) id.driver = "unknown";
  id.transport = TransportName(selection.transport);
  id.node_type = ibv_node_type_str(context->device->node_type);
  id.link_layer = LinkLayerName(selection.port_attr.link_layer);
  id.port = selection.port;
  id.gid_index = static_cast<int>(selection.gid.index);
  id.gid = selection.gid.Address();
  id.gid_type = selection.gid.TypeName();
  id.netdev = selection.gid.netdev;
  if (id.netdev.empty() && netlink != nullptr && netlink->port_netdevs.count(selection.port)) {
    id.netdev = netlink->port_netdevs.at(selection.port);
  }
  const ibv_device_attr& a = attr.orig_attr;
  id.vendor_id = a.vendor_id;
  id.vendor_part_id = a.vendor_part_id;
  id.fw_ver = a.fw_ver;
  id.hw_ver = a.hw_ver;
  id.node_guid = GuidText(a.node_guid);
  utsname u{};
  if (uname(&u) == 0) id.kernel = u.release;
  id.rdma_core = PackageVersion("libibverbs1");
  id.providers = PackageVersion("ibverbs-providers");
  id.os = OsName();
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) id.hostname = host;
  id.time = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  return id;
}

}  // namespace rdmacheck
