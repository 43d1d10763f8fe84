// A machine profile learned from a fleet known to be healthy (`rdmacheck fleet profile
// --learn DIR...`): what most of its nodes show becomes what every node must show.
//
//   nics.count     the device count most nodes have (a tie: the larger)
//   nics.models    every model seen, the most common first
//   port_rate, active_mtu, netdev_mtu, gid_type, link_layer
//                  the value most devices recorded (a tie: the larger MTU); left out where
//                  no device recorded it, or where most nodes' own devices differ in it
//                  (an InfiniBand and an Ethernet NIC in one machine: no one value)
//   min_firmware   the lowest firmware of the most common model's devices (profile_check.h
//                  holds only that model's devices to it)
//   capabilities   those observed "supported" on every device
//   pairs          per benchmark point, over every pair once: the median as "expect", and
//                  tolerance max(0.1, 3 x the median absolute deviation / the median),
//                  the median to three significant digits, the tolerance up to a hundredth
//   link_flaps     never: no run records them
//
// Checked against the nodes it came from (profile_check.h), a profile learned from a
// fleet whose points spread less than 3 median absolute deviations passes them all.
#ifndef RDMACHECK_MACHINE_PROFILE_LEARN_H_
#define RDMACHECK_MACHINE_PROFILE_LEARN_H_

#include <string>
#include <vector>

#include "machine/machine_profile.h"
#include "machine/node_facts.h"

namespace rdmacheck {

// `notes`, when given, receives what was left out and why, one line each.
MachineProfile LearnProfile(const std::vector<NodeFacts>& nodes, const std::string& machine_type = "",
                            std::vector<std::string>* notes = nullptr);

}  // namespace rdmacheck

#endif  // RDMACHECK_MACHINE_PROFILE_LEARN_H_
