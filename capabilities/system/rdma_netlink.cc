#include "capabilities/system/rdma_netlink.h"

#include <linux/netlink.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

// One attribute of a message, as found in the reply.
using Attributes = std::map<uint16_t, std::string>;

uint32_t U32(const Attributes& a, uint16_t type) {
  auto it = a.find(type);
  uint32_t v = 0;
  if (it != a.end() && it->second.size() >= sizeof(v)) std::memcpy(&v, it->second.data(), sizeof(v));
  return v;
}

// An unsigned attribute of either width: the uapi header says u64 for some attributes
// that kernels send as u32 (UVERBS_DRIVER_ID).
uint64_t Unsigned(const Attributes& a, uint16_t type) {
  auto it = a.find(type);
  if (it == a.end()) return 0;
  if (it->second.size() >= sizeof(uint64_t)) {
    uint64_t v = 0;
    std::memcpy(&v, it->second.data(), sizeof(v));
    return v;
  }
  return U32(a, type);
}

std::string Str(const Attributes& a, uint16_t type) {
  auto it = a.find(type);
  if (it == a.end()) return "";
  return std::string(it->second.c_str());  // NUL-terminated on the wire
}

// Calls `fn` for each attribute in `data` (a message's payload or a nested attribute's),
// in order: nested tables repeat a type, so a map would lose entries.
void ForEachAttribute(absl::string_view data, const std::function<void(uint16_t, absl::string_view)>& fn) {
  const char* p = data.data();
  int left = static_cast<int>(data.size());
  while (left >= NLA_HDRLEN) {
    nlattr a;
    std::memcpy(&a, p, sizeof(a));
    if (a.nla_len < NLA_HDRLEN || a.nla_len > left) return;
    fn(a.nla_type & NLA_TYPE_MASK, absl::string_view(p + NLA_HDRLEN, a.nla_len - NLA_HDRLEN));
    const int step = std::min<int>(NLA_ALIGN(a.nla_len), left);
    p += step;
    left -= step;
  }
}

// A request: the netlink header followed by attributes.
class Request {
 public:
  Request(uint16_t command, uint16_t flags) {
    nlmsghdr header{};
    header.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, command);
    header.nlmsg_flags = NLM_F_REQUEST | flags;
    header.nlmsg_seq = 1;
    Append(&header, sizeof(header));
  }
  void AddU32(uint16_t type, uint32_t value) { Attribute(type, &value, sizeof(value)); }
  void AddStr(uint16_t type, const std::string& value) { Attribute(type, value.c_str(), value.size() + 1); }
  std::vector<char>& Finish() {
    reinterpret_cast<nlmsghdr*>(bytes_.data())->nlmsg_len = bytes_.size();
    return bytes_;
  }

 private:
  void Attribute(uint16_t type, const void* data, size_t size) {
    nlattr attr{static_cast<uint16_t>(NLA_HDRLEN + size), type};
    Append(&attr, sizeof(attr));
    Append(data, size);
    bytes_.resize(NLMSG_ALIGN(bytes_.size()));
  }
  void Append(const void* data, size_t size) {
    const char* p = static_cast<const char*>(data);
    bytes_.insert(bytes_.end(), p, p + size);
  }
  std::vector<char> bytes_;
};

// Sends `request` and calls `on_message` for each reply, until the kernel is done.
absl::Status Exchange(Request& request, const std::function<void(const Attributes&)>& on_message) {
  int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_RDMA);
  if (fd < 0) return ErrnoStatus(errno, "socket(NETLINK_RDMA)");
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  timeval timeout{2, 0};  // the kernel answers at once; never hang on it
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  std::vector<char>& bytes = request.Finish();
  if (sendto(fd, bytes.data(), bytes.size(), 0, reinterpret_cast<sockaddr*>(&kernel), sizeof(kernel)) < 0) {
    return ErrnoStatus(errno, "netlink send");
  }
  const bool dump = reinterpret_cast<nlmsghdr*>(bytes.data())->nlmsg_flags & NLM_F_DUMP;
  std::vector<char> buffer(64 * 1024);
  while (true) {
    ssize_t n = recv(fd, buffer.data(), buffer.size(), 0);
    if (n < 0) return ErrnoStatus(errno, "netlink receive");
    int left = static_cast<int>(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buffer.data()); NLMSG_OK(h, left); h = NLMSG_NEXT(h, left)) {
      if (h->nlmsg_type == NLMSG_DONE) return absl::OkStatus();
      if (h->nlmsg_type == NLMSG_ERROR) {
        int err = -reinterpret_cast<nlmsgerr*>(NLMSG_DATA(h))->error;
        return err == 0 ? absl::OkStatus() : ErrnoStatus(err, "netlink request");
      }
      Attributes attributes;
      ForEachAttribute(absl::string_view(static_cast<const char*>(NLMSG_DATA(h)), NLMSG_PAYLOAD(h, 0)),
                       [&](uint16_t type, absl::string_view payload) { attributes[type] = std::string(payload); });
      on_message(attributes);
      if (!dump) return absl::OkStatus();
    }
  }
}

}  // namespace

