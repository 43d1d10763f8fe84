// Whether the wire to the peer is impaired on purpose (scripts/wire-lab.sh --impair: netem
// loses, reorders, duplicates or corrupts packets; impair/profiles). The reliable service
// must recover from all of it; the unreliable ones (UC, UD) may then lose a message, so
// their tests judge what those services promise instead of "everything arrived":
//
//   if (!WireImpaired()) EXPECT_EQ(delivered, sent);  // lossless: UC delivers like RC
#ifndef RDMACHECK_HARNESS_WIRE_IMPAIRMENT_H_
#define RDMACHECK_HARNESS_WIRE_IMPAIRMENT_H_

#include <string>

#include "absl/flags/declare.h"

ABSL_DECLARE_FLAG(std::string, impaired_wire);

namespace rdmacheck {

// The --impaired_wire profile: its name and netem arguments ("reorder: delay 2ms reorder
// 25% 50%"), or "" on a wire nobody impairs.
std::string WireImpairment();
bool WireImpaired();

// Whether the impairment can deliver packets out of order or twice: netem's `reorder`,
// `duplicate`, or a delay with jitter. IBTA fabrics keep a path's packets in order, and the
// UC responder takes any First or Only packet as the start of a new message (IBTA Vol 1
// 9.8.3: UC has no duplicate detection), so there a UC message can arrive after a later
// one, or twice; it still arrives whole, with its own bytes.
bool WireMayReorder();

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_WIRE_IMPAIRMENT_H_
