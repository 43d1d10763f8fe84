// The RoCEv2 rules (wire/rules.cc, transport "roce") over a capture's packets in frame order.
//
// A flow is one direction to one QP: (source IP, destination IP, DestQP). On an RC flow the
// requests a QP sends and the responses it sends share DestQP but not PSN space, so the
// two are tracked apart. A response (ACK, READ response, atomic ACK) is matched to the
// request flow in the opposite direction whose requests cover its PSN — the same pair from
// then on — which is what the DestQP, P_Key, MSN and READ rules compare against.
// The path MTU is --path_mtu when given, else what the connection's First and Middle
// packets carry. On RC (and XRC) a forward PSN gap is loss, not a roce.psn violation: the
// recovery rules judge how it was recovered (wire/roce_recovery.h), with the QPs' retry_cnt.
#ifndef RDMACHECK_WIRE_ROCE_CHECK_H_
#define RDMACHECK_WIRE_ROCE_CHECK_H_

#include <cstdint>
#include <vector>

#include "wire/packets.h"
#include "wire/roce_recovery.h"
#include "wire/wire_report.h"

namespace rdmacheck {

// path_mtu: 0 to infer it per connection. wire_may_reorder: the capture was taken where the
// network may deliver packets out of order (a netem reorder, duplicate or jitter before the
// capture point): a UC packet behind the PSNs already carried, never carried itself, is then
// the note roce.unplaced_reorder, not roce.psn.
void CheckRoce(const std::vector<RocePacket>& packets, uint32_t path_mtu, WireReport& report,
               int retry_cnt = kHarnessRetryCnt, bool wire_may_reorder = false);

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_ROCE_CHECK_H_