std::string DriverIdName(uint64_t id) {
  static const std::pair<uint64_t, const char*> kNames[] = {
      {RDMA_DRIVER_MLX5, "mlx5"},     {RDMA_DRIVER_MLX4, "mlx4"},         {RDMA_DRIVER_CXGB3, "cxgb3"},
      {RDMA_DRIVER_CXGB4, "cxgb4"},   {RDMA_DRIVER_MTHCA, "mthca"},       {RDMA_DRIVER_BNXT_RE, "bnxt_re"},
      {RDMA_DRIVER_OCRDMA, "ocrdma"}, {RDMA_DRIVER_NES, "nes"},           {RDMA_DRIVER_IRDMA, "irdma"},
      {RDMA_DRIVER_VMW_PVRDMA, "vmw_pvrdma"}, {RDMA_DRIVER_QEDR, "qedr"}, {RDMA_DRIVER_HNS, "hns"},
      {RDMA_DRIVER_USNIC, "usnic"},   {RDMA_DRIVER_RXE, "rxe"},           {RDMA_DRIVER_HFI1, "hfi1"},
      {RDMA_DRIVER_QIB, "qib"},       {RDMA_DRIVER_EFA, "efa"},           {RDMA_DRIVER_SIW, "siw"},
      {RDMA_DRIVER_ERDMA, "erdma"},
  };
  for (const auto& [value, name] : kNames) {
    if (value == id) return name;
  }
  return absl::StrCat("driver_id_", id);
}

absl::StatusOr<bool> QueryNetnsShared() {
  std::optional<bool> shared;
  Request get(RDMA_NLDEV_CMD_SYS_GET, 0);
  RDMACHECK_RETURN_IF_ERROR(Exchange(get, [&](const Attributes& a) {
    auto it = a.find(RDMA_NLDEV_SYS_ATTR_NETNS_MODE);
    if (it != a.end() && !it->second.empty()) shared = it->second[0] != 0;
  }));
  if (!shared) return absl::UnavailableError("the kernel's reply has no netns mode");
  return *shared;
}

