// What a device declares about itself, read without creating anything: every
// ibv_query_device_ex field by name, every port (ibv_query_port) and its GID table
// (ibv_query_gid_ex), as the "declared" part of the profile.
//
// Layout of the JSON (capabilities.json "declared"):
//   device_cap_flags      ["SRQ_RESIZE", "MEM_WINDOW", ...]  (unknown bits as "bit_N")
//   device_cap_flags_raw  "0x1223c76"
//   atomic_cap            "NONE" | "HCA" | "GLOB"
//   limits                {"max_qp": ..., every max_* and the other numeric limits}
//   odp                   {"general": [...], "rc": [...], "uc": [...], "ud": [...], "xrc": [...]}
//   completion_timestamp_mask, hca_core_clock_khz, page_size_cap, sys_image_guid
//   ports                 [{port, state, phys_state, link_layer, max_mtu, active_mtu, speed,
//                           width, port_cap_flags, ..., netdev,
//                           gids: [{index, gid, type, family, netdev}]}]
// The verbs API has no query for the inline data limit: the probe measures it (measured).
#ifndef RDMACHECK_CAPABILITIES_DECLARED_DECLARED_H_
#define RDMACHECK_CAPABILITIES_DECLARED_DECLARED_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capabilities/system/rdma_netlink.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

// `netlink` may be null (then GID entries without a kernel netdev name none).
absl::StatusOr<nlohmann::json> ReadDeclaredAttributes(ibv_context* context, const ibv_device_attr_ex& attr,
                                                      const NetlinkDevice* netlink);

// Names, for the JSON above and for skip reasons.
std::vector<std::string> DeviceCapFlagNames(uint64_t flags);
const char* AtomicCapName(ibv_atomic_cap cap);
std::string GuidText(__be64 guid);  // "7442:6fff:fe4a:79ce", as ibv_devinfo prints it

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_DECLARED_DECLARED_H_
