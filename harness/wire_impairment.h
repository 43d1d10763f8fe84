// Whether the wire to the peer is impaired on purpose (scripts/wire-lab.sh --impair: netem
// loses, reorders, duplicates or corrupts packets; impair/profiles). The reliable service
// must recover from all of it; the unreliable ones (UC, UD) may then lose a message, so
// their tests judge what those services promise instead of "everything arrived":
//
//   if (!WireImpaired()) EXPECT_EQ(delivered, sent);  // lossless: UC delivers like RC
#ifndef RDMACHECK_HARNESS_WIRE_IMPAIRMENT_H_
#define RDMACHECK_HARNESS_WIRE_IMPAIRMENT_H_

#include <cstdint>
#include <string>

#include "absl/flags/declare.h"

ABSL_DECLARE_FLAG(std::string, impaired_wire);

namespace rdmacheck {

// The --impaired_wire profile's name ("" on a wire nobody impairs).
std::string WireImpairment();
bool WireImpaired();

// The transport retry count a connection takes unless a test sets its own: 7, the largest;
// on an impaired wire 6. There a NAK can be lost, and the responder that sent it (now in
// Error) drops every retry, so the requester ends only when its count runs out with
// IBV_WC_RETRY_EXC_ERR (IBTA Vol 1 9.7.6.1); rxe takes 7 for "retry forever" (rxe.json),
// which would turn a lost NAK into a hung test rather than the completion it should be.
uint8_t DefaultRetryCnt();

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_WIRE_IMPAIRMENT_H_
