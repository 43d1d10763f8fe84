#include "reports/fleet/fleet_model.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "results/bench_result.h"
#include "reports/fleet/fleet_profile.h"
#include "reports/fleet/fleet_tally.h"
#include "reports/fleet/results_skim.h"

namespace rdmacheck {

const char* NodeVerdictName(NodeVerdict verdict) {
  switch (verdict) {
    case NodeVerdict::kFail:
      return "fail";
    case NodeVerdict::kMissing:
      return "missing";
    case NodeVerdict::kIncomplete:
      return "incomplete";
    case NodeVerdict::kOutlier:
      return "outlier";
    case NodeVerdict::kHealthy:
      return "healthy";
  }
  return "unknown";
}

int FleetNode::DifferenceCount() const {
  int n = static_cast<int>(missing_devices.size());
  for (const NodeDevice& d : devices) n += static_cast<int>(d.differences.size());
  return n;
}

int FleetReport::CountNodes(NodeVerdict verdict) const {
  return static_cast<int>(
      std::count_if(nodes.begin(), nodes.end(), [&](const FleetNode& n) { return n.verdict == verdict; }));
}

int FleetReport::FailedPairs() const {
  return static_cast<int>(std::count_if(pairs.begin(), pairs.end(), [](const FleetPair& p) { return p.Failed(); }));
}

int FleetReport::SlowPairs() const {
  // A failed pair counts as failed only, as its verdict says, however slow it was too.
  return static_cast<int>(std::count_if(pairs.begin(), pairs.end(), [](const FleetPair& p) { return p.slow && !p.Failed(); }));
}

std::vector<std::string> FleetReport::FlappingNodes() const {
  std::vector<std::string> names;
  for (const FleetNode& node : nodes) {
    if (!node.flapping_links.empty()) names.push_back(node.name);
  }
  return names;
}

std::vector<const FleetPair*> FleetReport::LowPathMtuPairs() const {
  std::vector<const FleetPair*> low;
  for (const FleetPair& p : pairs) {
    if (p.LowPathMtu()) low.push_back(&p);
  }
  return low;
}

std::vector<std::string> FleetReport::Outliers() const {
  std::vector<std::string> names;
  for (const FleetNode& n : nodes) {
    if (n.outlier) names.push_back(n.name);
  }
  return names;
}

bool FleetReport::Troubled() const {
  const int nodes = CountNodes(NodeVerdict::kFail) + CountNodes(NodeVerdict::kMissing) + CountNodes(NodeVerdict::kIncomplete);
  return nodes + FailedPairs() + SlowPairs() > 0;
}

namespace {

// A node's notes: the lines of <root>/<node>/trouble.txt under every root; for a node
// without results and without a directory under any root, that its step never ran.
void AddNotes(const std::vector<std::string>& roots, FleetNode& node) {
  namespace fs = std::filesystem;
  bool has_dir = false;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(fs::path(root) / node.name, ec)) continue;
    has_dir = true;
    std::ifstream trouble(fs::path(root) / node.name / "trouble.txt");
    for (std::string line; std::getline(trouble, line);) {
      if (!line.empty()) node.notes.push_back(line);
    }
  }
  if (node.devices.empty() && !has_dir) {
    node.notes.push_back(absl::StrCat("no results: no directory ", node.name, " under ", absl::StrJoin(roots, ", "),
                                      " (the node's step never ran)"));
  } else if (node.devices.empty() && node.notes.empty()) {
    node.notes.push_back("no results: its directory holds no run and no trouble.txt");
  }
}

}  // namespace

FleetReport BuildFleet(std::vector<DeviceRun> runs, const std::vector<std::vector<BenchRun>>& bench,
                       const FleetOptions& options) {
  FleetTally tally(options);
  FleetMachines machines(options.profile, /*keep_all_capabilities=*/false);
  for (size_t i = 0; i < runs.size(); ++i) {
    tally.Add(runs[i], i < bench.size() ? bench[i] : std::vector<BenchRun>());
    machines.Add(runs[i]);
    runs[i] = DeviceRun();  // folded in: the tally keeps what it needs
  }
  FleetReport fleet = std::move(tally).Finish();
  machines.Judge(fleet);
  return fleet;
}

absl::StatusOr<FleetReport> LoadFleet(const std::vector<std::string>& roots, const FleetOptions& options,
                                      std::vector<NodeFacts>* machines_out) {
  namespace fs = std::filesystem;
  std::vector<std::string> dirs;
  for (const std::string& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return absl::NotFoundError(absl::StrCat(root, ": not a directory"));
    if (fs::exists(fs::path(root) / "results.json")) dirs.push_back(root);
    for (fs::recursive_directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->is_directory() && it->path().filename() == "logs") {
        it.disable_recursion_pending();  // the runner's logs, never a run
      } else if (it->is_directory() && fs::exists(it->path() / "results.json")) {
        dirs.push_back(it->path().string());
      }
    }
    if (ec) return absl::UnavailableError(absl::StrCat("cannot read ", root, ": ", ec.message()));
  }
  // A root may hold none (pairs/ when no pair could run), but the fleet needs some run, or
  // the nodes that should have reported (each then missing, with its reason).
  if (dirs.empty() && options.expected_nodes.empty()) {
    return absl::NotFoundError(absl::StrCat("no run directory (results.json) under ", absl::StrJoin(roots, ", ")));
  }
  std::sort(dirs.begin(), dirs.end());
  // One run at a time: read, folded in, dropped.
  FleetTally tally(options);
  FleetMachines machines(options.profile, /*keep_all_capabilities=*/machines_out != nullptr);
  for (const std::string& dir : dirs) {
    absl::StatusOr<DeviceRun> run = LoadFleetRun(dir);
    if (!run.ok()) return run.status();
    absl::StatusOr<std::vector<BenchRun>> bench = LoadBenchRuns(dir);
    if (!bench.ok()) return bench.status();
    tally.Add(*run, *std::move(bench));
    machines.Add(*run);
  }
  FleetReport fleet = std::move(tally).Finish();
  machines.Judge(fleet);
  if (machines_out != nullptr) *machines_out = machines.Nodes(fleet);
  for (FleetNode& node : fleet.nodes) AddNotes(roots, node);
  return fleet;
}

}  // namespace rdmacheck
