// Whether the device *declares* a capability, and the declared fact that says so.
//
// Declared facts never decide a capability on their own (the probe's observation does),
// but they classify what the probe sees and explain it:
//   - declared, and the probe fails  -> the observation is `broken`, and a quirk;
//   - not declared, and the probe works -> `supported`, and a quirk;
//   - a skip reason quotes the declared fact next to the observation
//     ("... ; declared atomic_cap=NONE").
// Capabilities that no attribute speaks about (UD QPs, CQ resize, ...) have no hint.
#ifndef RDMACHECK_CAPABILITIES_DECLARED_DECLARED_SUPPORT_H_
#define RDMACHECK_CAPABILITIES_DECLARED_DECLARED_SUPPORT_H_

#include <optional>
#include <string>

#include "capabilities/profile/cap.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

struct DeclaredHint {
  bool declared = false;
  std::string evidence;  // "atomic_cap=NONE", "device_cap_flags has SRQ_RESIZE"
};

// `declared` is a profile's "declared" object (capabilities/declared/declared.h); `port` the port
// the profile was taken on. nullopt: no declared fact speaks about `cap`, or the profile
// lacks the field.
std::optional<DeclaredHint> DeclaredSupport(const nlohmann::json& declared, int port, Cap cap);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_DECLARED_DECLARED_SUPPORT_H_
