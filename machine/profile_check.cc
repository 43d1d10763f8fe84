#include "machine/profile_check.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "machine/dotted_version.h"

namespace rdmacheck {
namespace {

// A bound met within rounding (a learned expectation, a tolerance of 0) is met.
constexpr double kSlack = 1e-9;

std::string Needs(const MachineProfile& profile) {
  return profile.machine_type.empty() ? "the profile needs"
                                      : absl::StrCat("the profile's machine type ", profile.machine_type, " needs");
}

std::optional<std::string> AsText(const std::optional<int>& value) {
  if (!value) return std::nullopt;
  return std::to_string(*value);
}

std::string AsText(int value) { return value == 0 ? "" : std::to_string(value); }

void CheckDevice(const MachineProfile& profile, const DeviceFacts& d, std::vector<std::string>& out) {
  if (!profile.nic_models.empty() &&
      std::find(profile.nic_models.begin(), profile.nic_models.end(), d.kind) == profile.nic_models.end()) {
    out.push_back(absl::StrCat(d.device, ": model ", d.kind.empty() ? "unknown" : d.kind, ", ", Needs(profile),
                               profile.nic_models.size() > 1 ? " one of " : " ", absl::StrJoin(profile.nic_models, ", ")));
  }
  // The settings each run records as it chose them, profile value first.
  const std::pair<const char*, std::pair<std::optional<std::string>, std::string>> settings[] = {
      {"port_rate", {profile.port_rate, d.port_rate}},
      {"active_mtu", {AsText(profile.active_mtu), AsText(d.active_mtu)}},
      {"netdev_mtu", {AsText(profile.netdev_mtu), AsText(d.netdev_mtu)}},
      {"gid_type", {profile.gid_type, d.gid_type}},
      {"link_layer", {profile.link_layer, d.link_layer}},
  };
  for (const auto& [name, values] : settings) {
    const auto& [wanted, have] = values;
    if (!wanted || have == *wanted) continue;
    out.push_back(absl::StrCat(d.device, ": ", name, " ", have.empty() ? "not recorded" : have, ", ", Needs(profile), " ",
                               *wanted));
  }
  // Firmware numbers mean something within one model only: with models named, the first
  // (the type's main NIC) is held to min_firmware.
  const bool firmware_applies = profile.nic_models.empty() || d.kind == profile.nic_models.front();
  if (profile.min_firmware && firmware_applies) {
    const std::optional<std::vector<uint64_t>> have = DottedVersion(d.firmware), floor = DottedVersion(*profile.min_firmware);
    if (!have) {
      out.push_back(absl::StrCat(d.device, ": firmware ", d.firmware.empty() ? "not recorded" : "'" + d.firmware + "' is no version",
                                 ", ", Needs(profile), " ", *profile.min_firmware, " or later"));
    } else if (floor && CompareVersions(*have, *floor) < 0) {
      out.push_back(absl::StrCat(d.device, ": firmware ", d.firmware, " below ", *profile.min_firmware));
    }
  }
  // The downs its run saw in the window before it (the run's own window, doctor/link_flaps.h).
  if (profile.link_flaps && d.link_downs > profile.link_flaps->max) {
    out.push_back(absl::StrCat(d.device, " port ", d.link_port, ": went down ", d.link_downs, " times in the ",
                               d.link_flap_window_s, " s before its run, the profile allows ", profile.link_flaps->max));
  }
  for (const std::string& cap : profile.capabilities) {
    auto it = d.capabilities.find(cap);
    if (it != d.capabilities.end() && it->second == "supported") continue;
    out.push_back(absl::StrCat(d.device, ": capability ", cap, " ",
                               it == d.capabilities.end() ? "not probed" : it->second.empty() ? "without an outcome" : it->second));
  }
}

void CheckPair(const MachineProfile& profile, const PairFacts& pair, std::vector<std::string>& out) {
  for (const BenchPoint& p : pair.points) {
    const std::string name = BenchPointName(p);
    auto it = profile.pairs.find(name);
    if (it == profile.pairs.end()) continue;
    const PairExpectation& e = it->second;
    const std::string where = absl::StrCat("pair ", pair.server, " <- ", pair.client, " ", pair.device, " ", name, ": ");
    const double tolerance_pct = e.tolerance * 100;
    if (!p.ok()) {
      out.push_back(absl::StrCat(where, "not measured (", p.error, ")"));
    } else if (p.metric == "latency" && PairFigure(p) > e.expect * (1 + e.tolerance) * (1 + kSlack)) {
      out.push_back(absl::StrFormat("%s%.2f us above %g us + %g %%", where, PairFigure(p), e.expect, tolerance_pct));
    } else if (p.metric != "latency" && PairFigure(p) < e.expect * (1 - e.tolerance) * (1 - kSlack)) {
      out.push_back(absl::StrFormat("%s%.1f Gb/s below %g Gb/s - %g %%", where, PairFigure(p), e.expect, tolerance_pct));
    }
  }
}

}  // namespace

std::vector<std::string> CheckNode(const MachineProfile& profile, const NodeFacts& node) {
  std::vector<std::string> out;
  if (profile.nic_count && static_cast<int>(node.devices.size()) != *profile.nic_count) {
    out.push_back(absl::StrCat(node.devices.size(), node.devices.size() == 1 ? " NIC, " : " NICs, ", Needs(profile), " ",
                               *profile.nic_count));
  }
  for (const DeviceFacts& d : node.devices) CheckDevice(profile, d, out);
  for (const PairFacts& pair : node.pairs) CheckPair(profile, pair, out);
  return out;
}

}  // namespace rdmacheck
