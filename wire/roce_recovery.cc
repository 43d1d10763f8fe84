#include "wire/roce_recovery.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rdmacheck {
namespace {

constexpr int64_t kPsnMask = (1 << 24) - 1;

std::string Psn(int64_t unwrapped) { return absl::StrFormat("0x%06x", unwrapped & kPsnMask); }

std::string Range(int64_t lo, int64_t hi) { return lo == hi ? Psn(lo) : absl::StrCat(Psn(lo), "..", Psn(hi)); }

}  // namespace

void RoceRecovery::Flag(const RocePacket& p, absl::string_view rule, const std::string& flow, std::string message) {
  AddViolation(report_, p.frame.number, p.frame.time, rule, flow, std::move(message));
}

void RoceRecovery::Start(const std::string& flow, int64_t start_psn) {
  Requests& r = flows_[flow];
  r.expected_min = r.expected_max = r.next_min = r.next_max = r.first = start_psn;
  r.highest = start_psn - 1;
}

void RoceRecovery::OnRequest(const RocePacket& p, const std::string& flow, int64_t u, int64_t consumed_min,
                             int64_t consumed_max) {
  auto [it, first_seen] = flows_.try_emplace(flow);
  Requests& r = it->second;
  if (first_seen) {  // the capture starts here: this request arrived in order
    r.expected_min = r.next_min = u + consumed_min;
    r.expected_max = r.next_max = u + consumed_max;
    r.highest = u + consumed_max - 1;
    r.first = u;
  } else {
    // The requester. Going back is a retry (after a NAK or its timer); one after an RNR NAK
    // counts against rnr_retry instead (rxe_comp.c: COMPST_RNR_RETRY).
    if (u < r.next_min) {
      // Only what was never acknowledged is retried (IBTA Vol 1 9.7.6.1): a PSN already
      // acknowledged sent again is no retry of it (a duplicate, or the QP number and PSN
      // used again by a new hand-wired connection) and counts against no retry_cnt.
      const bool acknowledged = r.acked && u <= *r.acked;
      if (r.rnr_nak) {
        report_.recovery.rnr_wait_ms.push_back((p.frame.time - r.rnr_nak->time) * 1000);
        CheckRnrWait(p, flow, u, *r.rnr_nak);
        r.rnr_nak.reset();
      } else if (!acknowledged) {
        ++report_.recovery.retries;
        if (++r.retries == retry_cnt_ + 1) {
          Flag(p, "roce.retry_count", flow,
               absl::StrCat("the requester goes back to PSN ", Psn(u), " for retry ", r.retries,
                            " without a response acknowledging progress",
                            r.progress_frame ? absl::StrCat(" since frame ", r.progress_frame) : std::string(),
                            ": retry_cnt ", retry_cnt_, " allows ", retry_cnt_, " (no PSN sent more than ",
                            retry_cnt_ + 1, " times in a row)"));
        }
      }
    }
    if (auto sent = r.sent.find(u); sent != r.sent.end() && u <= r.highest) CompareResend(p, flow, u, sent->second);
    r.next_min = u + consumed_min;
    r.next_max = u + consumed_max;
    r.highest = std::max(r.highest, u + consumed_max - 1);
    // The responder: the PSN it expects moves on; one beyond it is loss; one below, a
    // duplicate it answers (an atomic's answer is judged when it comes).
    if (u >= r.expected_min && u <= r.expected_max) {
      r.expected_min = u + consumed_min;
      r.expected_max = u + consumed_max;
      if (r.loss) report_.recovery.recovery_ms.push_back((p.frame.time - r.loss->time) * 1000);
      r.loss.reset();  // the missing PSN arrived: the loss is recovered
    } else if (u > r.expected_max && !r.loss) {
      r.loss = Loss{r.expected_min, r.expected_max, p.frame.number, p.frame.time, flow, 0};
      ++report_.recovery.losses;
      if (r.unnaked.size() >= kMaxOpenLosses) r.unnaked.pop_front();
      r.unnaked.push_back({r.expected_min, r.expected_max, p.frame.number});
    }
  }
  if (p.opcode.op == IbOp::kReadRequest && (!r.acked || u > *r.acked)) {
    if (r.read_starts.size() >= kMaxRemembered) r.read_starts.erase(r.read_starts.begin());
    r.read_starts.insert(u);
  }
  // Its first send, to compare resends with: the oldest is forgotten to make room, never for
  // a PSN older still.
  if ((!r.acked || u > *r.acked) && !r.sent.count(u)) {
    if (r.sent.size() >= kMaxRemembered && u < r.sent.begin()->first) return;
    if (r.sent.size() >= kMaxRemembered) r.sent.erase(r.sent.begin());
    r.sent[u] = {p.opcode.value, p.payload, p.content_hash, p.frame.number};
  }
}

