#include "machine/profile_learn.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "capabilities/profile/cap.h"
#include "machine/dotted_version.h"

namespace rdmacheck {
namespace {

// The most common of `counts` (a tie: the one `prefer` says; by default the first in order).
template <typename T, typename Prefer = std::less<T>>
std::optional<T> Majority(const std::map<T, int>& counts, Prefer prefer = Prefer()) {
  std::optional<T> best;
  int best_count = 0;
  for (const auto& [value, count] : counts) {
    if (count > best_count || (count == best_count && prefer(value, *best))) {
      best = value;
      best_count = count;
    }
  }
  return best;
}

// The value most devices recorded for a setting (0 or "": not recorded). A setting the
// devices of most nodes differ in among themselves (an InfiniBand and an Ethernet NIC in
// one machine) has no one value for the type: left out, and `notes` says so.
template <typename T, typename Prefer = std::less<T>>
std::optional<T> MajoritySetting(const std::vector<NodeFacts>& nodes, T DeviceFacts::*field, const char* name,
                                 std::vector<std::string>& notes, Prefer prefer = Prefer()) {
  std::map<T, int> counts;
  int nodes_with_devices = 0, mixed = 0;
  for (const NodeFacts& n : nodes) {
    std::set<T> own;
    for (const DeviceFacts& d : n.devices) {
      if (d.*field == T()) continue;
      ++counts[d.*field];
      own.insert(d.*field);
    }
    nodes_with_devices += n.devices.empty() ? 0 : 1;
    mixed += own.size() > 1 ? 1 : 0;
  }
  if (2 * mixed > nodes_with_devices) {
    std::vector<std::string> values;
    for (const auto& [value, count] : counts) values.push_back(absl::StrCat(value));
    notes.push_back(absl::StrCat(name, " left out: the devices of ", mixed, " of ", nodes_with_devices,
                                 " nodes differ in it (", absl::StrJoin(values, ", "), ")"));
    return std::nullopt;
  }
  return Majority(counts, prefer);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// Through decimal text, so the file says 12.3, not 12.300000000000001.
double ThreeSignificantDigits(double x) { return std::stod(absl::StrFormat("%.3g", x)); }

// The lowest firmware of the most common model, as its dotted numbers ("28.39.1002").
std::optional<std::string> LowestFirmware(const std::vector<NodeFacts>& nodes) {
  std::map<std::string, int> kinds;
  for (const NodeFacts& n : nodes) {
    for (const DeviceFacts& d : n.devices) ++kinds[d.kind];
  }
  const std::optional<std::string> kind = Majority(kinds);
  std::optional<std::vector<uint64_t>> lowest;
  for (const NodeFacts& n : nodes) {
    for (const DeviceFacts& d : n.devices) {
      const std::optional<std::vector<uint64_t>> version = DottedVersion(d.firmware);
      if (d.kind != kind || !version) continue;
      if (!lowest || CompareVersions(*version, *lowest) < 0) lowest = version;
    }
  }
  if (!lowest) return std::nullopt;
  return absl::StrJoin(*lowest, ".");
}

std::map<std::string, PairExpectation> LearnPairs(const std::vector<NodeFacts>& nodes) {
  std::set<std::string> seen;  // each pair once, though both its nodes list it
  std::map<std::string, std::vector<double>> figures;
  for (const NodeFacts& n : nodes) {
    for (const PairFacts& pair : n.pairs) {
      if (!seen.insert(absl::StrCat(pair.server, "\n", pair.client, "\n", pair.device)).second) continue;
      for (const BenchPoint& p : pair.points) {
        if (p.ok() && PairFigure(p) > 0) figures[BenchPointName(p)].push_back(PairFigure(p));
      }
    }
  }
  std::map<std::string, PairExpectation> pairs;
  for (const auto& [name, values] : figures) {
    const double median = Median(values);
    std::vector<double> deviations;
    for (double v : values) deviations.push_back(std::fabs(v - median));
    const double spread = 3 * Median(deviations) / median;
    // Up to the next hundredth, below 1 (a bandwidth may not be allowed to reach 0).
    const double tolerance = std::min(0.99, std::ceil(std::max(0.1, spread) * 100 - 1e-9) / 100);
    pairs[name] = {ThreeSignificantDigits(median), tolerance};
  }
  return pairs;
}

}  // namespace

MachineProfile LearnProfile(const std::vector<NodeFacts>& nodes, const std::string& machine_type,
                            std::vector<std::string>* notes) {
  std::vector<std::string> said;
  MachineProfile profile;
  profile.machine_type = machine_type;
  std::map<int, int> counts;
  std::map<std::string, int> kinds;
  std::map<std::string, int> supported;  // capability -> devices where it is supported
  int devices = 0;
  for (const NodeFacts& n : nodes) {
    if (n.devices.empty()) continue;  // no results: says nothing about the type
    ++counts[static_cast<int>(n.devices.size())];
    for (const DeviceFacts& d : n.devices) {
      ++devices;
      ++kinds[d.kind];
      for (const auto& [cap, outcome] : d.capabilities) {
        if (outcome == "supported") ++supported[cap];
      }
    }
  }
  profile.nic_count = Majority(counts, std::greater<int>());
  std::vector<std::pair<std::string, int>> by_count(kinds.begin(), kinds.end());
  std::stable_sort(by_count.begin(), by_count.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  for (const auto& [kind, count] : by_count) {
    if (!kind.empty()) profile.nic_models.push_back(kind);
  }
  profile.port_rate = MajoritySetting(nodes, &DeviceFacts::port_rate, "port_rate", said);
  profile.active_mtu = MajoritySetting(nodes, &DeviceFacts::active_mtu, "active_mtu", said, std::greater<int>());
  profile.netdev_mtu = MajoritySetting(nodes, &DeviceFacts::netdev_mtu, "netdev_mtu", said, std::greater<int>());
  profile.gid_type = MajoritySetting(nodes, &DeviceFacts::gid_type, "gid_type", said);
  profile.link_layer = MajoritySetting(nodes, &DeviceFacts::link_layer, "link_layer", said);
  profile.min_firmware = LowestFirmware(nodes);
  for (const auto& [cap, n] : supported) {
    // A name this version's profiles cannot hold (a newer probe's) is left out.
    if (n == devices && CapFromName(cap)) profile.capabilities.push_back(cap);
  }
  profile.pairs = LearnPairs(nodes);
  if (notes != nullptr) *notes = std::move(said);
  return profile;
}

}  // namespace rdmacheck
