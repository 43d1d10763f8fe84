// One node against its machine profile (machine_profile.h): what it shows below what its
// machine type must show, one line each, naming the device (or the pair) and the value:
//
//   3 NICs, the profile's machine type gpu-a needs 8
//   mlx5_1: model mlx5 15b3:1017, the profile's machine type gpu-a needs mlx5 15b3:101d
//   rxe0: active_mtu 1024, the profile's machine type gpu-a needs 4096
//   mlx5_1: firmware 28.35.1000 below 28.39.1002
//   rxe0: capability atomics unsupported
//   pair node-a <- node-b mlx5_0 write bandwidth 65536 B: 12.1 Gb/s below 180 Gb/s - 10 %
//
// In that order: the node's device count, then each device (model, settings, firmware,
// capabilities), then each pair's points. A value the profile sets and the run did not
// record is a violation too ("rxe0: port_rate not recorded, ..."): a node is never taken
// to meet a rule nobody checked. A point the profile names that a pair did not measure is
// not checked (health runs no pair); one it tried and could not measure is a violation.
// min_firmware holds the devices of nics.models' first model (every device without
// models): another model's firmware numbers are another scale. link_flaps is not checked
// here (the link-flap check counts them).
//
//   std::vector<std::string> violations = CheckNode(profile, facts);  // empty: it meets it
#ifndef RDMACHECK_MACHINE_PROFILE_CHECK_H_
#define RDMACHECK_MACHINE_PROFILE_CHECK_H_

#include <string>
#include <vector>

#include "machine/machine_profile.h"
#include "machine/node_facts.h"

namespace rdmacheck {

std::vector<std::string> CheckNode(const MachineProfile& profile, const NodeFacts& node);

}  // namespace rdmacheck

#endif  // RDMACHECK_MACHINE_PROFILE_CHECK_H_