// The RNR NAK timer field's encoding (IBTA Vol 1 Table 45; ibv_modify_qp(3) min_rnr_timer),
// in microseconds: 0 is the longest wait, 655.36 ms.
constexpr double kRnrTimerUs[32] = {655360, 10,    20,    30,    40,    60,     80,     120,
                                    160,    240,   320,   480,   640,   960,    1280,   1920,
                                    2560,   3840,  5120,  7680,  10240, 15360,  20480,  30720,
                                    40960,  61440, 81920, 122880, 163840, 245760, 327680, 491520};

// The requester waits at least the time the RNR NAK names before it resends (IBTA Vol 1
// 9.7.5.2.8). Wherever the capture was taken, the gap it shows between the NAK and the resend
// holds the requester's wait and never less (the network's delays only add), so a gap
// shorter than the timer is a requester that did not wait.
void RoceRecovery::CheckRnrWait(const RocePacket& p, const std::string& flow, int64_t u, const RnrNak& nak) {
  const double waited_us = (p.frame.time - nak.time) * 1e6;
  const double asked_us = kRnrTimerUs[nak.timer & 0x1f];
  if (waited_us + 1 >= asked_us) return;  // pcap stamps are whole microseconds
  Flag(p, "roce.rnr_timer", flow,
       absl::StrFormat("the requester resends PSN %s %.3f ms after the RNR NAK (frame %d) whose timer %u asks for "
                       "%.2f ms: it must wait at least that long",
                       Psn(u), waited_us / 1000, nak.frame, nak.timer, asked_us / 1000));
}

// A retransmission repeats its packet. A READ may be re-sent for what is still missing
// (IBTA Vol 1 §9.4.4; rxe_req.c req_retry moves its address on): only its opcode is compared.
void RoceRecovery::CompareResend(const RocePacket& p, const std::string& flow, int64_t u, const Sent& first) {
  const std::string was = absl::StrCat(" (frame ", first.frame, ")");
  std::string wrong;
  if (p.opcode.value != first.opcode) {
    wrong = absl::StrCat("resends PSN ", Psn(u), " as ", p.opcode.name, "; its first send", was, " was ",
                         DescribeOpcode(first.opcode).name);
  } else if (p.opcode.op == IbOp::kReadRequest) {
    return;
  } else if (p.payload >= 0 && first.payload >= 0 && p.payload != first.payload) {
    wrong = absl::StrCat(p.opcode.name, " resends PSN ", Psn(u), " with ", p.payload, " payload bytes; its first send",
                         was, " carried ", first.payload);
  } else if (p.content_hash && first.hash && *p.content_hash != *first.hash) {
    wrong = absl::StrCat(p.opcode.name, " resends PSN ", Psn(u), " with other bytes than its first send", was);
  }
  if (!wrong.empty()) Flag(p, "roce.retransmission", flow, wrong + ": a retransmission repeats its packet");
}

