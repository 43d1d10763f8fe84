#include "reports/fleet/fleet_model.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "results/bench_result.h"
#include "reports/presentation.h"

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
  return static_cast<int>(std::count_if(pairs.begin(), pairs.end(), [](const FleetPair& p) { return p.slow; }));
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

// The versions a fleet should agree on (results.json environment keys).
constexpr const char* kVersionKeys[] = {"driver", "fw_ver", "kernel", "rdma_core"};

std::string HostOf(const DeviceRun& run) {
  const std::string host = JsonText(run.results.environment.value("hostname", nlohmann::json()));
  if (!host.empty()) return host;
  // No hostname recorded: the directory above the device's (nodes/<node>/<device>).
  return std::filesystem::path(run.source).lexically_normal().parent_path().filename().string();
}

// "HOST:PORT" -> "HOST"; "" when the run had no peer.
std::string PeerHostOf(const DeviceRun& run) {
  const std::string peer = JsonText(run.results.environment.value("peer", nlohmann::json()));
  return peer.substr(0, peer.rfind(':'));
}

// Outcome ranks for breaking ties: lower is healthier.
int Rank(const std::string& outcome) {
  static const std::map<std::string, int> ranks = {{"pass", 0},      {"supported", 0}, {"xfail", 1},
                                                   {"skip", 2},      {"unsupported", 2}, {"", 3},
                                                   {"not run", 3},   {"fail", 4},      {"broken", 4},
                                                   {"xpass", 4}};
  auto it = ranks.find(outcome);
  return it == ranks.end() ? 3 : it->second;
}

// The most common value (ties: the healthiest by Rank, then the smallest).
std::string Majority(const std::map<std::string, int>& counts) {
  std::string best;
  int best_count = -1;
  for (const auto& [value, count] : counts) {
    if (count > best_count || (count == best_count && Rank(value) < Rank(best))) {
      best = value;
      best_count = count;
    }
  }
  return best;
}

// Compares each run of one device name with the majority of those runs.
void JudgeGroup(const Report& report, const std::vector<size_t>& group, std::map<size_t, NodeDevice>& judged) {
  auto add = [&](size_t run, Difference d) { judged[run].differences.push_back(std::move(d)); };
  // Tests, and their traffic flags, row by row of the report's matrix.
  for (const MatrixRow& row : report.matrix) {
    std::map<std::string, int> statuses, flags;
    std::vector<std::pair<std::string, std::string>> per_run;  // (status, flag) per member
    per_run.reserve(group.size());
    for (size_t run : group) {
      const TestResult* t = report.Cell(row, run);
      std::string status = t != nullptr ? TestStatusName(t->status) : "not run";
      std::string flag = t != nullptr && t->traffic.is_object() && t->traffic.contains("flag") ? "flagged" : "";
      ++statuses[status];
      ++flags[flag];
      per_run.emplace_back(std::move(status), std::move(flag));
    }
    if (statuses.size() == 1 && flags.size() == 1) continue;
    const std::string status_majority = Majority(statuses), flag_majority = Majority(flags);
    for (size_t i = 0; i < group.size(); ++i) {
      if (per_run[i].first != status_majority) add(group[i], {"test", row.test, per_run[i].first, status_majority});
      if (per_run[i].second != flag_majority)
        add(group[i], {"counters", row.test, per_run[i].second.empty() ? "counters moved" : "no counter moved",
                       flag_majority.empty() ? "counters moved" : "no counter moved"});
    }
  }
  for (const CapabilityRow& row : report.capabilities) {
    std::map<std::string, int> outcomes;
    for (size_t run : group) ++outcomes[row.cells[run] ? row.cells[run]->outcome : ""];
    if (outcomes.size() == 1) continue;
    const std::string majority = Majority(outcomes);
    for (size_t run : group) {
      const std::string outcome = row.cells[run] ? row.cells[run]->outcome : "";
      if (outcome != majority) add(run, {"capability", row.capability, outcome, majority});
    }
  }
  for (const char* key : kVersionKeys) {
    std::map<std::string, int> values;
    auto value_of = [&](size_t run) {
      return JsonText(report.devices[run].run.results.environment.value(key, nlohmann::json()));
    };
    for (size_t run : group) ++values[value_of(run)];
    if (values.size() == 1) continue;
    const std::string majority = Majority(values);
    for (size_t run : group) {
      if (value_of(run) != majority) add(run, {"version", key, value_of(run), majority});
    }
  }
}

