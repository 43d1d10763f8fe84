// What `rdmacheck wire check` found in a capture: the flows (one per QP and direction for
// RoCEv2, one per TCP direction for iWARP) with their packet counts per opcode and their
// first and last frame, each rule violation with its frame, and the notes: what the capture
// cannot judge from where it was taken (loss it cannot place). Three verdicts follow:
// violations fail the check (ok() false); advisories and notes fail nothing; only a capture
// with none of the three is clean.
//
// The wire lab embeds this in its report: a test's packets are the frames of the flows whose
// QPs the test used, or the frames between two timestamps; `frames`/`time` in each record
// are the frame numbers and capture times Wireshark shows, so a violation opens at its packet.
#ifndef RDMACHECK_WIRE_WIRE_REPORT_H_
#define RDMACHECK_WIRE_WIRE_REPORT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

struct WireViolation {
  int64_t frame = 0;      // Wireshark's frame number (1-based)
  double time = 0;        // capture time, seconds since the epoch
  std::string rule;       // WireRule::id
  std::string flow;       // WireFlow::id of the packet's flow
  std::string message;    // what is wrong, with the values seen and expected
  std::string reference;  // WireRule::reference
  std::string severity;   // WireRule::severity: "violation" or "advisory"

  bool advisory() const { return severity == "advisory"; }
};

// A direction of traffic: RoCEv2 packets from one address to one destination QP, or the
// bytes of one TCP connection in one direction.
struct WireFlow {
  std::string id;         // "roce 10.88.0.1 > 10.88.0.2 qp 0x000012", "iwarp 10.88.0.1:40000 > 10.88.0.2:5791"
  std::string transport;  // "roce" (RoCEv2), "rocev1", "infiniband" or "iwarp"
  std::string src, dst;   // addresses ("10.88.0.1"; iWARP: "10.88.0.1:40000"; RoCEv1: GID; InfiniBand: "lid 4")
  int64_t dest_qp = -1;   // RoCEv2: BTH DestQP
  std::string qp_type;    // RoCEv2: "RC", "UC", "UD", ...; iWARP: "RC"
  int64_t tcp_stream = -1;  // iWARP: Wireshark's tcp.stream
  int64_t first_frame = 0, last_frame = 0;
  double first_time = 0, last_time = 0;
  int64_t packets = 0;
  std::map<std::string, int64_t> opcodes;  // "RC SEND First" -> packets
  int64_t retransmissions = 0;             // RoCEv2: RC packets sent again with an earlier PSN; iWARP: TCP's
};

// A fault the wire shows: a RoCEv2 NAK or RNR NAK, an iWARP TERMINATE. The wire lab holds
// it against the fault the test provoked (a remote access error shows as NAK code 2 on
// RoCEv2, as a TERMINATE of layer RDMAP, remote protection error on iWARP).
struct WireFault {
  int64_t frame = 0;
  double time = 0;
  std::string flow;
  std::string kind;    // "NAK", "RNR NAK", "TERMINATE"
  std::string detail;  // "remote access error (code 2)", "DDP tagged buffer error, code 0x00", ...
};

// RC recovery as the capture shows it (RoCE; wire/roce_recovery.h counts it): the report's
// "Recovery under impairment" section shows these per impaired run.
struct WireRecovery {
  int64_t losses = 0;                // PSN gaps a responder met (a request beyond the PSN it expected)
  std::vector<double> recovery_ms;   // per gap closed: from the request beyond it to the missing PSN's arrival
  int64_t seq_naks = 0, rnr_naks = 0, other_naks = 0;
  int64_t retries = 0;               // times a requester went back (after a NAK or its timer)
  std::vector<double> rnr_wait_ms;   // per RNR NAK followed by a resend: the gap between them
};

// One packet, in frame order: what a slice of the capture is counted from.
struct WirePacket {
  int64_t frame = 0;
  double time = 0;
  size_t flow = 0;     // index into WireReport::flows
  std::string opcode;  // as in WireFlow::opcodes
};