absl::StatusOr<NetlinkDevice> QueryNetlinkDevice(const std::string& device) {
  NetlinkDevice found;
  bool seen = false;
  uint32_t ports = 0;
  Request list(RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
  RDMACHECK_RETURN_IF_ERROR(Exchange(list, [&](const Attributes& a) {
    if (Str(a, RDMA_NLDEV_ATTR_DEV_NAME) != device) return;
    seen = true;
    found.index = U32(a, RDMA_NLDEV_ATTR_DEV_INDEX);
    found.protocol = Str(a, RDMA_NLDEV_ATTR_DEV_PROTOCOL);
    ports = U32(a, RDMA_NLDEV_ATTR_PORT_INDEX);  // GET reports the port count here
  }));
  if (!seen) return absl::NotFoundError(absl::StrCat("netlink knows no RDMA device ", device));

  Request chardev(RDMA_NLDEV_CMD_GET_CHARDEV, 0);
  chardev.AddU32(RDMA_NLDEV_ATTR_DEV_INDEX, found.index);
  chardev.AddStr(RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs");
  RDMACHECK_RETURN_IF_ERROR(Exchange(chardev, [&](const Attributes& a) {
    if (a.count(RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID)) found.driver = DriverIdName(Unsigned(a, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID));
  }));

  for (uint32_t port = 1; port <= ports; ++port) {
    Request port_get(RDMA_NLDEV_CMD_PORT_GET, 0);
    port_get.AddU32(RDMA_NLDEV_ATTR_DEV_INDEX, found.index);
    port_get.AddU32(RDMA_NLDEV_ATTR_PORT_INDEX, port);
    absl::Status s = Exchange(port_get, [&](const Attributes& a) {
      std::string netdev = Str(a, RDMA_NLDEV_ATTR_NDEV_NAME);
      if (!netdev.empty()) found.port_netdevs[port] = netdev;
    });
    if (!s.ok()) break;  // the netdev is a nicety; the driver is what matters
  }
  return found;
}

absl::StatusOr<std::map<std::string, uint64_t>> QueryNetlinkHwCounters(uint32_t device_index, uint32_t port) {
  std::map<std::string, uint64_t> counters;
  Request stat(RDMA_NLDEV_CMD_STAT_GET, 0);
  stat.AddU32(RDMA_NLDEV_ATTR_DEV_INDEX, device_index);
  stat.AddU32(RDMA_NLDEV_ATTR_PORT_INDEX, port);
  RDMACHECK_RETURN_IF_ERROR(Exchange(stat, [&](const Attributes& a) {
    auto table = a.find(RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
    if (table == a.end()) return;
    ForEachAttribute(table->second, [&](uint16_t type, absl::string_view entry) {
      if (type != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY) return;
      std::string name;
      uint64_t value = 0;
      ForEachAttribute(entry, [&](uint16_t field, absl::string_view payload) {
        if (field == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME) name = std::string(payload.substr(0, payload.find('\0')));
        if (field == RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE && payload.size() >= sizeof(value)) {
          std::memcpy(&value, payload.data(), sizeof(value));
        }
      });
      if (!name.empty()) counters[name] = value;
    });
  }));
  return counters;
}

namespace {

// The resource tables of `devices` (all when empty), counting the entries `counts_entry`
// accepts; it sees each entry's owner pid (0 for the kernel's own objects, which carry none).
absl::StatusOr<std::map<std::string, int>> CountResources(std::vector<uint32_t> devices,
                                                          const std::function<bool(uint32_t pid)>& counts_entry) {
  struct Kind {
    const char* name;
    uint16_t command, table, entry;
  };
  static constexpr Kind kKinds[] = {
      {"pd", RDMA_NLDEV_CMD_RES_PD_GET, RDMA_NLDEV_ATTR_RES_PD, RDMA_NLDEV_ATTR_RES_PD_ENTRY},
      {"cq", RDMA_NLDEV_CMD_RES_CQ_GET, RDMA_NLDEV_ATTR_RES_CQ, RDMA_NLDEV_ATTR_RES_CQ_ENTRY},
      {"qp", RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_ATTR_RES_QP, RDMA_NLDEV_ATTR_RES_QP_ENTRY},
      {"mr", RDMA_NLDEV_CMD_RES_MR_GET, RDMA_NLDEV_ATTR_RES_MR, RDMA_NLDEV_ATTR_RES_MR_ENTRY},
      {"srq", RDMA_NLDEV_CMD_RES_SRQ_GET, RDMA_NLDEV_ATTR_RES_SRQ, RDMA_NLDEV_ATTR_RES_SRQ_ENTRY},
      {"cm_id", RDMA_NLDEV_CMD_RES_CM_ID_GET, RDMA_NLDEV_ATTR_RES_CM_ID, RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY},
  };
  if (devices.empty()) {
    Request list(RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
    RDMACHECK_RETURN_IF_ERROR(
        Exchange(list, [&](const Attributes& a) { devices.push_back(U32(a, RDMA_NLDEV_ATTR_DEV_INDEX)); }));
  }
  std::map<std::string, int> counts;
  for (const Kind& kind : kKinds) {
    for (uint32_t device : devices) {  // the kernel dumps one device's table at a time
      int owned = 0;
      Request dump(kind.command, NLM_F_DUMP);
      dump.AddU32(RDMA_NLDEV_ATTR_DEV_INDEX, device);
      absl::Status s = Exchange(dump, [&](const Attributes& a) {
        auto table = a.find(kind.table);
        if (table == a.end()) return;
        ForEachAttribute(table->second, [&](uint16_t type, absl::string_view entry) {
          if (type != kind.entry) return;
          uint32_t owner = 0;
          ForEachAttribute(entry, [&](uint16_t field, absl::string_view payload) {
            if (field != RDMA_NLDEV_ATTR_RES_PID || payload.size() < sizeof(owner)) return;
            std::memcpy(&owner, payload.data(), sizeof(owner));
          });
          if (counts_entry(owner)) ++owned;
        });
      });
      if (!s.ok()) break;  // a type this kernel does not track (or cannot dump)
      counts[kind.name] += owned;
    }
  }
  if (counts.empty()) return absl::UnavailableError("RDMA netlink gave no resource counts");
  return counts;
}

}  // namespace

absl::StatusOr<std::map<std::string, int>> CountNetlinkResources(int pid) {
  return CountResources({}, [pid](uint32_t owner) { return owner != 0 && owner == static_cast<uint32_t>(pid); });
}

absl::StatusOr<std::map<std::string, int>> CountDeviceResources(uint32_t device_index) {
  return CountResources({device_index}, [](uint32_t) { return true; });
}

}  // namespace rdmacheck
