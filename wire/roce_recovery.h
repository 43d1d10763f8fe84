// The RC recovery rules (wire/rules.cc: roce.seq_nak, roce.retransmission, roce.retry_count,
// roce.rnr_timer, roce.duplicate_atomic, and the note roce.unplaced_loss): what a lossy wire may show of a
// reliable connection, and what it may not.
//
// Where the capture was taken decides what it can prove. The model is the wire lab's: a
// packet in the capture was delivered, a packet lost was lost before the capture (netem
// drops in the sending guest, before the captured link; impair/README.md). So
//   - the responder expects the PSN after the last request the capture shows arriving in
//     order; a request beyond it opens a loss, which that PSN arriving again closes;
//   - a PSN the requester sends again is a retransmission; going back is a retry, counted
//     until a response acknowledges progress (an ACK, a READ response, an atomic ACK or a
//     sequence error NAK that moves the acknowledged PSN on);
//   - a response for a PSN is an answer to the request the capture showed (a second answer
//     to an atomic is its duplicate's).
// Loss the capture cannot place under that model — a gap no NAK and no retransmission
// closes, a NAK for a PSN the capture saw arrive — is a note, never a violation: the packet
// may have been lost after the capture point, or the capture itself missed it.
//
// roce_check.cc pairs flows and unwraps PSNs, then calls this for each RC/XRC packet.
// Memory is bounded: a flow keeps the first send of at most kMaxRemembered unacknowledged
// PSNs (the oldest are forgotten first), at most kMaxAtomicAnswers atomic answers and
// kMaxOpenLosses losses awaiting their NAK.
#ifndef RDMACHECK_WIRE_ROCE_RECOVERY_H_
#define RDMACHECK_WIRE_ROCE_RECOVERY_H_

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "wire/packets.h"
#include "wire/wire_report.h"

namespace rdmacheck {

// The retry count rdmacheck's harness gives every RC QP (harness/connection/qp_attr.h).
inline constexpr int kHarnessRetryCnt = 7;

class RoceRecovery {
 public:
  static constexpr size_t kMaxRemembered = 1 << 16;
  static constexpr size_t kMaxAtomicAnswers = 1 << 12;
  static constexpr size_t kMaxOpenLosses = 1 << 10;

  RoceRecovery(int retry_cnt, WireReport& report) : retry_cnt_(retry_cnt), report_(report) {}

  // A request of request flow `flow` at unwrapped PSN `u`, taking PSNs [u, u + consumed)
  // (a READ: its response count, between min and max while the path MTU is unknown).
  void OnRequest(const RocePacket& p, const std::string& flow, int64_t u, int64_t consumed_min,
                 int64_t consumed_max);
  // A response on flow `flow` (an ACK or NAK, a READ response, an atomic ACK) to the
  // requests of `requests`, at unwrapped PSN `u`.
  void OnResponse(const RocePacket& p, const std::string& flow, const std::string& requests, int64_t u);
  // `flow` starts afresh: a new connection on the same QP numbers (its CM exchange).
  void Forget(const std::string& flow) { flows_.erase(flow); }
  // `flow`'s requests start at `start_psn` (its CM exchange said so): a first request the
  // capture shows beyond it follows loss.
  void Start(const std::string& flow, int64_t start_psn);
  // The capture ends: a loss still open that no NAK answered was never placed.
  void Finish();

 private:
  struct Sent {  // the first send of a PSN
    uint8_t opcode = 0;
    int64_t payload = -1;
    std::optional<uint64_t> hash;
    int64_t frame = 0;
  };
  struct Loss {  // PSNs the responder misses, from the request that skipped them
    int64_t first_min = 0, first_max = 0;  // the first missing PSN (a range after a READ of unknown MTU)
    int64_t frame = 0;
    double time = 0;
    std::string flow;
    int64_t nak_frame = 0;  // its PSN sequence error NAK (0: none seen)
  };
  struct Gap {  // a loss the responder has yet to NAK
    int64_t first_min = 0, first_max = 0;
    int64_t frame = 0;
  };
  struct RnrNak {  // the last RNR NAK, until the requester resends or progress is acknowledged
    double time = 0;
    int64_t frame = 0;
    uint32_t timer = 0;  // the AETH's 5-bit timer field (IBTA Vol 1 Table 45)
  };
  struct Requests {  // one request flow, its requester and its responder as the capture shows them
    int64_t next_min = 0, next_max = 0;  // where the requester's packets continue
    int64_t first = 0;                   // its first PSN: the CM exchange's, else the first seen
    int64_t highest = 0;                 // the highest PSN it sent
    std::optional<int64_t> acked;        // acknowledged through (a NAK: through its PSN - 1)
    int64_t progress_frame = 0;          // the response that last acknowledged progress
    int retries = 0;                     // times it went back since
    std::optional<RnrNak> rnr_nak;       // an RNR NAK came: its resend is an RNR retry
    std::map<int64_t, Sent> sent;        // unacknowledged PSNs' first sends
    std::set<int64_t> read_starts;       // unacknowledged PSNs a READ was (re-)sent from
    int64_t expected_min = 0, expected_max = 0;  // the responder's next PSN
    std::optional<Loss> loss;
    // Losses opened, oldest first, neither NAKed nor acknowledged past. A capture taken at
    // the requester's end shows each NAK a round trip late, after requests the responder had
    // not yet seen: a NAK answers the oldest of these it names, not only the latest.
    std::deque<Gap> unnaked;
    std::optional<std::pair<int64_t, int64_t>> last_nak;  // PSN and frame of the last sequence error NAK
    std::map<int64_t, std::pair<uint64_t, int64_t>> atomic_answers;  // PSN -> original value, frame
  };

  void CheckRnrWait(const RocePacket& p, const std::string& flow, int64_t u, const RnrNak& nak);
  void CompareResend(const RocePacket& p, const std::string& flow, int64_t u, const Sent& first);
  void SequenceNak(const RocePacket& p, const std::string& flow, Requests& r, int64_t u);
  void AtomicAnswer(const RocePacket& p, const std::string& flow, Requests& r, int64_t u);
  void Acknowledge(const RocePacket& p, const std::string& flow, Requests& r, int64_t through, bool positive);
  void Flag(const RocePacket& p, absl::string_view rule, const std::string& flow, std::string message);

  const int retry_cnt_;
  WireReport& report_;
  std::map<std::string, Requests> flows_;  // by request flow id
};

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_ROCE_RECOVERY_H_
