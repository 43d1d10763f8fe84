// A device's capability profile: who it is, what it declares, what the probe observed.
//
// Declared and observed are kept apart on purpose: a device may declare a feature that
// fails when tried (outcome `broken`), or lack a flag for something that works. Tests are
// skipped by capabilities/verdict/decide.h, which weighs both.
#ifndef RDMACHECK_CAPABILITIES_PROFILE_PROFILE_H_
#define RDMACHECK_CAPABILITIES_PROFILE_PROFILE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capabilities/profile/cap.h"
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

// A number the probe found by trying (the largest value a create accepts, ...).
struct Measurement {
  int64_t value = 0;
  std::string detail;  // how it was found: "QP create accepts 256, refuses 257 (EINVAL)"
};

struct Identity {
  std::string device;
  std::string driver;       // the kernel's RDMA driver ("rxe", "siw", "mlx5"); shown, never trusted
  std::string protocol;     // the kernel's word for it: "roce", "iw", "ib" (netlink)
  std::string transport;    // "InfiniBand", "iWARP"
  std::string node_type;
  std::string link_layer;   // of the selected port
  int port = 0;             // the port and GID the profile was taken on
  int gid_index = 0;
  std::string gid;
  std::string gid_type;     // "RoCEv2", "IB", ...
  std::string netdev;
  uint32_t vendor_id = 0;
  uint32_t vendor_part_id = 0;
  std::string fw_ver;
  uint32_t hw_ver = 0;
  std::string node_guid;
  std::string kernel;       // uname -r
  std::string rdma_core;    // libibverbs package version
  std::string providers;    // ibverbs-providers package version (librxe, libsiw, ...: the userspace half of a driver)
  std::string os;           // /etc/os-release PRETTY_NAME: which image the run was in
  std::string hostname;
  std::string time;         // RFC 3339, when the profile was taken
};

// A difference between what the device declares and what it does.
struct Quirk {
  std::string capability;  // CapName, or a free-form topic
  std::string text;
};
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(Quirk, capability, text)

struct Profile {
  Identity identity;
  nlohmann::json declared = nlohmann::json::object();  // query_device_ex, ports, GIDs, by name
  std::map<Cap, Observation> observed;
  std::map<std::string, Measurement> measured;         // "max_inline_data", "max_send_sge"
  std::vector<Quirk> quirks;
};

// capabilities.json, schema "rdmacheck.capabilities/1".
nlohmann::json ProfileToJson(const Profile& profile);
absl::StatusOr<Profile> ProfileFromJson(const nlohmann::json& json);

// The "observed" and "measured" objects on their own (a probe child sends them to its parent).
nlohmann::json ObservedToJson(const std::map<Cap, Observation>& observed);
absl::StatusOr<std::map<Cap, Observation>> ObservedFromJson(const nlohmann::json& json);
nlohmann::json MeasuredToJson(const std::map<std::string, Measurement>& measured);
std::map<std::string, Measurement> MeasuredFromJson(const nlohmann::json& json);

absl::Status SaveProfile(const Profile& profile, const std::string& path);
absl::StatusOr<Profile> LoadProfile(const std::string& path);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROFILE_PROFILE_H_