// The devices whose capabilities should agree: "mlx5 15b3:101d", the driver alone where the
// profile names no vendor part.
std::string KindOf(const DeviceRun& run) {
  std::string driver = JsonText(run.results.environment.value("driver", nlohmann::json()));
  if (driver.empty()) driver = JsonText(run.identity.value("driver", nlohmann::json()));
  auto id = [&](const char* key) {
    const nlohmann::json value = run.identity.value(key, nlohmann::json());
    return value.is_number_integer() ? value.get<uint32_t>() : 0u;
  };
  return id("vendor_part_id") == 0 ? driver
                                   : absl::StrFormat("%s %04x:%04x", driver, id("vendor_id"), id("vendor_part_id"));
}

// Per run: the capabilities absent there and present on most devices of its kind.
std::map<size_t, std::vector<MissingCapability>> MissingCapabilities(const Report& report,
                                                                    const std::vector<size_t>& node_runs) {
  std::map<std::string, std::vector<size_t>> by_kind;
  for (size_t run : node_runs) by_kind[KindOf(report.devices[run].run)].push_back(run);
  auto outcome = [&](const CapabilityRow& row, size_t run) { return row.cells[run] ? row.cells[run]->outcome : ""; };
  std::map<size_t, std::vector<MissingCapability>> missing;
  for (const auto& [kind, group] : by_kind) {
    const int of_kind = static_cast<int>(group.size());
    for (const CapabilityRow& row : report.capabilities) {
      const int present = static_cast<int>(
          std::count_if(group.begin(), group.end(), [&](size_t run) { return outcome(row, run) == "supported"; }));
      if (2 * present <= of_kind) continue;
      for (size_t run : group) {
        if (outcome(row, run) != "unsupported") continue;
        missing[run].push_back({run, report.devices[run].run.results.device, row.capability, kind, present, of_kind});
      }
    }
  }
  return missing;
}

NodeVerdict Judge(const Report& report, const FleetNode& node) {
  if (!node.failures.empty()) return NodeVerdict::kFail;
  if (node.devices.empty() || !node.missing_devices.empty() || !node.missing_capabilities.empty()) {
    return NodeVerdict::kMissing;
  }
  for (const NodeDevice& d : node.devices) {
    if (!report.devices[d.run].run.results.complete) return NodeVerdict::kIncomplete;
  }
  return node.DifferenceCount() > 0 ? NodeVerdict::kOutlier : NodeVerdict::kHealthy;
}

void JudgeNodes(FleetReport& fleet, const std::vector<size_t>& node_runs) {
  const Report& report = fleet.runs;
  std::map<std::string, std::vector<size_t>> by_device;  // device name -> runs
  std::map<std::string, std::set<std::string>> hosts_of;  // device name -> nodes that have it
  std::map<std::string, FleetNode> nodes;
  for (const std::string& name : fleet.options.expected_nodes) nodes[name].name = name;
  for (size_t run : node_runs) {
    const std::string device = report.devices[run].run.results.device;
    by_device[device].push_back(run);
    const std::string host = HostOf(report.devices[run].run);
    hosts_of[device].insert(host);
    nodes[host].name = host;
  }
  std::map<size_t, NodeDevice> judged;
  for (const auto& [device, group] : by_device) JudgeGroup(report, group, judged);
  std::map<size_t, std::vector<MissingCapability>> missing_capabilities = MissingCapabilities(report, node_runs);
  for (size_t run : node_runs) {
    const DeviceRun& r = report.devices[run].run;
    FleetNode& node = nodes[HostOf(r)];
    NodeDevice d = std::move(judged[run]);
    d.run = run;
    d.device = r.results.device;
    d.summary = report.devices[run].summary;
    node.devices.push_back(std::move(d));
    for (MissingCapability& m : missing_capabilities[run]) node.missing_capabilities.push_back(std::move(m));
    for (size_t t = 0; t < r.results.tests.size(); ++t) {
      if (IsFailure(r.results.tests[t].status)) node.failures.emplace_back(run, t);
    }
  }
  for (auto& [name, node] : nodes) {
    for (const auto& [device, hosts] : hosts_of) {
      // A device most nodes have, missing here.
      if (!hosts.count(name) && 2 * hosts.size() >= nodes.size()) node.missing_devices.push_back(device);
    }
    node.verdict = Judge(report, node);
    // Failing tests the rest pass are differences too; no results where others have some.
    node.outlier = node.DifferenceCount() > 0 || !node.missing_capabilities.empty() ||
                   (node.devices.empty() && !node_runs.empty());
    fleet.nodes.push_back(std::move(node));
  }
  std::stable_sort(fleet.nodes.begin(), fleet.nodes.end(), [](const FleetNode& a, const FleetNode& b) {
    if (a.verdict != b.verdict) return a.verdict < b.verdict;
    if (a.failures.size() != b.failures.size()) return a.failures.size() > b.failures.size();
    return a.DifferenceCount() > b.DifferenceCount();
  });
}

