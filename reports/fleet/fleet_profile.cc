#include "reports/fleet/fleet_profile.h"

#include <algorithm>
#include <map>

#include "absl/strings/str_cat.h"
#include "machine/profile_check.h"

namespace rdmacheck {

FleetMachines::FleetMachines(std::optional<MachineProfile> profile, bool keep_all_capabilities)
    : profile_(std::move(profile)), keep_all_capabilities_(keep_all_capabilities) {}

void FleetMachines::Add(const DeviceRun& run) {
  if (!profile_ && !keep_all_capabilities_) return;  // nothing will read them: the report's memory stays as it was
  const nlohmann::json peer = run.results.environment.value("peer", nlohmann::json());
  if (peer.is_string() && !peer.get<std::string>().empty()) {
    facts_.emplace_back();  // a pair's run: its benchmark is in FleetPair
    return;
  }
  const std::vector<std::string>* only = keep_all_capabilities_ ? nullptr : &profile_->capabilities;
  facts_.push_back(DeviceFactsOf(run.results.device, run.results.environment, run.capabilities, only));
}

std::vector<NodeFacts> FleetMachines::Nodes(const FleetReport& fleet) const {
  std::map<std::string, NodeFacts> nodes;
  for (size_t i = 0; i < fleet.runs.size() && i < facts_.size(); ++i) {
    if (!fleet.runs[i].peer.empty()) continue;
    NodeFacts& node = nodes[fleet.runs[i].host];
    node.host = fleet.runs[i].host;
    node.devices.push_back(facts_[i]);
  }
  for (const FleetPair& p : fleet.pairs) {
    PairFacts pair{p.server, p.client, p.device, {}};
    for (const PairPoint& point : p.bench) pair.points.push_back(point.point);
    for (const std::string& host : {p.server, p.client}) {
      auto it = nodes.find(host);
      if (it != nodes.end()) it->second.pairs.push_back(pair);
    }
  }
  std::vector<NodeFacts> out;
  for (auto& [host, node] : nodes) out.push_back(std::move(node));
  return out;
}

void FleetMachines::Judge(FleetReport& fleet) const {
  if (!profile_) return;
  std::map<std::string, std::vector<std::string>> violations;
  for (const NodeFacts& node : Nodes(fleet)) violations[node.host] = CheckNode(*profile_, node);
  for (FleetNode& node : fleet.nodes) {
    auto it = violations.find(node.name);
    if (it == violations.end() || it->second.empty()) continue;
    node.profile_violations = std::move(it->second);
    node.verdict = NodeVerdict::kFail;
  }
  // The tally's order holds within each verdict; a node made `fail` joins the failing ones.
  std::stable_sort(fleet.nodes.begin(), fleet.nodes.end(),
                   [](const FleetNode& a, const FleetNode& b) { return a.verdict < b.verdict; });
}

std::vector<std::string> NodesBelowProfile(const FleetReport& fleet) {
  std::vector<std::string> names;
  for (const FleetNode& node : fleet.nodes) {
    if (!node.profile_violations.empty()) names.push_back(node.name);
  }
  return names;
}

std::vector<std::string> BelowProfileLines(const FleetReport& fleet) {
  std::vector<std::string> lines;
  for (const FleetNode& node : fleet.nodes) {
    const std::vector<std::string>& v = node.profile_violations;
    if (v.empty()) continue;
    lines.push_back(absl::StrCat(node.name, ": ", v.front(), v.size() > 1 ? absl::StrCat(" (+", v.size() - 1, " more)") : ""));
  }
  return lines;
}

}  // namespace rdmacheck
