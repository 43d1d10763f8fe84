// Checking a profile against facts known about a device (`rdmacheck probe --expect=FILE`):
// how the lab proves that the profiles of its devices are right.
//
// FILE: {"device": "siw0", "checks": {"<JSON pointer into capabilities.json>": value, ...}}
//   e.g. "/identity/transport": "iWARP", "/observed/atomics/outcome": "unsupported".
// Each check is an exact comparison.
#ifndef RDMACHECK_CAPABILITIES_PROFILE_PROFILE_CHECK_H_
#define RDMACHECK_CAPABILITIES_PROFILE_PROFILE_CHECK_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

// One line per failed check (with the observation's detail where the check is about one);
// an error when `expected` is not in the format above.
absl::StatusOr<std::vector<std::string>> CheckProfile(const nlohmann::json& profile, const nlohmann::json& expected);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROFILE_PROFILE_CHECK_H_
