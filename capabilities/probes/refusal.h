// When a failed attempt means "absent": the device refused the one verb that names the
// capability (capabilities/README.md, rule 1).
//
// A probe's attempt is usually several calls: a PD, a CQ, a QP, its transitions, a post.
// Only the call that *is* the capability may say it is not there: ibv_create_qp for a QP
// type, ibv_post_send for an opcode, ibv_modify_qp to RTR for a path MTU. A refusal from any
// other step (a PD, a CQ, the receive posted before a SEND with immediate, INIT or RTR of a
// hand-wired RC QP) is that step failing on a device that has the feature: broken, not
// absent. Every capability not in the table (manual wiring, RNR retry, the environment's)
// has no refusing verb at all: its absence is a declared attribute or a transport rule.
//
//   IsRefusal(ErrnoStatus(EINVAL, "ibv_post_send(qp 17, opcode 3)"), Cap::kWriteWithImm)  // true
//   IsRefusal(ErrnoStatus(EINVAL, "ibv_post_recv(qp 18)"), Cap::kWriteWithImm)            // false
#ifndef RDMACHECK_CAPABILITIES_PROBES_REFUSAL_H_
#define RDMACHECK_CAPABILITIES_PROBES_REFUSAL_H_

#include <vector>

#include "absl/status/status.h"
#include "capabilities/profile/cap.h"

namespace rdmacheck {

// The call that names a capability: the verb, and where it matters the attribute, as the
// harness's statuses spell them ("ibv_modify_qp(qp N to RTR, mask 0x..)").
struct NamingVerb {
  const char* verb;       // the status message starts with it, then '(', ':' or ' '
  const char* attribute;  // "" or text the message must also contain ("to RTR")
};

// The calls whose refusal means `cap` is absent; empty when no refusal can mean that.
const std::vector<NamingVerb>& NamingVerbs(Cap cap);

// Whether a failed attempt at `cap` is the device refusing it up front: one of its naming
// verbs returned EOPNOTSUPP, ENOSYS, EPROTONOSUPPORT or EINVAL, the errnos verbs(3) report
// absence with. A failure without an errno (an error completion, a timeout, wrong data),
// from the completion side, or from any other call of the attempt is not.
bool IsRefusal(const absl::Status& status, Cap cap);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROBES_REFUSAL_H_
