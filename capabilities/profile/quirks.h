// Quirks: where what a device declares and what it does part ways. Listed in the profile
// so that a reader sees them without comparing the two halves by hand:
//   - a capability the probe found `broken` (declared but failing, or working wrongly);
//   - a declared capability the probe found `unsupported`;
//   - a capability the device does not declare, but which works;
//   - a measured limit that differs from the declared one (max_send_sge vs max_sge).
#ifndef RDMACHECK_CAPABILITIES_PROFILE_QUIRKS_H_
#define RDMACHECK_CAPABILITIES_PROFILE_QUIRKS_H_

#include <vector>

#include "capabilities/profile/profile.h"

namespace rdmacheck {

std::vector<Quirk> FindQuirks(const Profile& profile);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROFILE_QUIRKS_H_
