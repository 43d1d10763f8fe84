// What the kernel's RDMA netlink interface (the one `rdma dev` / `rdma link` use) says about
// a device: which kernel driver runs it and which netdev each port sits on.
//
// sysfs has no driver link for software devices (rxe, siw have no parent device), and
// siw's GID table names no netdev; netlink knows both. Shown in the profile, never used to
// decide a capability. It also reads the port's traffic counters (device_counters.h).
#ifndef RDMACHECK_CAPABILITIES_SYSTEM_RDMA_NETLINK_H_
#define RDMACHECK_CAPABILITIES_SYSTEM_RDMA_NETLINK_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace rdmacheck {

struct NetlinkDevice {
  uint32_t index = 0;
  std::string protocol;  // "roce", "iw", "ib", "opa" (empty on kernels that do not say)
  std::string driver;    // the uverbs driver id as a name: "rxe", "siw", "mlx5", ...
  std::map<uint32_t, std::string> port_netdevs;  // port -> netdev name, where the kernel has one
};

absl::StatusOr<NetlinkDevice> QueryNetlinkDevice(const std::string& device);

// `rdma system`: whether RDMA devices are shared by every network namespace (true, the
// default) or each belongs to one namespace (exclusive mode).
absl::StatusOr<bool> QueryNetnsShared();

// The port's hardware counters, as `rdma statistic show link <dev>/<port>` prints them
// (RDMA_NLDEV_CMD_STAT_GET without a resource: the device's default counter set; the
// same values as sysfs ports/<port>/hw_counters). EINVAL when the driver keeps none.
absl::StatusOr<std::map<std::string, uint64_t>> QueryNetlinkHwCounters(uint32_t device_index, uint32_t port);

// How many objects of each type ("pd", "cq", "qp", "mr", "srq", "cm_id") process `pid`
// holds on all RDMA devices, as the kernel's resource tracking counts them: what
// `rdma resource show TYPE` lists for the pid, read from netlink directly (no process to
// start: the leak check counts twice per child). A type this kernel does not track is
// left out; an error when netlink answers for none.
absl::StatusOr<std::map<std::string, int>> CountNetlinkResources(int pid);
// The same types on one device (NetlinkDevice::index), whoever holds them: every process
// and the kernel itself (rxe's QP1 and the MAD layer's PD and CQs count against max_qp ...).
absl::StatusOr<std::map<std::string, int>> CountDeviceResources(uint32_t device_index);

// enum rdma_driver_id (rdma/ib_user_ioctl_verbs.h) -> "rxe"; "driver_id_N" when unknown.
std::string DriverIdName(uint64_t id);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_SYSTEM_RDMA_NETLINK_H_
