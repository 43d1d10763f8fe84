#include "machine/node_facts.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "results/results.h"

namespace rdmacheck {
namespace {

std::string Text(const nlohmann::json& object, const char* key) {
  const nlohmann::json value = object.is_object() ? object.value(key, nlohmann::json()) : nlohmann::json();
  if (value.is_string()) return value.get<std::string>();
  return value.is_null() ? "" : value.dump();
}

// An MTU as a run records it: a number (a string of digits from an older writer is read too).
int Number(const nlohmann::json& object, const char* key) {
  const nlohmann::json value = object.is_object() ? object.value(key, nlohmann::json()) : nlohmann::json();
  if (value.is_number_integer()) return value.get<int>();
  int n = 0;
  return value.is_string() && absl::SimpleAtoi(value.get<std::string>(), &n) ? n : 0;
}

const std::regex& PointNamePattern() {
  static const std::regex* pattern = new std::regex(R"(^\S+ (bandwidth|latency) [0-9]+ B$)");
  return *pattern;
}

}  // namespace

std::string DeviceKind(const nlohmann::json& environment, const nlohmann::json& identity) {
  std::string driver = Text(environment, "driver");
  if (driver.empty()) driver = Text(identity, "driver");
  auto id = [&](const char* key) {
    const nlohmann::json value = identity.is_object() ? identity.value(key, nlohmann::json()) : nlohmann::json();
    return value.is_number_integer() ? value.get<uint32_t>() : 0u;
  };
  return id("vendor_part_id") == 0 ? driver
                                   : absl::StrFormat("%s %04x:%04x", driver, id("vendor_id"), id("vendor_part_id"));
}

DeviceFacts DeviceFactsOf(const std::string& device, const nlohmann::json& environment,
                          const nlohmann::json& capabilities, const std::vector<std::string>* only) {
  const nlohmann::json identity =
      capabilities.is_object() ? capabilities.value("identity", nlohmann::json::object()) : nlohmann::json::object();
  DeviceFacts facts;
  facts.device = device;
  facts.kind = DeviceKind(environment, identity);
  facts.firmware = Text(environment, "fw_ver");
  if (facts.firmware.empty()) facts.firmware = Text(identity, "fw_ver");
  facts.port_rate = Text(environment, "port_rate");
  facts.active_mtu = Number(environment, "active_mtu");
  facts.netdev_mtu = Number(environment, "netdev_mtu");
  facts.gid_type = Text(environment, "gid_type");
  facts.link_layer = Text(environment, "link_layer");
  if (const nlohmann::json flaps = environment.value("link_flaps", nlohmann::json()); flaps.is_object() && flaps.contains("downs")) {
    facts.link_port = Number(flaps, "port");
    facts.link_downs = Number(flaps, "downs");
    facts.link_flap_window_s = Number(flaps, "window_s");
  }
  const nlohmann::json observed =
      capabilities.is_object() ? capabilities.value("observed", nlohmann::json::object()) : nlohmann::json::object();
  if (!observed.is_object()) return facts;
  for (const auto& [name, o] : observed.items()) {
    if (only != nullptr && std::find(only->begin(), only->end(), name) == only->end()) continue;
    facts.capabilities[name] = o.is_object() ? Text(o, "outcome") : "";
  }
  return facts;
}

absl::StatusOr<DeviceFacts> LoadDeviceFacts(const std::string& dir) {
  absl::StatusOr<RunResults> results = LoadResults(dir + "/results.json");
  if (!results.ok()) return results.status();
  const std::string caps_path = dir + "/capabilities.json";
  std::ifstream in(caps_path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", caps_path));
  std::stringstream text;
  text << in.rdbuf();
  const nlohmann::json capabilities = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (capabilities.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(caps_path, ": not valid JSON"));
  return DeviceFactsOf(results->device, results->environment, capabilities);
}

std::string BenchPointName(const BenchPoint& point) {
  return absl::StrCat(point.op, " ", point.metric, " ", point.size, " B");
}

bool IsBenchPointName(absl::string_view name) {
  return std::regex_match(name.begin(), name.end(), PointNamePattern());
}

bool IsLatencyPoint(absl::string_view name) { return name.find(" latency ") != absl::string_view::npos; }

double PairFigure(const BenchPoint& point) {
  constexpr double kGbPerMiB = 1048576.0 * 8 / 1e9;
  return point.metric == "latency" ? point.median_us : point.mib_per_s * kGbPerMiB;
}

}  // namespace rdmacheck
