// A device's capability profile: who it is, what it declares, what the probe observed.
//
// Declared and observed are kept apart on purpose: a device may declare a feature that
// fails when tried (outcome `broken`), or lack a flag for something that works. Tests are
// skipped by capabilities/decide.h, which weighs both.
#ifndef RDMACHECK_CAPABILITIES_PROFILE_H_
#define RDMACHECK_CAPABILITIES_PROFILE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capabilities/cap.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

enum class Outcome {
  kSupported,    // tried, and it worked (results checked where there are results)
  kUnsupported,  // tried, and the device refused it (or does not declare it)
  kBroken,       // declared, but failed when tried, or worked wrongly
};
const char* OutcomeName(Outcome outcome);

struct Observation {
  Outcome outcome = Outcome::kUnsupported;
  int err = 0;         // errno of the failing call, 0 if none
  std::string detail;  // one line: what was tried and what happened
};

struct Identity {
  std::string device;
  std::string driver;       // from sysfs; shown, never trusted for decisions
  std::string transport;    // "InfiniBand", "iWARP"
  std::string node_type;
  std::string link_layer;   // of the selected port
  uint32_t vendor_id = 0;
  uint32_t vendor_part_id = 0;
  std::string fw_ver;
  uint32_t hw_ver = 0;
  std::string node_guid;
  std::string kernel;       // uname -r
  std::string rdma_core;    // libibverbs package version
  std::string hostname;
  std::string time;         // RFC 3339, when the profile was taken
};

// A difference between what the device declares and what it does.
struct Quirk {
  std::string capability;  // CapName, or a free-form topic
  std::string text;
};

struct Profile {
  Identity identity;
  nlohmann::json declared = nlohmann::json::object();  // query_device_ex, ports, GIDs, by name
  std::map<Cap, Observation> observed;
  std::vector<Quirk> quirks;
};

nlohmann::json ProfileToJson(const Profile& profile);
absl::StatusOr<Profile> ProfileFromJson(const nlohmann::json& json);

absl::Status SaveProfile(const Profile& profile, const std::string& path);
absl::StatusOr<Profile> LoadProfile(const std::string& path);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROFILE_H_