void RoceRecovery::OnResponse(const RocePacket& p, const std::string& flow, const std::string& requests, int64_t u) {
  auto it = flows_.find(requests);
  if (it == flows_.end()) return;
  Requests& r = it->second;
  if (p.opcode.op == IbOp::kAck && p.syndrome) {
    const uint32_t kind = *p.syndrome >> 5, code = *p.syndrome & 0x1f;
    if (kind == 1) r.rnr_nak = RnrNak{p.frame.time, p.frame.number, code};
    if (kind != 0) {
      ++(kind == 1 ? report_.recovery.rnr_naks
                   : kind == 3 && code == 0 ? report_.recovery.seq_naks : report_.recovery.other_naks);
    }
    if (kind == 3 && code == 0) SequenceNak(p, flow, r, u);
    if (kind != 0) return;  // other NAKs end the connection: nothing to recover
  }
  if (p.opcode.op == IbOp::kAtomicAck && p.atomic_original) AtomicAnswer(p, flow, r, u);
  // A READ response packet acknowledges only in order: from a READ's first PSN (and every
  // request before it) or right after the last PSN acknowledged. One beyond a lost packet is
  // dropped by the requester (rxe_comp.c check_psn), which then re-sends the READ from there.
  if (p.opcode.op == IbOp::kReadResponse && r.acked && u > *r.acked + 1 && !r.read_starts.count(u)) return;
  Acknowledge(p, flow, r, u, /*positive=*/true);
}

// One NAK per loss, naming the first PSN missing (rxe_resp.c check_psn: sent_psn_nak, then
// send_ack(AETH_NAK_PSN_SEQ_ERROR, qp->resp.psn)). The responder's losses follow one another
// at ever higher PSNs, so a NAK naming the PSN of the previous one is a second NAK for it.
void RoceRecovery::SequenceNak(const RocePacket& p, const std::string& flow, Requests& r, int64_t u) {
  auto names = [u](const Gap& g) { return u >= g.first_min && u <= g.first_max; };
  auto gap = std::find_if(r.unnaked.begin(), r.unnaked.end(), names);
  if (r.last_nak && r.last_nak->first == u) {
    Flag(p, "roce.seq_nak", flow,
         absl::StrCat("a second PSN sequence error NAK for the loss at PSN ", Psn(u), ": the first was frame ",
                      r.last_nak->second, "; the responder NAKs a loss once, then drops requests until that PSN "
                      "arrives"));
  } else if (gap != r.unnaked.end()) {
    r.unnaked.erase(r.unnaked.begin(), gap + 1);  // NAKed in order: the older ones never will be
  } else if (!r.unnaked.empty()) {
    const Gap& oldest = r.unnaked.front();
    Flag(p, "roce.seq_nak", flow,
         absl::StrCat("the PSN sequence error NAK names PSN ", Psn(u), "; the first PSN missing is ",
                      Range(oldest.first_min, oldest.first_max), " (frame ", oldest.frame, " skipped it)"));
  } else if (u < r.first && !r.acked) {
    // Before the first request the capture shows (no CM exchange in it): lost before the
    // capture like any gap, and placed by this NAK. Its recovery is followed from here.
    r.loss = Loss{u, u, p.frame.number, p.frame.time, flow, 0};
    r.expected_min = r.expected_max = u;
  } else if ((r.acked && u <= *r.acked) || u > r.highest) {
    Flag(p, "roce.seq_nak", flow,
         u > r.highest ? absl::StrCat("the PSN sequence error NAK names PSN ", Psn(u), ", beyond every PSN sent (",
                                      Psn(r.highest), ")")
                       : absl::StrCat("the PSN sequence error NAK names PSN ", Psn(u),
                                      ", which the responder had already acknowledged (through ", Psn(*r.acked), ")"));
    return;
  } else {
    // The capture saw no gap: the request was lost after the capture point, or the capture
    // holds a packet the responder never got. Its recovery is followed from here.
    Flag(p, "roce.unplaced_loss", flow,
         absl::StrCat("the PSN sequence error NAK names PSN ", Psn(u),
                      ", which this capture saw sent with nothing missing before it: the loss is not where this "
                      "capture point sees"));
    r.loss = Loss{u, u, p.frame.number, p.frame.time, flow, 0};
    r.expected_min = r.expected_max = u;
  }
  if (r.loss && !r.loss->nak_frame) r.loss->nak_frame = p.frame.number;
  r.last_nak = {u, p.frame.number};
  Acknowledge(p, flow, r, u - 1, /*positive=*/false);  // a NAK acknowledges the PSNs before it
}

