// The iWARP rules (wire/rules.cc, transport "iwarp") over a capture's MPA frames and FPDUs
// in frame order. A flow is one direction of one TCP connection that began with an MPA
// request (other TCP traffic, such as rdmacheck's own side channel, is not iWARP and is
// left alone). TCP retransmissions are TCP's business: the rules read the first copy.
//
// What "advertised" means for tagged data: an RDMA WRITE's target was advertised to the
// writer out of band (an STag in a SEND payload no dissector can read), so a WRITE is held
// to its own first segment (same STag, contiguous offsets); a READ response is held to the
// READ request that asked for it (sink STag, sink tagged offset and size: all on the wire).
#ifndef RDMACHECK_WIRE_IWARP_CHECK_H_
#define RDMACHECK_WIRE_IWARP_CHECK_H_

#include <vector>

#include "wire/packets.h"
#include "wire/wire_report.h"

namespace rdmacheck {

void CheckIwarp(const std::vector<IwarpPdu>& pdus, WireReport& report);

// "Send", "RDMA Write", ..., "opcode 13" (RFC 5040 §4, RFC 7306).
std::string RdmapOpcodeName(int64_t opcode);

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_IWARP_CHECK_H_
