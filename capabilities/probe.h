// Building a device's capability profile: read what it declares, then try things.
#ifndef RDMACHECK_CAPABILITIES_PROBE_H_
#define RDMACHECK_CAPABILITIES_PROBE_H_

#include <infiniband/verbs.h>

#include "absl/status/statusor.h"
#include "capabilities/profile.h"
#include "harness/device.h"

namespace rdmacheck {

// Identity and declared attributes of the device (no resources created).
absl::StatusOr<Profile> ReadDeclared(ibv_context* context, const Selection& selection);

// ReadDeclared() plus every observation probe. A probe that fails unexpectedly marks its
// capability `broken`; it never aborts the others.
absl::StatusOr<Profile> ProbeDevice(ibv_context* context, const Selection& selection);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROBE_H_
