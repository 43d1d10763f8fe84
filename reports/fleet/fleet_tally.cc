#include "reports/fleet/fleet_tally.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "machine/node_facts.h"
#include "reports/presentation.h"
#include "results/failure_line.h"

namespace rdmacheck {
namespace {

// What a fleet's devices of one name should agree on (results.json environment keys): the
// versions, then the settings each run recorded as it chose them (the port's active MTU,
// the GID index and type the connections used, the link layer), then the link as the
// kernel states it (runner/conformance_run.h RunEnvironment). A setting unlike the
// majority's is drift: a node with MTU 1024 where the rest run 4096, a GID on another
// index or of another type (RoCEv1 where the rest use RoCEv2), a port trained at 50 Gb/s
// or a NIC in a x8 slot where the rest have 100 Gb/s and x16. A key a run did not record
// is "" (rxe and siw have no PCIe link): where no run has it, the values agree.
constexpr const char* kVersionKeys[] = {"driver",     "fw_ver",    "kernel",   "rdma_core",  "active_mtu", "gid_index",
                                        "gid_type",   "link_layer", "port_rate", "netdev_mtu", "pcie_link"};
constexpr size_t kVersions = 4;  // the first four: "version", the rest "setting"
// kVersionKeys[kLinkFacts] on, the link facts, are held against the devices of the same
// kind (KindOf) too: another NIC model has another rate and slot by design, not by drift.
constexpr size_t kLinkFacts = 8;

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

// The devices whose capabilities should agree: "mlx5 15b3:101d", the driver alone where the
// profile names no vendor part.
// The device counters that say a pair's traffic hit trouble (rxe_hw_counters.c; an HCA's
// error counters by the same names), for the fault-side evidence.
constexpr const char* kErrorCounters[] = {"retry_exceeded_err", "retry_rnr_exceeded_err", "completer_retry_err",
                                          "rcvd_seq_err",       "out_of_seq_request",     "duplicate_request",
                                          "rcvd_rnr_err",       "send_err",               "link_downed"};

std::string KindOf(const DeviceRun& run) { return DeviceKind(run.results.environment, run.identity); }

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

NodeVerdict Judge(const std::vector<FleetRun>& runs, const FleetNode& node) {
  if (!node.failures.empty()) return NodeVerdict::kFail;
  if (node.devices.empty() || !node.missing_devices.empty() || !node.missing_capabilities.empty()) {
    return NodeVerdict::kMissing;
  }
  for (const NodeDevice& d : node.devices) {
    if (!runs[d.run].complete) return NodeVerdict::kIncomplete;
  }
  return node.DifferenceCount() > 0 || !node.flapping_links.empty() ? NodeVerdict::kOutlier : NodeVerdict::kHealthy;
}

// "rxe0 port 1: went down 3 times in the 3600 s before its run" from a run's environment
// "link_flaps" (cli/run_command.cc); "" when it recorded none, or no down.
std::string FlappingLink(const DeviceRun& run) {
  const nlohmann::json flaps = run.results.environment.value("link_flaps", nlohmann::json());
  if (!flaps.is_object() || !flaps.value("downs", nlohmann::json()).is_number_integer()) return "";
  const int64_t downs = flaps["downs"].get<int64_t>();
  if (downs <= 0) return "";
  return absl::StrCat(run.results.device, " port ", flaps.value("port", 0), ": went down ", downs,
                      downs == 1 ? " time" : " times", " in the ", flaps.value("window_s", 0), " s before its run");
}

void AppendId(std::string& bytes, uint32_t id) { bytes.append(reinterpret_cast<const char*>(&id), sizeof(id)); }

}  // namespace

uint32_t FleetTally::Intern(const std::string& s) {
  auto [it, added] = string_ids_.emplace(s, static_cast<uint32_t>(strings_.size()));
  if (added) strings_.push_back(s);
  return it->second;
}

uint32_t FleetTally::InternPattern(Pattern pattern) {
  std::string bytes;
  bytes.reserve(pattern.tests.size() * 5 + pattern.capabilities.size() * 8 + 20);
  for (const auto& [id, code] : pattern.tests) {
    AppendId(bytes, id);
    bytes += static_cast<char>(code);
  }
  bytes += '|';  // tests and capabilities apart: a run may have none of either
  for (const auto& [id, outcome] : pattern.capabilities) {
    AppendId(bytes, id);
    AppendId(bytes, outcome);
  }
  for (uint32_t v : pattern.versions) AppendId(bytes, v);
  AppendId(bytes, pattern.kind);
  auto [it, added] = pattern_ids_.emplace(std::move(bytes), static_cast<uint32_t>(patterns_.size()));
  if (added) patterns_.push_back(std::move(pattern));
  return it->second;
}

void FleetTally::Add(const DeviceRun& run, std::vector<BenchRun> bench) {
  const size_t index = runs_.size();
  FleetRun digest{run.source,
                  run.results.device,
                  HostOf(run),
                  PeerHostOf(run),
                  run.results.complete,
                  IncompleteRunLine(run.results.device, run.results),
                  Summarize(run.results.tests)};
  // Every run's tests and capabilities take their place in the catalogue, a pair's too, so
  // the order is the report matrix's (report_model.cc MakeMatrix) over the same runs.
  Pattern pattern;
  pattern.tests.reserve(run.results.tests.size());
  std::string key;
  for (const TestResult& t : run.results.tests) {
    key.assign(t.suite).append(1, '\0').append(t.name);
    auto [it, added] = test_ids_.emplace(key, static_cast<uint32_t>(test_suite_.size()));
    if (added) {
      test_suite_.push_back(suite_ids_.emplace(t.suite, static_cast<uint32_t>(suite_ids_.size())).first->second);
      test_names_.push_back(t.name);
    }
    const bool flagged = t.traffic.is_object() && t.traffic.contains("flag");
    pattern.tests.emplace_back(it->second, static_cast<uint8_t>(static_cast<uint8_t>(t.status) | (flagged ? kFlagged : 0)));
  }
  for (const auto& [name, observed] : run.observed) {
    const uint32_t id = capability_ids_.emplace(name, static_cast<uint32_t>(capability_ids_.size())).first->second;
    pattern.capabilities.emplace_back(id, Intern(observed.outcome));
  }
  if (!digest.peer.empty()) {  // a pair's run: judged against the other pairs, by its benchmark
    auto bytes = [&](const char* key) {
      const nlohmann::json value = run.results.environment.value(key, nlohmann::json());
      return value.is_number_integer() ? value.get<int>() : 0;
    };
    PairRun pair{index, std::move(bench), bytes("path_mtu"), bytes("active_mtu"), bytes("peer_active_mtu"), "", {}};
    for (const TestResult& t : run.results.tests) {
      if (!IsFailure(t.status)) continue;
      pair.first_failure = absl::StrCat(t.name, ": ", t.status == TestStatus::kXpass ? "xpass" : FailureLine(t.message));
      break;
    }
    const nlohmann::json totals = run.results.environment.value("traffic_run_totals", nlohmann::json::object());
    for (const char* name : kErrorCounters) {
      const nlohmann::json v = totals.is_object() ? totals.value(name, nlohmann::json()) : nlohmann::json();
      if (v.is_number_integer() && v.get<int64_t>() > 0) pair.error_counters[name] = v.get<int64_t>();
    }
    pair_runs_.push_back(std::move(pair));
    runs_.push_back(std::move(digest));
    return;
  }
  // A test twice in one run: the last one counts, as in the report's matrix.
  std::stable_sort(pattern.tests.begin(), pattern.tests.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::pair<uint32_t, uint8_t>> unique;
  unique.reserve(pattern.tests.size());
  for (const auto& t : pattern.tests) {
    if (!unique.empty() && unique.back().first == t.first) {
      unique.back() = t;
    } else {
      unique.push_back(t);
    }
  }
  pattern.tests = std::move(unique);
  std::sort(pattern.capabilities.begin(), pattern.capabilities.end());
  static_assert(std::size(kVersionKeys) == std::tuple_size<decltype(pattern.versions)>::value);
  for (size_t i = 0; i < std::size(kVersionKeys); ++i) {
    pattern.versions[i] = Intern(JsonText(run.results.environment.value(kVersionKeys[i], nlohmann::json())));
  }
  pattern.kind = Intern(KindOf(run));
  for (const TestResult& t : run.results.tests) {
    if (IsFailure(t.status)) failures_[index].push_back({index, digest.device, t.name, t.status, FailureLine(t.message)});
  }
  if (std::string flapping = FlappingLink(run); !flapping.empty()) flapping_[index] = std::move(flapping);
  node_runs_.emplace_back(index, InternPattern(std::move(pattern)));
  runs_.push_back(std::move(digest));
}

std::vector<uint32_t> FleetTally::MatrixOrder() const {
  // Rows in suite order (first seen first), tests in first-seen order within a suite.
  std::vector<uint32_t> order(test_suite_.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return test_suite_[a] < test_suite_[b]; });
  return order;
}

std::vector<uint32_t> FleetTally::CapabilityOrder() const {
  std::vector<uint32_t> order;
  for (const auto& [name, id] : capability_ids_) order.push_back(id);  // a std::map: by name
  return order;
}

// Compares each run of one device name (`group`: indices into node_runs_) with the majority
// of those runs, item by item; counts once per pattern, weighted by its runs.
void FleetTally::JudgeGroup(const std::vector<size_t>& group, const std::vector<uint32_t>& tests,
                            const std::vector<uint32_t>& capabilities,
                            std::vector<std::vector<Difference>>& differences) const {
  std::map<uint32_t, int> weight;  // pattern -> runs of the group with it
  for (size_t k : group) ++weight[node_runs_[k].second];
  auto pattern_of = [&](size_t k) -> const Pattern& { return patterns_[node_runs_[k].second]; };
  auto status_of = [](uint8_t code) -> std::string {
    code &= static_cast<uint8_t>(~kFlagged);
    return code == kNotRun ? "not run" : TestStatusName(static_cast<TestStatus>(code));
  };
  auto flag_of = [](uint8_t code) -> std::string { return code & kFlagged ? "flagged" : ""; };
  auto moved = [](const std::string& flag) { return flag.empty() ? "counters moved" : "no counter moved"; };
  for (uint32_t test : tests) {
    std::map<std::string, int> statuses, flags;
    for (const auto& [p, n] : weight) {
      statuses[status_of(patterns_[p].dense_tests[test])] += n;
      flags[flag_of(patterns_[p].dense_tests[test])] += n;
    }
    if (statuses.size() == 1 && flags.size() == 1) continue;
    const std::string status_majority = Majority(statuses), flag_majority = Majority(flags);
    const std::string& name = test_names_[test];
    for (size_t k : group) {
      const uint8_t code = pattern_of(k).dense_tests[test];
      if (status_of(code) != status_majority) differences[k].push_back({"test", name, status_of(code), status_majority});
      if (flag_of(code) != flag_majority) {
        differences[k].push_back({"counters", name, moved(flag_of(code)), moved(flag_majority)});
      }
    }
  }
  for (uint32_t capability : capabilities) {
    std::map<std::string, int> outcomes;
    for (const auto& [p, n] : weight) outcomes[strings_[patterns_[p].dense_capabilities[capability]]] += n;
    if (outcomes.size() == 1) continue;
    const std::string majority = Majority(outcomes);
    for (size_t k : group) {
      const std::string& outcome = strings_[pattern_of(k).dense_capabilities[capability]];
      if (outcome != majority) differences[k].push_back({"capability", capability_names_[capability], outcome, majority});
    }
  }
  for (size_t i = 0; i < std::size(kVersionKeys); ++i) {
    // By kind for the link facts; one majority for the whole group for the rest.
    auto kind_of = [&](uint32_t p) { return i < kLinkFacts ? 0u : patterns_[p].kind; };
    std::map<uint32_t, std::map<std::string, int>> values;  // kind -> value -> runs
    for (const auto& [p, n] : weight) values[kind_of(p)][strings_[patterns_[p].versions[i]]] += n;
    std::map<uint32_t, std::string> majority;
    for (const auto& [kind, counts] : values) {
      if (counts.size() > 1) majority[kind] = Majority(counts);
    }
    if (majority.empty()) continue;
    for (size_t k : group) {
      auto m = majority.find(kind_of(node_runs_[k].second));
      const std::string& value = strings_[pattern_of(k).versions[i]];
      if (m != majority.end() && value != m->second) {
        differences[k].push_back({i < kVersions ? "version" : "setting", kVersionKeys[i], value, m->second});
      }
    }
  }
}

// Per node run (index into node_runs_): the capabilities absent there and present on most
// devices of its kind.
std::vector<std::vector<MissingCapability>> FleetTally::MissingCapabilities(
    const std::vector<uint32_t>& capabilities) const {
  std::map<std::string, std::vector<size_t>> by_kind;
  for (size_t k = 0; k < node_runs_.size(); ++k) by_kind[strings_[patterns_[node_runs_[k].second].kind]].push_back(k);
  auto outcome = [&](uint32_t capability, size_t k) -> const std::string& {
    return strings_[patterns_[node_runs_[k].second].dense_capabilities[capability]];
  };
  std::vector<std::vector<MissingCapability>> missing(node_runs_.size());
  for (const auto& [kind, group] : by_kind) {
    const int of_kind = static_cast<int>(group.size());
    for (uint32_t capability : capabilities) {
      const int present = static_cast<int>(std::count_if(
          group.begin(), group.end(), [&](size_t k) { return outcome(capability, k) == "supported"; }));
      if (2 * present <= of_kind) continue;
      for (size_t k : group) {
        if (outcome(capability, k) != "unsupported") continue;
        const size_t run = node_runs_[k].first;
        missing[k].push_back({run, runs_[run].device, capability_names_[capability], kind, present, of_kind});
      }
    }
  }
  return missing;
}

void FleetTally::JudgeNodes(FleetReport& fleet) {
  std::map<std::string, std::vector<size_t>> by_device;   // device name -> indices into node_runs_
  std::map<std::string, std::set<std::string>> hosts_of;  // device name -> nodes that have it
  std::map<std::string, FleetNode> nodes;
  for (const std::string& name : options_.expected_nodes) nodes[name].name = name;
  for (size_t k = 0; k < node_runs_.size(); ++k) {
    const FleetRun& run = runs_[node_runs_[k].first];
    by_device[run.device].push_back(k);
    hosts_of[run.device].insert(run.host);
    nodes[run.host].name = run.host;
  }
  const std::vector<uint32_t> tests = MatrixOrder(), capabilities = CapabilityOrder();
  std::vector<std::vector<Difference>> differences(node_runs_.size());
  for (const auto& [device, group] : by_device) JudgeGroup(group, tests, capabilities, differences);
  std::vector<std::vector<MissingCapability>> missing_capabilities = MissingCapabilities(capabilities);
  for (size_t k = 0; k < node_runs_.size(); ++k) {
    const size_t run = node_runs_[k].first;
    FleetNode& node = nodes[runs_[run].host];
    node.devices.push_back({run, runs_[run].device, runs_[run].summary, std::move(differences[k])});
    for (MissingCapability& m : missing_capabilities[k]) node.missing_capabilities.push_back(std::move(m));
    for (NodeFailure& f : failures_[run]) node.failures.push_back(std::move(f));
    if (auto f = flapping_.find(run); f != flapping_.end()) node.flapping_links.push_back(f->second);
  }
  for (auto& [name, node] : nodes) {
    for (const auto& [device, hosts] : hosts_of) {
      // A device most nodes have, missing here.
      if (!hosts.count(name) && 2 * hosts.size() >= nodes.size()) node.missing_devices.push_back(device);
    }
    node.verdict = Judge(runs_, node);
    // Failing tests the rest pass are differences too; no results where others have some.
    node.outlier = node.DifferenceCount() > 0 || !node.missing_capabilities.empty() || !node.flapping_links.empty() ||
                   (node.devices.empty() && !node_runs_.empty());
    fleet.nodes.push_back(std::move(node));
  }
  std::stable_sort(fleet.nodes.begin(), fleet.nodes.end(), [](const FleetNode& a, const FleetNode& b) {
    if (a.verdict != b.verdict) return a.verdict < b.verdict;
    if (a.failures.size() != b.failures.size()) return a.failures.size() > b.failures.size();
    return a.DifferenceCount() > b.DifferenceCount();
  });
}

void FleetTally::JudgePairs(FleetReport& fleet) {
  auto key = [](const BenchPoint& p) { return absl::StrCat(p.op, " ", p.metric, " ", p.size); };
  std::map<std::string, std::vector<double>> headlines;  // point -> every pair's headline
  for (const PairRun& pair_run : pair_runs_) {
    for (const BenchRun& b : pair_run.bench) {
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
  for (const PairRun& pair_run : pair_runs_) {
    const FleetRun& r = runs_[pair_run.run];
    FleetPair pair;
    pair.server = r.peer;
    pair.client = r.host;
    pair.device = r.device;
    pair.run = pair_run.run;
    pair.summary = r.summary;
    pair.first_failure = pair_run.first_failure;
    pair.error_counters = pair_run.error_counters;
    pair.path_mtu = pair_run.path_mtu;
    pair.active_mtu = pair_run.active_mtu;
    pair.peer_active_mtu = pair_run.peer_active_mtu;
    for (const BenchRun& b : pair_run.bench) {
      for (const BenchPoint& p : b.points) {
        if (!p.ok() || p.Headline() <= 0) continue;
        PairPoint point{p, medians[key(p)], 1, false};
        point.speed = p.metric == "latency" ? point.fleet_median / p.Headline() : p.Headline() / point.fleet_median;
        point.slow = point.speed < options_.slow_fraction;
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
    if (a.LowPathMtu() != b.LowPathMtu()) return a.LowPathMtu();
    return slowest(a) < slowest(b);
  });
}

FleetReport FleetTally::Finish() && {
  // Capability names by id, and every pattern spread out by id, now that the catalogue is
  // complete.
  capability_names_.resize(capability_ids_.size());
  for (const auto& [name, id] : capability_ids_) capability_names_[id] = name;
  const uint32_t none = Intern("");
  for (Pattern& p : patterns_) {
    p.dense_tests.assign(test_suite_.size(), kNotRun);
    for (const auto& [id, code] : p.tests) p.dense_tests[id] = code;
    p.dense_capabilities.assign(capability_ids_.size(), none);
    for (const auto& [id, outcome] : p.capabilities) p.dense_capabilities[id] = outcome;
  }
  FleetReport fleet;
  fleet.options = options_;
  JudgeNodes(fleet);
  JudgePairs(fleet);
  fleet.runs = std::move(runs_);
  return fleet;
}

}  // namespace rdmacheck
