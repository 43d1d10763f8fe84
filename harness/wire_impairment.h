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

// The --impaired_wire profile's name ("" on a wire nobody impairs).
std::string WireImpairment();
bool WireImpaired();

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_WIRE_IMPAIRMENT_H_
