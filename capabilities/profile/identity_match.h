// Whether a capability profile on file may stand in for probing the device opened now
// (`run --capabilities FILE`). A profile decides which tests skip; one taken on another
// device, or on this one under other firmware, kernel or rdma-core, would decide them
// from evidence about something else. The supervisor's own hand-over to its children
// (the profile it just probed or checked) needs no second look.
#ifndef RDMACHECK_CAPABILITIES_PROFILE_IDENTITY_MATCH_H_
#define RDMACHECK_CAPABILITIES_PROFILE_IDENTITY_MATCH_H_

#include <string>

#include "capabilities/profile/profile.h"

namespace rdmacheck {

// The fields that say which device and software a probe saw — driver, node_guid, fw_ver,
// kernel, rdma_core — where `file` differs from `device`, each as "FIELD FILE-VALUE vs
// DEVICE-VALUE" ("none" for an empty value), joined by ", "; "" when all agree:
//   IdentityMismatch(file, device) == "driver mlx5 vs rxe, node_guid 0x0002 vs 0x5054"
std::string IdentityMismatch(const Identity& file, const Identity& device);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROFILE_IDENTITY_MATCH_H_
