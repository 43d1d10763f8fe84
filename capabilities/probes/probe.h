// Building a device's capability profile: read what it declares, then try things.
//
//   identity.h          who the device is (driver from netlink, versions, host)
//   declared.h          every attribute it declares, by name
//   probes.h            the observation probes; probe_runner.h runs each in a child process
//   quirks.h            where declared and observed disagree
// No table of vendors or device names takes part: the profile of a device nobody has seen
// before is built the same way.
#ifndef RDMACHECK_CAPABILITIES_PROBES_PROBE_H_
#define RDMACHECK_CAPABILITIES_PROBES_PROBE_H_

#include <infiniband/verbs.h>

#include "absl/status/statusor.h"
#include "capabilities/profile/profile.h"
#include "harness/device.h"

namespace rdmacheck {

// Identity and declared attributes of the device (no resources created).
absl::StatusOr<Profile> ReadDeclared(ibv_context* context, const Selection& selection);

// ReadDeclared() plus every observation probe, each in its own process and bounded in
// time, plus the quirks. A probe that fails, crashes or hangs marks its capabilities
// `broken`; it never aborts the others.
absl::StatusOr<Profile> ProbeDevice(ibv_context* context, const Selection& selection);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROBES_PROBE_H_
