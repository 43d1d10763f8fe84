// fleet.md: the trouble first, healthy nodes by name only.
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "reports/fleet/fleet_output.h"
#include "reports/fleet/fleet_profile.h"
#include "reports/presentation.h"

namespace rdmacheck {
namespace {

// "|" would end a table cell.
std::string Cell(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '|' ? std::string("\\|") : c == '\n' ? std::string(" ") : std::string(1, c);
  return out;
}

}  // namespace

std::string FleetToMarkdown(const FleetReport& fleet) {
  std::string out = absl::StrCat("# rdmacheck fleet report\n\n", FleetHeadline(fleet), "\n\nGenerated ",
                                 fleet.generated, ". A pair is slow below ", fleet.options.slow_fraction,
                                 " of the fleet's median.\n");
  // The nodes below the machine profile, each with its first violation, before the rest.
  if (const std::vector<std::string> below = BelowProfileLines(fleet); !below.empty()) {
    const std::string& type = fleet.options.profile->machine_type;
    absl::StrAppend(&out, "\nBelow the machine profile", type.empty() ? "" : " of " + type, ":\n\n");
    for (size_t i = 0; i < below.size() && i < kFleetListLimit; ++i) absl::StrAppend(&out, "- ", below[i], "\n");
    if (below.size() > kFleetListLimit) absl::StrAppend(&out, "- ... ", below.size() - kFleetListLimit, " more\n");
  }
  absl::StrAppend(&out, "\n## Nodes needing attention\n\n");
  std::vector<std::string> healthy;
  bool any = false;
  for (const FleetNode& node : fleet.nodes) {
    if (node.verdict == NodeVerdict::kHealthy) {
      healthy.push_back(node.name);
      continue;
    }
    if (!any) absl::StrAppend(&out, "| node | verdict | what |\n|---|---|---|\n");
    any = true;
    const std::vector<std::string> findings = NodeFindings(fleet, node);
    std::vector<std::string> shown(findings.begin(), findings.begin() + std::min(findings.size(), kFleetListLimit));
    if (findings.size() > shown.size()) shown.push_back(absl::StrCat("... ", findings.size() - shown.size(), " more"));
    absl::StrAppend(&out, "| ", Cell(node.name), " | ", NodeVerdictText(node), " | ",
                    Cell(absl::StrJoin(shown, "<br>")), " |\n");
  }
  if (!any) absl::StrAppend(&out, "None.\n");
  absl::StrAppend(&out, "\n## Healthy nodes (", healthy.size(), ")\n\n", healthy.empty() ? "None." : absl::StrJoin(healthy, ", "),
                  "\n");
  if (!fleet.pairs.empty()) {
    absl::StrAppend(&out, "\n## Pairs (server <- client)\n\n| pair | device | verdict | results | slowest point | path MTU |\n"
                    "|---|---|---|---|---|---|\n");
    int ok = 0;
    for (const FleetPair& p : fleet.pairs) {
      if (!p.Noted()) {
        ++ok;
        continue;
      }
      const std::vector<std::string> findings = PairFindings(p);
      absl::StrAppend(&out, "| ", Cell(p.server), " <- ", Cell(p.client), " | ", p.device, " | ",
                      p.Failed() ? "fail" : p.slow ? "slow" : "low path MTU", " | ", CountsText(p.summary), " | ",
                      findings.empty() ? "" : Cell(findings.front()), " | ", Cell(PathMtuText(p)), " |\n");
    }
    absl::StrAppend(&out, "\n", ok, " pairs ok (fleet.json lists each with its numbers).\n");
  }
  return out;
}

}  // namespace rdmacheck
