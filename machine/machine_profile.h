// A machine profile: what every node of one machine type must show, written once per type
// (as a node health check's configuration is: LBNL NHC's nhc.conf, azurehpc-health-checks'
// per-SKU files) and checked by `rdmacheck health --profile=FILE` on one node and
// `rdmacheck fleet report --profile=FILE` over a fleet (docs/machine-profile.md).
//
//   {"schema": "rdmacheck.machine-profile/1", "machine_type": "gpu-a",
//    "nics": {"count": 8, "models": ["mlx5 15b3:101d"]},
//    "port_rate": "200 Gb/sec (4X HDR)", "active_mtu": 4096, "netdev_mtu": 9000,
//    "gid_type": "RoCEv2", "link_layer": "Ethernet", "min_firmware": "28.39.1002",
//    "capabilities": ["rc_qp", "rdma_read", "atomics"],
//    "pairs": {"write bandwidth 65536 B": {"expect": 180.0, "tolerance": 0.1}},
//    "link_flaps": {"max": 2, "window_s": 3600}}
//
// Every field is optional: an absent one is not checked. A file with a field this version
// does not know, or a value of the wrong type, is refused with one line naming it (a typo
// must not turn a rule off silently).
#ifndef RDMACHECK_MACHINE_MACHINE_PROFILE_H_
#define RDMACHECK_MACHINE_MACHINE_PROFILE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

inline constexpr char kMachineProfileSchema[] = "rdmacheck.machine-profile/1";

// A benchmark point every pair must reach: bandwidth at least expect * (1 - tolerance)
// Gb/s, latency at most expect * (1 + tolerance) us.
struct PairExpectation {
  double expect = 0;
  double tolerance = 0.1;
};

// How often a port may go down within a window. `health` counts the downs in its own window
// (doctor/link_flaps.h); a run records those of the hour before it, which the check of a
// run (profile_check.h) holds to `max`.
struct LinkFlapLimit {
  int max = 0;
  int window_s = 3600;
};

struct MachineProfile {
  std::string machine_type;               // names the type in every violation ("" : unnamed)
  std::optional<int> nic_count;           // RDMA devices per node
  std::vector<std::string> nic_models;    // each device's kind is one of these (node_facts.h DeviceKind);
                                          // the first is the type's main NIC
  std::optional<std::string> port_rate;   // sysfs rate: "200 Gb/sec (4X HDR)"
  std::optional<int> active_mtu;          // the port's active MTU, bytes
  std::optional<int> netdev_mtu;          // the netdev's MTU, bytes (RoCE, iWARP)
  std::optional<std::string> gid_type;    // "RoCEv2", "RoCEv1", "IB"
  std::optional<std::string> link_layer;  // "Ethernet", "InfiniBand"
  std::optional<std::string> min_firmware;  // firmware floor of nic_models' first model (of every
                                            // device without models), compared dotted and numeric
  std::vector<std::string> capabilities;  // each observed "supported" on every device
  std::map<std::string, PairExpectation> pairs;  // by point name (node_facts.h BenchPointName)
  std::optional<LinkFlapLimit> link_flaps;
};

// The profile in a document; errors say which field and why ("nics.count must be an
// integer, got \"8\""; "unknown field 'nic'").
absl::StatusOr<MachineProfile> MachineProfileFromJson(const nlohmann::json& json);
// The profile in FILE; errors are one line and start with FILE ("cannot read FILE",
// "FILE: not valid JSON: ...", "FILE: unknown field 'nic' ...").
absl::StatusOr<MachineProfile> LoadMachineProfile(const std::string& path);
// The document, absent fields left out: MachineProfileFromJson(MachineProfileToJson(p)) == p.
nlohmann::json MachineProfileToJson(const MachineProfile& profile);
// The file: that document indented, its fields in the order above.
std::string MachineProfileText(const MachineProfile& profile);

}  // namespace rdmacheck

#endif  // RDMACHECK_MACHINE_MACHINE_PROFILE_H_
