// What the kernel states about the port a run uses beyond what verbs report: the link's
// rate, the MTU of the port's netdev and the PCIe link of its device. A run records them
// (results.json environment "port_rate", "netdev_mtu", "pcie_link") so that the fleet
// report can name a node whose NIC trained a slower link than its kind's (docs/fleet.md,
// drift). Each is absent where the kernel has no such file: no netdev on InfiniBand, no PCI
// parent for rxe and siw (virtual devices).
//
//   PortFacts f = ReadPortFacts("mlx5_0", 1, "enp1s0f0np0");
//   *f.rate        "100 Gb/sec (4X EDR)"  /sys/class/infiniband/mlx5_0/ports/1/rate
//   *f.netdev_mtu  9000                   /sys/class/net/enp1s0f0np0/mtu
//   *f.pcie_link   "16.0 GT/s PCIe x16"   /sys/class/infiniband/mlx5_0/device/current_link_{speed,width}
#ifndef RDMACHECK_CAPABILITIES_SYSTEM_PORT_FACTS_H_
#define RDMACHECK_CAPABILITIES_SYSTEM_PORT_FACTS_H_

#include <cstdint>
#include <optional>
#include <string>

namespace rdmacheck {

struct PortFacts {
  std::optional<std::string> rate;       // as the kernel states it
  std::optional<int> netdev_mtu;         // bytes
  std::optional<std::string> pcie_link;  // "<current_link_speed> x<current_link_width>"
};

// `netdev` "" : none (InfiniBand). `sysfs` is where sysfs is mounted (a test's fake tree).
PortFacts ReadPortFacts(const std::string& device, uint32_t port, const std::string& netdev,
                        const std::string& sysfs = "/sys");

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_SYSTEM_PORT_FACTS_H_
