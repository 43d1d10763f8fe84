// fleet.json and the shared one-line texts of fleet_output.h.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/fleet/fault_side.h"
#include "reports/fleet/fleet_output.h"
#include "reports/fleet/fleet_profile.h"

namespace rdmacheck {

std::string FailureLine(const NodeFailure& failure) {
  if (failure.status == TestStatus::kXpass) return "passed, but listed as failing";
  return failure.line;
}

std::string DifferenceText(const Difference& d) {
  auto or_none = [](const std::string& s) { return s.empty() ? std::string("none") : s; };
  if (d.kind == "device") return absl::StrCat("no ", d.subject, " (most nodes have it)");
  return absl::StrCat(d.kind, " ", d.subject, ": ", or_none(d.value), " (fleet: ", or_none(d.majority), ")");
}

std::string MissingCapabilityText(const MissingCapability& m) {
  return absl::StrCat(m.device, ": lacks ", m.capability, ": unsupported here, supported on ", m.present,
                      " of the fleet's ", m.of_kind, " ", m.kind, " devices");
}

std::vector<std::string> NodeFindings(const FleetReport& fleet, const FleetNode& node) {
  // Below the machine profile first: what its type was bought to show.
  std::vector<std::string> lines = node.profile_violations;
  for (const std::string& link : node.flapping_links) lines.push_back("flapping link: " + link);
  lines.insert(lines.end(), node.notes.begin(), node.notes.end());
  // A run cut short first: what it did not run shows below as differences.
  for (const NodeDevice& d : node.devices) {
    if (!fleet.runs[d.run].incomplete.empty()) lines.push_back(fleet.runs[d.run].incomplete);
  }
  // Drift next (a version or setting unlike the fleet's): often why the tests below fail.
  auto drift = [](const Difference& diff) { return diff.kind == "version" || diff.kind == "setting"; };
  for (const NodeDevice& d : node.devices) {
    for (const Difference& diff : d.differences) {
      if (drift(diff)) lines.push_back(absl::StrCat(d.device, ": ", DifferenceText(diff)));
    }
  }
  for (const NodeFailure& f : node.failures) {
    lines.push_back(absl::StrCat(f.device, ": ", TestStatusName(f.status), " ", f.test, ": ", FailureLine(f)));
  }
  for (const std::string& device : node.missing_devices) lines.push_back(absl::StrCat("no ", device, " (most nodes have it)"));
  for (const MissingCapability& m : node.missing_capabilities) lines.push_back(MissingCapabilityText(m));
  auto listed_above = [&](const NodeDevice& d, const Difference& diff) {
    // Drift; a failing test the fleet passes, with its message; a capability its kind has.
    if (drift(diff)) return true;
    if (diff.kind == "test") return diff.value == "fail" || diff.value == "xpass";
    return diff.kind == "capability" &&
           std::any_of(node.missing_capabilities.begin(), node.missing_capabilities.end(),
                       [&](const MissingCapability& m) { return m.run == d.run && m.capability == diff.subject; });
  };
  for (const NodeDevice& d : node.devices) {
    for (const Difference& diff : d.differences) {
      if (!listed_above(d, diff)) lines.push_back(absl::StrCat(d.device, ": ", DifferenceText(diff)));
    }
  }
  return lines;
}

std::vector<std::string> PairFindings(const FleetPair& pair) {
  std::vector<const PairPoint*> points;
  for (const PairPoint& p : pair.bench) points.push_back(&p);
  std::stable_sort(points.begin(), points.end(), [](const PairPoint* a, const PairPoint* b) { return a->speed < b->speed; });
  std::vector<std::string> lines;
  for (const PairPoint* p : points) {
    const bool latency = p->point.metric == "latency";
    lines.push_back(absl::StrFormat("%s %s %u B: %.1f %s, %.2f of the fleet median (%.1f)%s", p->point.op,
                                    p->point.metric, p->point.size, p->point.Headline(), latency ? "us" : "MiB/s",
                                    p->speed, p->fleet_median, p->slow ? " SLOW" : ""));
  }
  return lines;
}

std::string PathMtuText(const FleetPair& pair) {
  if (pair.path_mtu == 0) return "";
  if (!pair.LowPathMtu()) return absl::StrCat(pair.path_mtu);
  return absl::StrCat(pair.path_mtu, ", below both ports' active MTU (", pair.client, " ", pair.active_mtu, ", ",
                      pair.server, " ", pair.peer_active_mtu, ")");
}

nlohmann::json FleetToJson(const FleetReport& fleet) {
  const std::vector<FleetRun>& runs = fleet.runs;
  nlohmann::json nodes = nlohmann::json::array();
  for (const FleetNode& node : fleet.nodes) {
    nlohmann::json devices = nlohmann::json::array();
    for (const NodeDevice& d : node.devices) {
      nlohmann::json differences = nlohmann::json::array();
      for (const Difference& diff : d.differences) {
        differences.push_back(
            {{"kind", diff.kind}, {"subject", diff.subject}, {"value", diff.value}, {"majority", diff.majority}});
      }
      devices.push_back({{"device", d.device},
                         {"source", runs[d.run].source},
                         {"complete", runs[d.run].complete},
                         {"incomplete", runs[d.run].incomplete},
                         {"summary", SummaryToJson(d.summary)},
                         {"differences", std::move(differences)}});
    }
    nlohmann::json failures = nlohmann::json::array();
    for (const NodeFailure& f : node.failures) {
      failures.push_back(
          {{"device", f.device}, {"test", f.test}, {"status", TestStatusName(f.status)}, {"message", FailureLine(f)}});
    }
    nlohmann::json missing_capabilities = nlohmann::json::array();
    for (const MissingCapability& m : node.missing_capabilities) {
      missing_capabilities.push_back({{"device", m.device}, {"capability", m.capability}, {"kind", m.kind},
                                      {"present", m.present}, {"of_kind", m.of_kind}});
    }
    nodes.push_back({{"name", node.name},
                     {"verdict", NodeVerdictName(node.verdict)},
                     {"outlier", node.outlier},
                     {"notes", node.notes},
                     {"devices", std::move(devices)},
                     {"missing_devices", node.missing_devices},
                     {"missing_capabilities", std::move(missing_capabilities)},
                     {"failures", std::move(failures)},
                     {"profile_violations", node.profile_violations},
                     {"flapping_links", node.flapping_links}});
  }
  nlohmann::json pairs = nlohmann::json::array();
  auto bytes = [](int mtu) { return mtu > 0 ? nlohmann::json(mtu) : nlohmann::json(); };  // null: not recorded
  for (const FleetPair& p : fleet.pairs) {
    nlohmann::json bench = nlohmann::json::array();
    for (const PairPoint& point : p.bench) {
      bench.push_back({{"op", point.point.op},
                       {"metric", point.point.metric},
                       {"size", point.point.size},
                       {"value", point.point.Headline()},
                       {"unit", point.point.metric == "latency" ? "us" : "MiB/s"},
                       {"fleet_median", point.fleet_median},
                       {"speed", point.speed},
                       {"slow", point.slow}});
    }
    pairs.push_back({{"server", p.server},
                     {"client", p.client},
                     {"device", p.device},
                     {"source", runs[p.run].source},
                     {"verdict", p.Failed() ? "fail" : p.slow ? "slow" : "ok"},
                     {"summary", SummaryToJson(p.summary)},
                     {"bench", std::move(bench)},
                     {"path_mtu", bytes(p.path_mtu)},
                     {"active_mtu", bytes(p.active_mtu)},
                     {"peer_active_mtu", bytes(p.peer_active_mtu)},
                     {"low_path_mtu", p.LowPathMtu()}});
  }
  nlohmann::json at_fault = nlohmann::json::array();
  for (const FaultCall& call : WhichSideIsAtFault(fleet.pairs)) {
    const char* side = call.side == FaultCall::Side::kNode   ? "node"
                       : call.side == FaultCall::Side::kPath ? "path"
                                                             : "undecided";
    nlohmann::json c = {{"side", side}, {"nodes", call.nodes}, {"line", call.line}};
    if (call.side == FaultCall::Side::kNode) {
      c["failed_partners"] = call.failed_partners;
      c["partners"] = call.partners;
    }
    at_fault.push_back(std::move(c));
  }
  return {{"schema", kFleetSchema},
          {"generated", fleet.generated},
          {"slow_fraction", fleet.options.slow_fraction},
          {"summary",
           {{"nodes", fleet.nodes.size()},
            {"fail", fleet.CountNodes(NodeVerdict::kFail)},
            {"missing", fleet.CountNodes(NodeVerdict::kMissing)},
            {"incomplete", fleet.CountNodes(NodeVerdict::kIncomplete)},
            {"outlier", fleet.CountNodes(NodeVerdict::kOutlier)},
            {"healthy", fleet.CountNodes(NodeVerdict::kHealthy)},
            {"pairs", fleet.pairs.size()},
            {"failed_pairs", fleet.FailedPairs()},
            {"slow_pairs", fleet.SlowPairs()},
            {"low_path_mtu_pairs", fleet.LowPathMtuPairs().size()},
            {"outliers", fleet.Outliers()},
            {"below_profile", NodesBelowProfile(fleet)},
            {"flapping_links", fleet.FlappingNodes()}}},
          // The machine profile the nodes were checked against (--profile), or null.
          {"profile", fleet.options.profile ? MachineProfileToJson(*fleet.options.profile) : nlohmann::json()},
          {"nodes", std::move(nodes)},
          {"pairs", std::move(pairs)},
          {"at_fault", std::move(at_fault)}};
}

}  // namespace rdmacheck