void JudgePairs(FleetReport& fleet, const std::vector<size_t>& pair_runs,
                const std::vector<std::vector<BenchRun>>& bench) {
  auto key = [](const BenchPoint& p) { return absl::StrCat(p.op, " ", p.metric, " ", p.size); };
  std::map<std::string, std::vector<double>> headlines;  // point -> every pair's headline
  for (size_t run : pair_runs) {
    for (const BenchRun& b : bench[run]) {
      for (const BenchPoint& p : b.points) {
        if (p.ok() && p.Headline() > 0) headlines[key(p)].push_back(p.Headline());
      }
    }
  }
  std::map<std::string, double> medians;
  for (auto& [k, values] : headlines) {
    auto mid = values.begin() + values.size() / 2;
    std::nth_element(values.begin(), mid, values.end());
    medians[k] = *mid;
  }
  for (size_t run : pair_runs) {
    const DeviceRun& r = fleet.runs.devices[run].run;
    FleetPair pair{PeerHostOf(r), HostOf(r), r.results.device, run, fleet.runs.devices[run].summary, {}, false};
    for (const BenchRun& b : bench[run]) {
      for (const BenchPoint& p : b.points) {
        if (!p.ok() || p.Headline() <= 0) continue;
        PairPoint point{p, medians[key(p)], 1, false};
        point.speed = p.metric == "latency" ? point.fleet_median / p.Headline() : p.Headline() / point.fleet_median;
        point.slow = point.speed < fleet.options.slow_fraction;
        pair.slow = pair.slow || point.slow;
        pair.bench.push_back(point);
      }
    }
    fleet.pairs.push_back(std::move(pair));
  }
  auto slowest = [](const FleetPair& p) {
    double s = 1e300;
    for (const PairPoint& point : p.bench) s = std::min(s, point.speed);
    return s;
  };
  std::stable_sort(fleet.pairs.begin(), fleet.pairs.end(), [&](const FleetPair& a, const FleetPair& b) {
    if (a.Failed() != b.Failed()) return a.Failed();
    if (a.slow != b.slow) return a.slow;
    return slowest(a) < slowest(b);
  });
}

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
  FleetReport fleet;
  fleet.options = options;
  std::vector<size_t> node_runs, pair_runs;
  for (size_t i = 0; i < runs.size(); ++i) (PeerHostOf(runs[i]).empty() ? node_runs : pair_runs).push_back(i);
  fleet.runs = BuildReport(std::move(runs));
  JudgeNodes(fleet, node_runs);
  JudgePairs(fleet, pair_runs, bench);
  return fleet;
}

absl::StatusOr<FleetReport> LoadFleet(const std::vector<std::string>& roots, const FleetOptions& options) {
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
  std::vector<DeviceRun> runs;
  std::vector<std::vector<BenchRun>> bench;
  for (const std::string& dir : dirs) {
    absl::StatusOr<DeviceRun> run = LoadRunDir(dir);
    if (!run.ok()) return run.status();
    absl::StatusOr<std::vector<BenchRun>> b = LoadBenchRuns(dir);
    if (!b.ok()) return b.status();
    runs.push_back(*std::move(run));
    bench.push_back(*std::move(b));
  }
  FleetReport fleet = BuildFleet(std::move(runs), bench, options);
  for (FleetNode& node : fleet.nodes) AddNotes(roots, node);
  return fleet;
}

}  // namespace rdmacheck