struct WireReport {
  std::string capture;
  bool cut_short = false;       // the file ends inside a packet: the frames before it were checked
  int64_t frames = 0;           // every frame in the capture
  int64_t roce_packets = 0;     // RoCEv2: a BTH after UDP to port 4791 (wire/packets.h says how they are told)
  int64_t roce_undecoded = 0;   // of those, the ones tshark decoded as another protocol (BTH read from the bytes)
  int64_t rocev1_packets = 0;   // RoCEv1: Ethernet type 0x8915, GRH + BTH
  int64_t ib_packets = 0;       // native InfiniBand (LRH + BTH), IP over InfiniBand included
  int64_t iwarp_pdus = 0;       // MPA frames and FPDUs
  int64_t truncated = 0;        // frames cut by the capture's snap length
  int64_t iwarp_undecoded = 0;  // FPDUs Wireshark did not decode (it decodes no FPDU cut by the snap length)
  int64_t crc_unchecked = 0;    // ICRC / MPA CRC not checkable (truncated, markers, unaligned)
  int64_t crc_checked = 0;
  std::map<std::string, int64_t> opcodes;  // over all flows
  std::vector<WireFlow> flows;
  std::vector<WireViolation> violations;
  // Records of a rule whose severity is "note" (roce.unplaced_loss): kept apart from the
  // violations, in the JSON too, so that nothing that reads "violations" fails a test by one.
  std::vector<WireViolation> notes;
  std::vector<WireFault> faults;
  WireRecovery recovery;
  std::vector<WirePacket> packets;  // every RoCEv2 packet and iWARP PDU (not in the JSON: slice it)

  // No violation of what the spec requires (advisories and notes do not count).
  bool ok() const {
    for (const WireViolation& v : violations) {
      if (!v.advisory()) return false;
    }
    return true;
  }
  // Nothing to say at all: no violation, no advisory, no note. A capture with a note is
  // never called clean, though it breaks no rule.
  bool clean() const { return violations.empty() && notes.empty(); }
  // Packets the rules read: none means the capture holds no RDMA traffic at all, which
  // `wire check` reports as such (exit 2), never as a clean wire.
  int64_t rdma_packets() const { return roce_packets + rocev1_packets + ib_packets + iwarp_pdus; }
};

// What the checkers use to fill a report: a violation of `rule` at `frame` on `flow` (its
// reference taken from the rule table; a rule of severity "note" goes to `notes`), and one
// more packet counted on flows[flow].
void AddViolation(WireReport& report, int64_t frame, double time, absl::string_view rule, const std::string& flow,
                  std::string message);
void CountPacket(WireReport& report, size_t flow, int64_t frame, double time, const std::string& opcode);

// The part of a capture one test made: its packets between two capture times (seconds
// since the epoch, both included), optionally only on some flows (WireFlow::id).
struct WireSlice {
  double from = 0, to = 0;
  int64_t first_frame = 0, last_frame = 0;  // 0: no packet in the window
  int64_t packets = 0;
  std::map<std::string, int64_t> opcodes;
  std::vector<WireViolation> violations;
  std::vector<WireViolation> notes;
  std::vector<WireFault> faults;
};
WireSlice SliceReport(const WireReport& report, double from, double to, const std::vector<std::string>& flows = {});
nlohmann::json WireSliceJson(const WireSlice& slice);

nlohmann::json WireReportJson(const WireReport& report);

// For a terminal: the counts, then one line per violation and per note:
//   frame 12 roce.psn: PSN 0x000071, expected 0x000070 (IBTA Vol 1 §9.7 ...)
//   frame 30 roce.unplaced_loss (note): ...
// and "every rule holds" only for a clean capture.
std::string WireReportText(const WireReport& report);

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_WIRE_REPORT_H_
