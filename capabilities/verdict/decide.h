// Turning a profile into yes/no answers with a reason a person can check.
#ifndef RDMACHECK_CAPABILITIES_VERDICT_DECIDE_H_
#define RDMACHECK_CAPABILITIES_VERDICT_DECIDE_H_

#include <string>

#include "capabilities/profile/cap.h"
#include "capabilities/profile/profile.h"
#include "harness/connection/connect_method.h"

namespace rdmacheck {

struct Decision {
  bool available = false;
  // Why not, with the evidence: "requires atomics: probe CAS returned EINVAL; atomic_cap=NONE".
  std::string reason;
};

// Only absence skips. A capability the probe observed as unsupported (refused, or not
// declared, or excluded by the transport) is not available, and the reason quotes the
// observation and, where an attribute speaks about it, the declared fact
// (declared_support.h). One observed as supported, or as *broken* (declared or accepted,
// but misbehaving), is available: its tests run and fail, unless an expectation names the
// failure. One the probe did not try is available too: the test shows what happens.
Decision Decide(const Profile& profile, Cap cap);

// How tests connect RC QPs on this device: manual wiring where it works (it exercises
// the most of the QP state machine), else rdma_cm.
ConnectMethod PreferredConnectMethod(const Profile& profile);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_VERDICT_DECIDE_H_
