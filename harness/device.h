// Finding, opening and describing RDMA devices, and choosing the port and GID a run uses.
//
// Selection rules (the --port / --gid_index defaults):
//   port: the first ACTIVE port.
//   GID:  RoCE: a RoCEv2 entry whose address is IPv4-mapped (::ffff:a.b.c.d), then any
//         RoCEv2, then RoCEv1; InfiniBand: index 0; iWARP: its single entry. An all-zero
//         entry is never chosen (siw's only GID is its MAC plus zero bytes: not all-zero).
#ifndef RDMACHECK_HARNESS_DEVICE_H_
#define RDMACHECK_HARNESS_DEVICE_H_

#include <infiniband/verbs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <optional>
#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

struct GidEntry {
  uint32_t index = 0;
  ibv_gid gid{};
  ibv_gid_type type = IBV_GID_TYPE_IB;
  std::string netdev;  // empty when the kernel names none (InfiniBand)

  bool IsZero() const;
  bool IsIpv4Mapped() const;     // ::ffff:a.b.c.d, the form RoCEv2 uses for IPv4
  std::string Address() const;   // "fe80::...", or "10.0.0.1" when IPv4-mapped
  std::string TypeName() const;  // "IB", "RoCEv1", "RoCEv2"
};

struct PortInfo {
  uint8_t num = 0;
  ibv_port_attr attr{};
  std::vector<GidEntry> gids;
};

struct DeviceInfo {
  std::string name;
  ibv_node_type node_type = IBV_NODE_UNKNOWN;
  ibv_transport_type transport = IBV_TRANSPORT_UNKNOWN;
  std::vector<PortInfo> ports;
};

// The port and GID that tests use, with what they need to know about them.
struct Selection {
  std::string device;
  ibv_transport_type transport = IBV_TRANSPORT_UNKNOWN;
  uint8_t port = 0;
  ibv_port_attr port_attr{};
  GidEntry gid;
};

// What the user asked for; unset fields are chosen by the rules above.
struct SelectionRequest {
  std::string device;  // empty: the only device there is
  std::optional<uint8_t> port;
  std::optional<uint32_t> gid_index;
};

// "no RDMA device found; ..." with how to get one (the lab).
absl::Status NoDeviceError();

// Names of the RDMA devices ibverbs sees, sorted.
absl::StatusOr<std::vector<std::string>> DeviceNames();

// Opens `name` ("" = the only device). NotFound names the devices that exist, or says
// how to get one when there is none.
absl::StatusOr<ContextPtr> OpenDevice(absl::string_view name);

absl::StatusOr<DeviceInfo> Describe(ibv_context* context);
absl::StatusOr<std::vector<GidEntry>> ReadGidTable(ibv_context* context, const ibv_port_attr& attr,
                                                   uint8_t port);

// Pure choice functions (unit tested).
absl::StatusOr<uint8_t> ChoosePort(const std::vector<PortInfo>& ports);
absl::StatusOr<uint32_t> ChooseGid(const std::vector<GidEntry>& gids, ibv_transport_type transport);

absl::StatusOr<Selection> Select(ibv_context* context, const SelectionRequest& request);

// An address vector from the selected port to `gid` of it (by default the selected GID
// itself: the device's own address), global routing, hop limit 64.
ibv_ah_attr AhAttrToOwnGid(const Selection& selection);
ibv_ah_attr AhAttrToOwnGid(const Selection& selection, const GidEntry& gid);

// The IP address of the selected GID's netdev, for rdma_cm (port left 0).
absl::StatusOr<sockaddr_storage> SelectionAddress(const Selection& selection);
std::string SockaddrToString(const sockaddr_storage& address);

const char* TransportName(ibv_transport_type transport);  // "InfiniBand", "iWARP", ...
const char* LinkLayerName(uint8_t link_layer);             // "InfiniBand", "Ethernet"
const char* PortStateName(ibv_port_state state);          // "ACTIVE", "DOWN", ...
int MtuBytes(ibv_mtu mtu);                                      // IBV_MTU_1024 -> 1024

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_DEVICE_H_
