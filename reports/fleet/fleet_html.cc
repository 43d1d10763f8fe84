// fleet.html: one self-contained page (the report's stylesheet, no script). Nodes worst
// first, each troubled node a <details> opened by default; healthy nodes folded into one;
// pairs failed, slow or below their path MTU in a table, the rest folded.
#include "absl/strings/str_cat.h"
#include "reports/fleet/fleet_output.h"
#include "reports/fleet/fleet_profile.h"
#include "reports/presentation.h"
#include "reports/report_html.h"

namespace rdmacheck {
namespace {

constexpr char kFleetCss[] = R"css(
details.node { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; padding: 4px 10px; }
details.node summary { cursor: pointer; }
details.node ul { margin: 6px 0; padding-left: 20px; font-family: ui-monospace, monospace; font-size: 12.5px; }
.v-fail, .v-missing { color: var(--fail); font-weight: 600; }
.v-incomplete, .v-outlier { color: var(--xfail); font-weight: 600; }
.v-healthy { color: var(--pass); }
.names { columns: 4 12em; font-family: ui-monospace, monospace; font-size: 12.5px; }
)css";

std::string Verdict(const char* name) { return absl::StrCat("<span class=\"v-", name, "\">", name, "</span>"); }

std::string List(const std::vector<std::string>& lines) {
  std::string out = "<ul>";
  for (size_t i = 0; i < lines.size() && i < kFleetListLimit; ++i) absl::StrAppend(&out, "<li>", HtmlEscape(lines[i]), "</li>");
  if (lines.size() > kFleetListLimit) absl::StrAppend(&out, "<li>... ", lines.size() - kFleetListLimit, " more (fleet.json)</li>");
  return out + "</ul>";
}

void AppendPairRow(const FleetPair& p, std::string& out) {
  const std::vector<std::string> findings = PairFindings(p);
  absl::StrAppend(&out, "<tr><td>", HtmlEscape(p.server), " &larr; ", HtmlEscape(p.client), "</td><td>",
                  HtmlEscape(p.device), "</td><td>", Verdict(p.Failed() ? "fail" : p.Noted() ? "outlier" : "healthy"),
                  "</td><td>", HtmlEscape(CountsText(p.summary)), "</td><td>",
                  findings.empty() ? "" : HtmlEscape(findings.front()), "</td><td>", HtmlEscape(PathMtuText(p)),
                  "</td></tr>\n");
}

}  // namespace

std::string FleetToHtml(const FleetReport& fleet) {
  std::string out = absl::StrCat("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n",
                                 "<title>rdmacheck fleet report</title>\n<style>", ReportCss(), kFleetCss,
                                 "</style></head><body>\n<header><h1>rdmacheck fleet report</h1><p class=\"meta\">",
                                 HtmlEscape(FleetHeadline(fleet)), "<br>generated ", HtmlEscape(fleet.generated),
                                 "; a pair is slow below ", fleet.options.slow_fraction,
                                 " of the fleet's median</p></header>\n<main>\n<h2 id=\"nodes\">Nodes</h2>\n");
  // The nodes below the machine profile, each with its first violation, before the rest.
  if (const std::vector<std::string> below = BelowProfileLines(fleet); !below.empty()) {
    const std::string& type = fleet.options.profile->machine_type;
    absl::StrAppend(&out, "<p><b>Below the machine profile", type.empty() ? "" : " of " + HtmlEscape(type), ":</b></p>",
                    List(below), "\n");
  }
  std::vector<const FleetNode*> healthy;
  for (const FleetNode& node : fleet.nodes) {
    if (node.verdict == NodeVerdict::kHealthy) {
      healthy.push_back(&node);
      continue;
    }
    const std::vector<std::string> findings = NodeFindings(fleet, node);
    absl::StrAppend(&out, "<details class=\"node\" open id=\"node-", HtmlEscape(node.name), "\"><summary><b>",
                    HtmlEscape(node.name), "</b> ", Verdict(NodeVerdictName(node.verdict)),
                    node.outlier && node.verdict != NodeVerdict::kOutlier ? " " + Verdict("outlier") : "", " &middot; ",
                    node.failures.size(), " failed, ", node.DifferenceCount(), " differences from the fleet</summary>",
                    List(findings), "</details>\n");
  }
  absl::StrAppend(&out, "<details class=\"node\"><summary>", Verdict("healthy"), " ", healthy.size(),
                  " nodes (identical to the fleet's majority, every test passed)</summary><div class=\"names\">");
  for (const FleetNode* node : healthy) absl::StrAppend(&out, HtmlEscape(node->name), "<br>");
  absl::StrAppend(&out, "</div></details>\n");
  if (!fleet.pairs.empty()) {
    const std::string head =
        "<table class=\"grid\"><thead><tr><th>server &larr; client</th><th>device</th><th>verdict</th>"
        "<th>results</th><th>slowest point against the fleet</th><th>path MTU</th></tr></thead><tbody>\n";
    absl::StrAppend(&out, "<h2 id=\"pairs\">Pairs</h2>\n", head);
    size_t i = 0;
    for (; i < fleet.pairs.size() && fleet.pairs[i].Noted(); ++i) AppendPairRow(fleet.pairs[i], out);
    absl::StrAppend(&out, "</tbody></table>\n<details class=\"node\"><summary>", fleet.pairs.size() - i,
                    " pairs ok</summary>", head);
    for (; i < fleet.pairs.size(); ++i) AppendPairRow(fleet.pairs[i], out);
    absl::StrAppend(&out, "</tbody></table></details>\n");
  }
  return out + "</main></body></html>\n";
}

}  // namespace rdmacheck