// A duplicate atomic is answered from the saved result, never executed again (rxe_resp.c
// duplicate_request: res->replay, send_atomic_ack with res->atomic.orig_val).
void RoceRecovery::AtomicAnswer(const RocePacket& p, const std::string& flow, Requests& r, int64_t u) {
  auto [it, first] = r.atomic_answers.try_emplace(u, *p.atomic_original, p.frame.number);
  if (first) {
    if (r.atomic_answers.size() > kMaxAtomicAnswers) r.atomic_answers.erase(r.atomic_answers.begin());
    return;
  }
  if (it->second.first != *p.atomic_original) {
    Flag(p, "roce.duplicate_atomic", flow,
         absl::StrFormat("the Atomic ACK at PSN %s carries original value 0x%x; the first answer to that PSN (frame "
                         "%d) carried 0x%x: the responder executed the duplicate atomic again",
                         Psn(u), *p.atomic_original, it->second.second, it->second.first));
  }
}

// The responder has every PSN through `through`. A loss a positive response acknowledges
// past, or a PSN the capture never showed arriving, is loss this capture cannot place.
// Any response that moves the acknowledged PSN on is progress and resets the retry count:
// rxe_comp.c resets it on a positive response only, but a sequence error NAK beyond the
// last acknowledged PSN acknowledges the packets before it (IBTA Vol 1 §9.7.5.1.2), and a
// long transfer on a lossy wire moves on by such NAKs alone (rxe, 16 MiB SEND, 5 % loss:
// no ACK between eight NAKs, each further on; rxe survives it only because it never
// counts down a retry_cnt of 7).
void RoceRecovery::Acknowledge(const RocePacket& p, const std::string& flow, Requests& r, int64_t through,
                               bool positive) {
  if (through > r.highest) return;  // acknowledging what was never sent: roce.ack_msn says so
  if (positive && (r.loss ? through >= r.loss->first_min : through >= r.expected_max)) {
    Flag(p, "roce.unplaced_loss", flow,
         r.loss ? absl::StrCat(p.opcode.name, " acknowledges PSN ", Psn(through), ", past PSN ",
                               Range(r.loss->first_min, r.loss->first_max), " that frame ", r.loss->frame,
                               " skipped and no retransmission brought: the responder had it, this capture did not")
                : absl::StrCat(p.opcode.name, " acknowledges PSN ", Psn(through),
                               ", which this capture never saw arrive"));
    r.loss.reset();
    r.expected_min = std::max(r.expected_min, through + 1);
    r.expected_max = std::max(r.expected_max, through + 1);
  }
  while (!r.unnaked.empty() && r.unnaked.front().first_min <= through) r.unnaked.pop_front();  // it had them
  if (r.acked && through <= *r.acked) return;
  r.acked = through;
  r.sent.erase(r.sent.begin(), r.sent.upper_bound(through));
  r.read_starts.erase(r.read_starts.begin(), r.read_starts.upper_bound(through));
  r.retries = 0;
  r.rnr_nak.reset();
  r.progress_frame = p.frame.number;
}

void RoceRecovery::Finish() {
  for (auto& [id, r] : flows_) {
    if (!r.loss || r.loss->nak_frame) continue;
    const Loss& loss = *r.loss;
    AddViolation(report_, loss.frame, loss.time, "roce.unplaced_loss", loss.flow,
                 absl::StrCat("PSN ", Range(loss.first_min, loss.first_max),
                              " is missing (this request skipped it) and neither a NAK nor a retransmission of it "
                              "came before the capture ended"));
  }
}

}  // namespace rdmacheck
