#include "capabilities/probe.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string DriverName(const std::string& device) {
  // /sys/class/infiniband/<dev>/device/driver -> .../drivers/<name> (absent for soft devices)
  char target[512] = {};
  std::string link = absl::StrCat("/sys/class/infiniband/", device, "/device/driver");
  ssize_t n = readlink(link.c_str(), target, sizeof(target) - 1);
  if (n > 0) {
    absl::string_view t(target, n);
    return std::string(t.substr(t.rfind('/') + 1));
  }
  // Soft devices: the kernel's driver id, e.g. "rxe" / "siw" from the hca_type.
  return ReadLine(absl::StrCat("/sys/class/infiniband/", device, "/hca_type"));
}

std::string RdmaCoreVersion() {
  // The installed libibverbs package version; dpkg's status is the one authority on Debian.
  std::ifstream in("/var/lib/dpkg/status");
  std::string line;
  bool in_package = false;
  while (std::getline(in, line)) {
    if (line.rfind("Package: ", 0) == 0) in_package = (line == "Package: libibverbs1");
    if (in_package && line.rfind("Version: ", 0) == 0) return line.substr(9);
  }
  return "unknown";
}

std::string Guid(__be64 guid) {
  uint64_t g = be64toh(guid);
  return absl::StrFormat("%04x:%04x:%04x:%04x", (g >> 48) & 0xffff, (g >> 32) & 0xffff, (g >> 16) & 0xffff,
                         g & 0xffff);
}

}  // namespace

absl::StatusOr<Profile> ReadDeclared(ibv_context* context, const Selection& selection) {
  Profile profile;
  Identity& id = profile.identity;
  id.device = selection.device;
  id.driver = DriverName(selection.device);
  id.transport = std::string(TransportName(selection.transport));
  id.node_type = ibv_node_type_str(context->device->node_type);
  id.link_layer = std::string(LinkLayerName(selection.port_attr.link_layer));
  utsname u{};
  if (uname(&u) == 0) id.kernel = u.release;
  id.rdma_core = RdmaCoreVersion();
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) == 0) id.hostname = host;
  id.time = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());

  ibv_device_attr_ex attr{};
  if (int rc = ibv_query_device_ex(context, nullptr, &attr); rc != 0) {
    return ErrnoStatus(rc, "ibv_query_device_ex");
  }
  const ibv_device_attr& a = attr.orig_attr;
  id.vendor_id = a.vendor_id;
  id.vendor_part_id = a.vendor_part_id;
  id.fw_ver = a.fw_ver;
  id.hw_ver = a.hw_ver;
  id.node_guid = Guid(a.node_guid);
  profile.declared = {
      {"max_qp", a.max_qp},           {"max_qp_wr", a.max_qp_wr},     {"max_sge", a.max_sge},
      {"max_cq", a.max_cq},           {"max_cqe", a.max_cqe},         {"max_mr", a.max_mr},
      {"max_pd", a.max_pd},           {"max_mr_size", a.max_mr_size}, {"atomic_cap", a.atomic_cap},
      {"device_cap_flags", a.device_cap_flags},
      {"phys_port_cnt", a.phys_port_cnt},
  };
  return profile;
}

absl::StatusOr<Profile> ProbeDevice(ibv_context* context, const Selection& selection) {
  return ReadDeclared(context, selection);
}

}  // namespace rdmacheck
