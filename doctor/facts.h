// What `rdmacheck doctor` looks at, as plain data: read from the system by GatherFacts()
// (sysfs, /dev, rlimits, RDMA netlink, rdma_cm), judged by checks.h. Keeping the two apart
// lets the unit tests judge made-up hosts (a container given one of two devices, a
// lowered memlock, a netdev in another namespace) without any of them.
#ifndef RDMACHECK_DOCTOR_FACTS_H_
#define RDMACHECK_DOCTOR_FACTS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "capabilities/system/memlock.h"

namespace rdmacheck {

// /dev/infiniband/uverbsN, the node a process opens to drive device `device`.
struct UverbsNode {
  std::string name;    // "uverbs0" (/sys/class/infiniband_verbs/<name>)
  std::string device;  // its ibdev, "rxe0"
  bool present = false;   // the /dev node exists in this mount namespace
  uint32_t mode = 0;      // st_mode & 07777
  bool openable = false;  // open(O_RDWR) succeeded for this process
  std::string open_error;  // strerror when not
};

struct GidFact {
  uint32_t index = 0;
  std::string type;     // "RoCEv2", "RoCEv1", "IB"
  std::string address;  // "10.0.2.15" when IPv4-mapped
  bool ipv4 = false;
};

struct PortFact {
  uint8_t num = 0;
  std::string state;  // "ACTIVE", "DOWN", ...
  int active_mtu = 0;  // bytes
  std::string netdev;  // the kernel's netdev of the port ("" when none is named)
  bool netdev_here = false;  // the netdev exists in this network namespace
  int netdev_mtu = 0;
  std::string netdev_state;  // operstate: "up", "down", "unknown"
  std::vector<GidFact> gids;
  std::optional<std::string> default_roce_mode;  // rdma_cm configfs, when it is set up
};

// rdma_cm on the device's address: bind, then resolve that address to itself.
struct CmFact {
  std::string address;       // "" when the device has no IP address to try
  std::string bind_error;    // "" when bound
  std::string bound_device;  // the device rdma_cm picked for the address
  std::string resolve_error;  // "" when resolved
};

struct DeviceFact {
  std::string name;
  std::string transport;  // "InfiniBand", "iWARP"
  std::string link_layer;  // of the first port: "Ethernet", "InfiniBand"
  std::string driver;     // "rxe", "siw", "mlx5" (RDMA netlink)
  std::string open_error;  // "" when ibv_open_device and the port queries worked
  std::vector<PortFact> ports;
  std::optional<CmFact> cm;  // tried when the device opened and has an address
};

struct HostFacts {
  std::string sysfs_error;  // "" when /sys/class/infiniband could be read
  std::vector<std::string> sysfs_devices;  // /sys/class/infiniband, sorted
  std::vector<UverbsNode> uverbs;
  MemlockLimit memlock;
  std::optional<bool> netns_shared;  // `rdma system` netns mode; nullopt: unknown
  std::string netns_error;
  bool iwpmd_running = false;
  std::vector<DeviceFact> devices;  // the devices looked at (one, or every one)
};

// Reads this host. `device`: only that one ("" = every device in sysfs). Never fails: what
// cannot be read is recorded as such in the facts.
HostFacts GatherFacts(const std::string& device);

}  // namespace rdmacheck

#endif  // RDMACHECK_DOCTOR_FACTS_H_
