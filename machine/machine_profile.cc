#include "machine/machine_profile.h"

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "capabilities/profile/cap.h"
#include "machine/dotted_version.h"
#include "machine/node_facts.h"

namespace rdmacheck {
namespace {

using nlohmann::json;

// A value as the error shows it: short, and one line.
std::string Shown(const json& value) {
  std::string text = value.dump();
  return text.size() > 40 ? text.substr(0, 37) + "..." : text;
}

absl::Status Wrong(const std::string& field, const std::string& must, const json& value) {
  return absl::InvalidArgumentError(absl::StrCat(field, " must be ", must, ", got ", Shown(value)));
}

// Refuses a member of `object` not in `known`: a misspelt rule must not go unchecked.
absl::Status OnlyKnown(const json& object, const std::vector<std::string>& known, const std::string& prefix) {
  for (const auto& [name, unused] : object.items()) {
    if (std::find(known.begin(), known.end(), name) != known.end()) continue;
    return absl::InvalidArgumentError(absl::StrCat("unknown field '", prefix, name, "' (", prefix.empty() ? "fields" : "its fields",
                                                   ": ", absl::StrJoin(known, ", "), ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Text(const json& value, const std::string& field) {
  if (!value.is_string() || value.get<std::string>().empty()) return Wrong(field, "a non-empty string", value);
  return value.get<std::string>();
}

absl::StatusOr<int> Integer(const json& value, const std::string& field, int at_least) {
  if (!value.is_number_integer() || value.get<int64_t>() < at_least || value.get<int64_t>() > (1 << 30)) {
    return Wrong(field, absl::StrCat("an integer >= ", at_least), value);
  }
  return value.get<int>();
}

absl::StatusOr<std::vector<std::string>> TextList(const json& value, const std::string& field) {
  if (!value.is_array() || value.empty()) return Wrong(field, "a non-empty list of strings", value);
  std::vector<std::string> list;
  for (const json& item : value) {
    absl::StatusOr<std::string> text = Text(item, field + "[]");
    if (!text.ok()) return text.status();
    list.push_back(*text);
  }
  return list;
}

absl::Status ReadNics(const json& nics, MachineProfile& profile) {
  if (!nics.is_object()) return Wrong("nics", "an object", nics);
  if (absl::Status s = OnlyKnown(nics, {"count", "models"}, "nics."); !s.ok()) return s;
  if (nics.contains("count")) {
    absl::StatusOr<int> count = Integer(nics["count"], "nics.count", 1);
    if (!count.ok()) return count.status();
    profile.nic_count = *count;
  }
  if (nics.contains("models")) {
    absl::StatusOr<std::vector<std::string>> models = TextList(nics["models"], "nics.models");
    if (!models.ok()) return models.status();
    profile.nic_models = *std::move(models);
  }
  return absl::OkStatus();
}

absl::Status ReadPairs(const json& pairs, MachineProfile& profile) {
  if (!pairs.is_object()) return Wrong("pairs", "an object", pairs);
  for (const auto& [name, entry] : pairs.items()) {
    const std::string field = absl::StrCat("pairs['", name, "']");
    if (!IsBenchPointName(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": not a benchmark point (\"<op> bandwidth|latency <size> B\", as the fleet report names them)"));
    }
    if (!entry.is_object()) return Wrong(field, "an object", entry);
    if (absl::Status s = OnlyKnown(entry, {"expect", "tolerance"}, field + "."); !s.ok()) return s;
    PairExpectation expectation;
    if (!entry.contains("expect") || !entry["expect"].is_number() || entry["expect"].get<double>() <= 0) {
      return Wrong(field + ".expect", IsLatencyPoint(name) ? "a latency in us > 0" : "a bandwidth in Gb/s > 0",
                   entry.value("expect", json()));
    }
    expectation.expect = entry["expect"].get<double>();
    if (entry.contains("tolerance")) {
      const json& t = entry["tolerance"];
      if (!t.is_number() || t.get<double>() < 0 || t.get<double>() >= 1) return Wrong(field + ".tolerance", "in [0, 1)", t);
      expectation.tolerance = t.get<double>();
    }
    profile.pairs[name] = expectation;
  }
  return absl::OkStatus();
}

absl::Status ReadLinkFlaps(const json& flaps, MachineProfile& profile) {
  if (!flaps.is_object()) return Wrong("link_flaps", "an object", flaps);
  if (absl::Status s = OnlyKnown(flaps, {"max", "window_s"}, "link_flaps."); !s.ok()) return s;
  LinkFlapLimit limit;
  absl::StatusOr<int> max = Integer(flaps.value("max", json()), "link_flaps.max", 0);
  if (!max.ok()) return max.status();
  limit.max = *max;
  if (flaps.contains("window_s")) {
    absl::StatusOr<int> window = Integer(flaps["window_s"], "link_flaps.window_s", 1);
    if (!window.ok()) return window.status();
    limit.window_s = *window;
  }
  profile.link_flaps = limit;
  return absl::OkStatus();
}

const std::vector<std::string>& Fields() {
  static const auto* fields = new std::vector<std::string>{
      "schema",   "machine_type", "nics",         "port_rate",    "active_mtu", "netdev_mtu",
      "gid_type", "link_layer",   "min_firmware", "capabilities", "pairs",      "link_flaps"};
  return *fields;
}

}  // namespace

absl::StatusOr<MachineProfile> MachineProfileFromJson(const json& doc) {
  if (!doc.is_object()) return Wrong("a machine profile", "a JSON object", doc);
  if (absl::Status s = OnlyKnown(doc, Fields(), ""); !s.ok()) return s;
  MachineProfile profile;
  if (doc.contains("schema") && doc["schema"] != kMachineProfileSchema) {
    return Wrong("schema", absl::StrCat("\"", kMachineProfileSchema, "\""), doc["schema"]);
  }
  auto text = [&](const char* key, std::optional<std::string>& into) -> absl::Status {
    if (!doc.contains(key)) return absl::OkStatus();
    absl::StatusOr<std::string> value = Text(doc[key], key);
    if (!value.ok()) return value.status();
    into = *value;
    return absl::OkStatus();
  };
  std::optional<std::string> machine_type;
  for (absl::Status s : {text("machine_type", machine_type), text("port_rate", profile.port_rate),
                         text("gid_type", profile.gid_type), text("link_layer", profile.link_layer),
                         text("min_firmware", profile.min_firmware)}) {
    if (!s.ok()) return s;
  }
  profile.machine_type = machine_type.value_or("");
  if (profile.min_firmware && !DottedVersion(*profile.min_firmware)) {
    return Wrong("min_firmware", "a dotted version (\"28.39.1002\")", doc["min_firmware"]);
  }
  if (doc.contains("active_mtu")) {
    const json& mtu = doc["active_mtu"];
    const std::set<int64_t> ib_mtus = {256, 512, 1024, 2048, 4096};
    if (!mtu.is_number_integer() || !ib_mtus.count(mtu.get<int64_t>())) {
      return Wrong("active_mtu", "256, 512, 1024, 2048 or 4096 (the port's MTU; the netdev's is netdev_mtu)", mtu);
    }
    profile.active_mtu = mtu.get<int>();
  }
  if (doc.contains("netdev_mtu")) {
    absl::StatusOr<int> mtu = Integer(doc["netdev_mtu"], "netdev_mtu", 68);
    if (!mtu.ok()) return mtu.status();
    profile.netdev_mtu = *mtu;
  }
  if (doc.contains("nics")) {
    if (absl::Status s = ReadNics(doc["nics"], profile); !s.ok()) return s;
  }
  if (doc.contains("capabilities")) {
    absl::StatusOr<std::vector<std::string>> caps = TextList(doc["capabilities"], "capabilities");
    if (!caps.ok()) return caps.status();
    for (const std::string& cap : *caps) {
      if (!CapFromName(cap)) {
        return absl::InvalidArgumentError(
            absl::StrCat("capabilities: unknown capability '", cap, "' (`rdmacheck probe` lists the names)"));
      }
    }
    profile.capabilities = *std::move(caps);
  }
  if (doc.contains("pairs")) {
    if (absl::Status s = ReadPairs(doc["pairs"], profile); !s.ok()) return s;
  }
  if (doc.contains("link_flaps")) {
    if (absl::Status s = ReadLinkFlaps(doc["link_flaps"], profile); !s.ok()) return s;
  }
  return profile;
}

absl::StatusOr<MachineProfile> LoadMachineProfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  json doc;
  try {
    doc = json::parse(text.str());
  } catch (const json::parse_error& e) {
    // "[json.exception.parse_error.101] parse error at line 2, column 3: ..." -> from "parse error".
    std::string what = e.what();
    what = what.substr(std::min(what.find("parse error"), what.size()));
    return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON: ", what));
  }
  absl::StatusOr<MachineProfile> profile = MachineProfileFromJson(doc);
  if (!profile.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", profile.status().message()));
  return profile;
}

namespace {

// The document in the fields' documented order (an ordered_json for the file a person reads).
template <typename Json>
Json ProfileDocument(const MachineProfile& profile) {
  Json doc = {{"schema", kMachineProfileSchema}};
  if (!profile.machine_type.empty()) doc["machine_type"] = profile.machine_type;
  if (profile.nic_count) doc["nics"]["count"] = *profile.nic_count;
  if (!profile.nic_models.empty()) doc["nics"]["models"] = profile.nic_models;
  if (profile.port_rate) doc["port_rate"] = *profile.port_rate;
  if (profile.active_mtu) doc["active_mtu"] = *profile.active_mtu;
  if (profile.netdev_mtu) doc["netdev_mtu"] = *profile.netdev_mtu;
  if (profile.gid_type) doc["gid_type"] = *profile.gid_type;
  if (profile.link_layer) doc["link_layer"] = *profile.link_layer;
  if (profile.min_firmware) doc["min_firmware"] = *profile.min_firmware;
  if (!profile.capabilities.empty()) doc["capabilities"] = profile.capabilities;
  for (const auto& [name, e] : profile.pairs) doc["pairs"][name] = {{"expect", e.expect}, {"tolerance", e.tolerance}};
  if (profile.link_flaps) doc["link_flaps"] = {{"max", profile.link_flaps->max}, {"window_s", profile.link_flaps->window_s}};
  return doc;
}

}  // namespace

json MachineProfileToJson(const MachineProfile& profile) { return ProfileDocument<json>(profile); }

std::string MachineProfileText(const MachineProfile& profile) {
  return ProfileDocument<nlohmann::ordered_json>(profile).dump(2) + "\n";
}

}  // namespace rdmacheck
