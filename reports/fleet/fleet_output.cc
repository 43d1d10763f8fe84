#include "reports/fleet/fleet_output.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "reports/fleet/fault_side.h"
#include "reports/fleet/fleet_profile.h"
#include "reports/presentation.h"
#include "reports/report_output.h"

namespace rdmacheck {

absl::StatusOr<std::vector<std::string>> WriteFleetFiles(const FleetReport& fleet, const std::string& dir) {
  return WriteFilesInto(dir, {{"fleet.json", FleetToJson(fleet).dump(2) + "\n"},
                              {"fleet.md", FleetToMarkdown(fleet)},
                              {"fleet.html", FleetToHtml(fleet)}});
}

std::string FleetHeadline(const FleetReport& fleet) {
  std::vector<std::string> parts;
  for (NodeVerdict v : {NodeVerdict::kHealthy, NodeVerdict::kOutlier, NodeVerdict::kIncomplete, NodeVerdict::kMissing,
                        NodeVerdict::kFail}) {
    if (int n = fleet.CountNodes(v); n > 0) parts.push_back(absl::StrCat(n, " ", NodeVerdictName(v)));
  }
  std::string line = absl::StrCat(fleet.nodes.size(), " nodes: ", absl::StrJoin(parts, ", "), "; ",
                                  fleet.pairs.size(), " pairs");
  if (!fleet.pairs.empty()) {
    absl::StrAppend(&line, ": ", fleet.pairs.size() - fleet.FailedPairs() - fleet.SlowPairs(), " ok, ",
                    fleet.FailedPairs(), " failed, ", fleet.SlowPairs(), " slow");
  }
  // Which side the failed pairs point at (fault_side.h), before the outliers.
  if (const std::vector<FaultCall> calls = WhichSideIsAtFault(fleet.pairs); !calls.empty()) {
    absl::StrAppend(&line, "; at fault: ", calls.front().line,
                    calls.size() > 1 ? absl::StrCat(" (+", calls.size() - 1, " more)") : "");
  }
  // Pairs that used less than both their ports carry (names: "server <- client").
  if (const std::vector<const FleetPair*> low = fleet.LowPathMtuPairs(); !low.empty()) {
    std::vector<std::string> names;
    for (size_t i = 0; i < low.size() && i < kFleetListLimit; ++i) {
      names.push_back(absl::StrCat(low[i]->server, " <- ", low[i]->client));
    }
    absl::StrAppend(&line, "; low path MTU: ", absl::StrJoin(names, ", "),
                    low.size() > names.size() ? absl::StrCat(" and ", low.size() - names.size(), " more") : "");
  }
  // Ports that went down before a node's run (FleetNode::flapping_links).
  if (const std::vector<std::string> flapping = fleet.FlappingNodes(); !flapping.empty()) {
    const size_t shown = std::min(flapping.size(), kFleetListLimit);
    absl::StrAppend(&line, "; flapping links: ", absl::StrJoin(flapping.begin(), flapping.begin() + shown, ", "),
                    flapping.size() > shown ? absl::StrCat(" and ", flapping.size() - shown, " more") : "");
  }
  // The nodes below the machine profile (--profile: fleet_profile.h).
  if (const std::vector<std::string> below = NodesBelowProfile(fleet); !below.empty()) {
    const size_t shown = std::min(below.size(), kFleetListLimit);
    const std::string& type = fleet.options.profile->machine_type;
    absl::StrAppend(&line, "; below the profile", type.empty() ? "" : " of " + type, ": ",
                    absl::StrJoin(below.begin(), below.begin() + shown, ", "),
                    below.size() > shown ? absl::StrCat(" and ", below.size() - shown, " more") : "");
  }
  const std::vector<std::string> outliers = fleet.Outliers();
  if (!outliers.empty()) {
    const size_t shown = std::min(outliers.size(), kFleetListLimit);
    absl::StrAppend(&line, "; outliers: ", absl::StrJoin(outliers.begin(), outliers.begin() + shown, ", "),
                    outliers.size() > shown ? absl::StrCat(" and ", outliers.size() - shown, " more") : "");
  }
  return line;
}

std::string NodeVerdictText(const FleetNode& node) {
  const std::string verdict = NodeVerdictName(node.verdict);
  return node.outlier && node.verdict != NodeVerdict::kOutlier ? verdict + ", outlier" : verdict;
}

std::string FleetSummaryText(const FleetReport& fleet, const std::vector<std::string>& written) {
  std::string out = absl::StrCat("rdmacheck fleet: ", FleetHeadline(fleet), "\n");
  int shown = 0;
  for (const FleetNode& node : fleet.nodes) {
    if (node.verdict == NodeVerdict::kHealthy || ++shown > 10) continue;
    const std::vector<std::string> findings = NodeFindings(fleet, node);
    absl::StrAppend(&out, "  ", NodeVerdictText(node), " ", node.name,
                    findings.empty() ? "" : ": " + findings.front(),
                    findings.size() > 1 ? absl::StrCat(" (+", findings.size() - 1, " more)") : "", "\n");
  }
  if (shown > 10) absl::StrAppend(&out, "  ... ", shown - 10, " more nodes in the report\n");
  for (const FaultCall& call : WhichSideIsAtFault(fleet.pairs)) absl::StrAppend(&out, "  at fault: ", call.line, "\n");
  for (const FleetPair& p : fleet.pairs) {
    if (!p.Noted()) break;  // sorted: trouble first
    const std::vector<std::string> findings = PairFindings(p);
    std::vector<std::string> said;
    if (p.Failed()) said.push_back(CountsText(p.summary));
    if (!p.Failed() && p.slow) said.push_back(findings.front());
    if (p.LowPathMtu()) said.push_back("path MTU " + PathMtuText(p));
    absl::StrAppend(&out, "  pair ", p.server, " <- ", p.client, " ", p.device, ": ", absl::StrJoin(said, "; "), "\n");
  }
  for (const std::string& path : written) absl::StrAppend(&out, "rdmacheck fleet: wrote ", path, "\n");
  return out;
}

}  // namespace rdmacheck
