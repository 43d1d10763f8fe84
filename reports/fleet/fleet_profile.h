// The fleet report against a machine profile (`fleet report --profile=FILE`; the rules:
// machine/profile_check.h), and the facts `fleet profile --learn` learns one from.
//
// The check works at the digest level, as the rest of the report does (fleet_tally.h):
// beside FleetTally::Add, each run leaves its facts (machine/node_facts.h: its kind,
// firmware, port settings and, when checking, only the capabilities the profile names: a
// few hundred bytes) and is dropped. Once the tally is judged, each node's facts, with the
// benchmark points of every pair it served or ran, are checked. A node below its profile
// is `fail` (trouble: exit 1); its violations lead its findings and the headline names it.
// A node without results is left as it is (missing, with its reason): nothing to check.
// A pair below the profile counts against both its nodes (which side is slow, the pair
// matrix may tell: fault_side.h).
//
//   FleetMachines machines(options.profile, /*keep_all_capabilities=*/false);
//   for (...) { tally.Add(run, bench); machines.Add(run); }
//   FleetReport fleet = std::move(tally).Finish();
//   machines.Judge(fleet);
#ifndef RDMACHECK_REPORTS_FLEET_FLEET_PROFILE_H_
#define RDMACHECK_REPORTS_FLEET_FLEET_PROFILE_H_

#include <optional>
#include <string>
#include <vector>

#include "machine/machine_profile.h"
#include "machine/node_facts.h"
#include "reports/fleet/fleet_model.h"

namespace rdmacheck {

class FleetMachines {
 public:
  // keep_all_capabilities: every capability each run observed (to learn a profile), not
  // only the profile's.
  FleetMachines(std::optional<MachineProfile> profile, bool keep_all_capabilities);

  // The run FleetTally::Add was just given (the same order: facts by run index).
  void Add(const DeviceRun& run);

  // Every node with results: its devices in the order read, the pairs it took part in.
  std::vector<NodeFacts> Nodes(const FleetReport& fleet) const;

  // Without a profile, nothing. With one: each node's profile_violations, a node with any
  // made `fail`, and the nodes sorted worst first again.
  void Judge(FleetReport& fleet) const;

 private:
  std::optional<MachineProfile> profile_;
  bool keep_all_capabilities_ = false;
  std::vector<DeviceFacts> facts_;  // by run index (a pair's run: empty); none without a profile or learning
};

// The nodes below the profile, worst first, and the documents' lines naming them, each
// with its first violation: "node-b: rxe0: active_mtu 1024, the profile's machine type
// gpu-a needs 4096 (+2 more)". Both empty without a profile or when every node meets it.
std::vector<std::string> NodesBelowProfile(const FleetReport& fleet);
std::vector<std::string> BelowProfileLines(const FleetReport& fleet);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_FLEET_FLEET_PROFILE_H_
