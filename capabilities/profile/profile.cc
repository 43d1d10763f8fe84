#include "capabilities/profile/profile.h"

#include <fstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/files.h"

namespace rdmacheck {

const char* OutcomeName(Outcome outcome) {
  switch (outcome) {
    case Outcome::kSupported: return "supported";
    case Outcome::kUnsupported: return "unsupported";
    case Outcome::kBroken: return "broken";
  }
  return "unknown";
}

namespace {

absl::StatusOr<Outcome> OutcomeFromName(absl::string_view name) {
  for (Outcome o : {Outcome::kSupported, Outcome::kUnsupported, Outcome::kBroken}) {
    if (OutcomeName(o) == name) return o;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown outcome '", name, "'"));
}

}  // namespace

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Identity, device, driver, protocol, transport, node_type, link_layer,
                                                port, gid_index, gid, gid_type, netdev, vendor_id, vendor_part_id,
                                                fw_ver, hw_ver, node_guid, kernel, rdma_core, providers, os, hostname, time)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Measurement, value, detail)

nlohmann::json ObservedToJson(const std::map<Cap, Observation>& observed) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [cap, o] : observed) {
    json[CapName(cap)] = {{"outcome", OutcomeName(o.outcome)}, {"errno", o.err}, {"detail", o.detail}};
  }
  return json;
}

absl::StatusOr<std::map<Cap, Observation>> ObservedFromJson(const nlohmann::json& json) {
  std::map<Cap, Observation> observed;
  for (const auto& [name, o] : json.items()) {
    std::optional<Cap> cap = CapFromName(name);
    if (!cap) continue;  // a capability this build does not know: ignore, do not fail
    absl::StatusOr<Outcome> outcome = OutcomeFromName(o.at("outcome").get<std::string>());
    if (!outcome.ok()) return outcome.status();
    observed[*cap] = {*outcome, o.value("errno", 0), o.value("detail", "")};
  }
  return observed;
}

nlohmann::json MeasuredToJson(const std::map<std::string, Measurement>& measured) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [name, m] : measured) json[name] = m;
  return json;
}

std::map<std::string, Measurement> MeasuredFromJson(const nlohmann::json& json) {
  std::map<std::string, Measurement> measured;
  for (const auto& [name, m] : json.items()) measured[name] = m.get<Measurement>();
  return measured;
}

nlohmann::json ProfileToJson(const Profile& profile) {
  return {{"schema", "rdmacheck.capabilities/1"},
          {"identity", profile.identity},
          {"declared", profile.declared},
          {"observed", ObservedToJson(profile.observed)},
          {"measured", MeasuredToJson(profile.measured)},
          {"quirks", profile.quirks}};
}

absl::StatusOr<Profile> ProfileFromJson(const nlohmann::json& json) {
  try {
    Profile profile;
    profile.identity = json.value("identity", nlohmann::json::object()).get<Identity>();
    profile.declared = json.value("declared", nlohmann::json::object());
    absl::StatusOr<std::map<Cap, Observation>> observed =
        ObservedFromJson(json.value("observed", nlohmann::json::object()));
    if (!observed.ok()) return observed.status();
    profile.observed = *std::move(observed);
    profile.measured = MeasuredFromJson(json.value("measured", nlohmann::json::object()));
    profile.quirks = json.value("quirks", std::vector<Quirk>{});
    return profile;
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("capability profile: ", e.what()));
  }
}

absl::Status SaveProfile(const Profile& profile, const std::string& path) {
  return WriteFile(path, ProfileToJson(profile).dump(2) + "\n");
}

absl::StatusOr<Profile> LoadProfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read capability profile ", path));
  nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(path, ": not valid JSON"));
  return ProfileFromJson(json);
}

}  // namespace rdmacheck
