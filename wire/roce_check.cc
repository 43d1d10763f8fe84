#include "wire/roce_check.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "wire/roce_recovery.h"

namespace rdmacheck {
namespace {

constexpr uint32_t kRoceV2Port = 4791;
constexpr int64_t kPsnSpace = 1 << 24;

// The PSN nearest to `reference` (an unwrapped, 64-bit PSN) whose low 24 bits are `psn`.
int64_t Unwrap(int64_t reference, uint32_t psn) {
  int64_t d = (static_cast<int64_t>(psn) - reference) & (kPsnSpace - 1);
  if (d >= kPsnSpace / 2) d -= kPsnSpace;
  return reference + d;
}

std::string Psn(int64_t unwrapped) { return absl::StrFormat("0x%06x", unwrapped & (kPsnSpace - 1)); }

bool IsIbMtu(int64_t bytes) {
  return bytes == 256 || bytes == 512 || bytes == 1024 || bytes == 2048 || bytes == 4096;
}

// The PSNs a READ of `length` bytes consumes: its response packets (IBTA Vol 1 §9.7).
int64_t ReadPackets(uint32_t length, uint32_t mtu) { return length == 0 ? 1 : (length + mtu - 1) / mtu; }

struct Request {
  int64_t first = 0, last = 0;  // unwrapped PSNs of the message (a READ: its response PSNs)
  int64_t frame = 0;
};

struct ReadProgress {
  uint32_t length = 0;
  int64_t last = 0;     // PSN of its last response (unwrapped)
  int64_t next = 0;     // PSN the next response packet must carry
  uint64_t bytes = 0;
  int64_t packets = 0;
  bool lossy = false;   // response packets were lost before the capture: its length is not judged
  bool replay = false;  // answered from the middle (ReplayFromTheMiddle)
  bool replay_reported = false;
};

enum class Open { kNone, kSend, kWrite, kUnknown };

struct Flow {
  size_t summary = 0;
  std::string id;
  std::optional<IbService> service;
  std::optional<uint32_t> pkey;
  uint32_t mtu = 0;  // inferred path MTU of the connection (0: not yet seen)
  // This flow as a requester.
  std::optional<int64_t> last_psn;  // unwrapped PSN of its latest request
  std::optional<int64_t> first_psn;  // unwrapped PSN of its first request in the capture
  // The operation each PSN carried (a READ: every PSN its responses take), so that a PSN
  // that goes back is a retransmission only when it carried the same operation before.
  std::map<int64_t, IbOp> carried;
  // RC: PSN ranges (first -> last) a forward gap skipped, lost before the capture: the
  // first send of such a PSN the capture shows is a retransmission of one it never saw.
  std::map<int64_t, int64_t> lost;
  int64_t highest_psn = 0;          // the highest PSN it sent (a READ: its last response PSN)
  int64_t expected_min = 0, expected_max = -1;  // the next request's PSN (a range after a READ of unknown MTU)
  Open open = Open::kNone;
  int64_t message_first = 0;  // PSN of the open message's First packet
  std::map<int64_t, Request> requests;  // messages by their last PSN
  std::map<int64_t, ReadProgress> reads;  // READs by their first PSN
  std::optional<int64_t> active_read;
  std::optional<int64_t> estimated_read;  // key in `requests` of a READ whose PSN count was a guess
  std::optional<uint32_t> response_qp;  // where the responses to its requests go
  std::optional<std::pair<int64_t, uint32_t>> acked;  // PSN acknowledged through, and the MSN then
  std::optional<uint32_t> msn_if_one_off;  // after a wrong MSN: the MSN then had it been a one-off
  // This flow as a responder: the request flow its responses answer.
  std::string answers;
  // A connection its CM exchange began (REQ and REP): where its requests start, the flow
  // its responses answer, and where that flow's requests start.
  std::optional<int64_t> start_psn, peer_start_psn;
  std::string paired;
  int64_t cm_frame = 0;
};

// What a CM REP announced for a flow (applied when the flow's first packet comes).
struct Announced {
  int64_t start_psn = 0, peer_start_psn = 0;
  std::string paired;
  int64_t frame = 0;
};

class RoceChecker {
 public:
  RoceChecker(uint32_t path_mtu, int retry_cnt, bool wire_may_reorder, WireReport& report)
      : path_mtu_(path_mtu), wire_may_reorder_(wire_may_reorder), report_(report), recovery_(retry_cnt, report) {}

  void Finish() { recovery_.Finish(); }

  void Check(const RocePacket& p) {
    Flow& flow = FlowOf(p);
    CountPacket(report_, flow.summary, p.frame.number, p.frame.time, p.opcode.name);
    switch (p.link) {
      case IbLink::kRoceV2: ++report_.roce_packets; break;
      case IbLink::kRoceV1: ++report_.rocev1_packets; break;
      case IbLink::kInfiniBand: ++report_.ib_packets; break;
    }
    if (p.link == IbLink::kRoceV2 && p.dport != kRoceV2Port) {
      Violation(p, "roce.udp_port", flow,
                absl::StrCat("UDP destination port ", p.dport, " (source port ", p.sport,
                             "): RoCEv2 packets go to port 4791"));
    }
    if (p.icrc == CrcCheck::kUnchecked) {
      ++report_.crc_unchecked;
    } else {
      ++report_.crc_checked;
      if (p.icrc == CrcCheck::kBad) {
        Violation(p, "roce.icrc", flow,
                  absl::StrFormat("ICRC 0x%08x, the packet's is 0x%08x", p.icrc_sent, p.icrc_computed));
      }
    }
    if (p.cm) OnCm(p);
    if (!p.opcode.defined()) {
      Violation(p, "roce.opcode_sequence", flow, absl::StrCat(p.opcode.name, " is not a defined opcode"));
      return;
    }
    if (p.opcode.service == IbService::kCnp || p.opcode.service == IbService::kRd) return;  // not modelled
    if (flow.service && *flow.service != p.opcode.service) {
      Violation(p, "roce.opcode_sequence", flow,
                absl::StrCat(p.opcode.name, " on a flow that carried ", ServiceName(*flow.service),
                             " packets: a QP has one transport service"));
      return;
    }
    flow.service = p.opcode.service;
    if (flow.pkey && *flow.pkey != p.pkey) {
      Violation(p, "roce.pkey", flow, absl::StrFormat("P_Key 0x%04x, the flow's packets carried 0x%04x", p.pkey, *flow.pkey));
    } else {
      flow.pkey = p.pkey;
    }
    if (p.opcode.request()) {
      OnRequest(p, flow);
    } else {
      OnResponse(p, flow);
    }
  }

 private:
  static const char* Transport(IbLink link) {
    return link == IbLink::kRoceV2 ? "roce" : link == IbLink::kRoceV1 ? "rocev1" : "infiniband";
  }

  static std::string FlowId(IbLink link, const std::string& src, const std::string& dst, uint32_t qp) {
    return absl::StrFormat("%s %s > %s qp 0x%06x", link == IbLink::kInfiniBand ? "ib" : Transport(link), src, dst, qp);
  }

  Flow& FlowOf(const RocePacket& p) {
    const char* transport = Transport(p.link);
    const std::string id = FlowId(p.link, p.src, p.dst, p.dest_qp);
    auto [it, inserted] = flows_.try_emplace(id);
    if (inserted) {
      it->second.id = id;
      if (auto a = announced_.find(id); a != announced_.end()) {
        Apply(it->second, a->second);
        announced_.erase(a);
      }
      it->second.summary = report_.flows.size();
      WireFlow summary;
      summary.id = id;
      summary.transport = transport;
      summary.src = p.src;
      summary.dst = p.dst;
      summary.dest_qp = p.dest_qp;
      summary.qp_type = ServiceName(p.opcode.service);
      report_.flows.push_back(summary);
      by_direction_[{p.src, p.dst}].push_back(id);
    }
    return it->second;
  }

  // Connection boundaries from the CM exchange: a REP answering a REQ begins a connection
  // between the REQ's QP (on its sender) and the REP's QP: the two flows start afresh (a QP
  // number used again is a new connection), paired, with the starting PSNs the two gave.
  void OnCm(const RocePacket& p) {
    const CmMessage& m = *p.cm;
    if (m.kind == CmMessage::kReq) {
      reqs_[{p.src, p.dst}] = {m.start_psn, m.local_qpn, p.frame.number};
      return;
    }
    if (m.kind != CmMessage::kRep) return;
    auto req = reqs_.find({p.dst, p.src});
    if (req == reqs_.end()) return;
    const auto [req_start, req_qpn, req_frame] = req->second;
    reqs_.erase(req);
    const std::string to_rep = FlowId(p.link, p.dst, p.src, m.local_qpn);  // the REQ sender's packets
    const std::string to_req = FlowId(p.link, p.src, p.dst, req_qpn);      // the REP sender's packets
    // Each side's Starting PSN is the one its peer's requests start from, as the wire shows
    // it for Linux's ib_cm (rdma_cm over rxe) and IPoIB connected mode alike: the REQ
    // sender's first request carries the REP's PSN.
    Begin(to_rep, {m.start_psn, req_start, to_req, p.frame.number});
    Begin(to_req, {req_start, m.start_psn, to_rep, req_frame});
  }

  void Begin(const std::string& id, const Announced& a) {
    auto it = flows_.find(id);
    if (it == flows_.end()) {
      announced_[id] = a;
      return;
    }
    Flow fresh;
    fresh.id = it->second.id;
    fresh.summary = it->second.summary;
    it->second = std::move(fresh);
    recovery_.Forget(id);
    Apply(it->second, a);
  }

  static void Apply(Flow& flow, const Announced& a) {
    flow.start_psn = a.start_psn;
    flow.peer_start_psn = a.peer_start_psn;
    flow.paired = a.paired;
    flow.cm_frame = a.frame;
  }

  void Violation(const RocePacket& p, absl::string_view rule, const Flow& flow, std::string message) {
    AddViolation(report_, p.frame.number, p.frame.time, rule, flow.id, std::move(message));
  }

  uint32_t Mtu(const Flow& connection) const { return path_mtu_ ? path_mtu_ : connection.mtu; }

  // First and Middle packets carry exactly the path MTU; Last and Only no more than it.
  void CheckPayload(const RocePacket& p, const Flow& flow, Flow& connection) {
    if (p.payload < 0) return;
    const IbPosition pos = p.opcode.position;
    if (pos == IbPosition::kFirst || pos == IbPosition::kMiddle) {
      if (path_mtu_ && p.payload != path_mtu_) {
        Violation(p, "roce.payload_size", flow,
                  absl::StrCat(p.opcode.name, " carries ", p.payload, " bytes, the path MTU is ", path_mtu_));
      } else if (!IsIbMtu(p.payload)) {
        Violation(p, "roce.payload_size", flow,
                  absl::StrCat(p.opcode.name, " carries ", p.payload,
                               " bytes: First and Middle packets carry exactly the path MTU (256, 512, ..., 4096)"));
      } else if (connection.mtu && p.payload != connection.mtu) {
        Violation(p, "roce.payload_size", flow,
                  absl::StrCat(p.opcode.name, " carries ", p.payload, " bytes, the connection's First/Middle packets ",
                               connection.mtu));
      } else {
        connection.mtu = p.payload;
      }
    } else if (Mtu(connection) && p.payload > Mtu(connection)) {
      Violation(p, "roce.payload_size", flow,
                absl::StrCat(p.opcode.name, " carries ", p.payload, " bytes, more than the path MTU ", Mtu(connection)));
    }
  }

  void OnRequest(const RocePacket& p, Flow& flow) {
    const bool ud = p.opcode.service == IbService::kUd;
    const bool reliable = p.opcode.service == IbService::kRc || p.opcode.service == IbService::kXrc;
    CheckPayload(p, flow, flow);
    if (ud) return;  // one packet per message; the PSN is not checked by the receiver
    const int64_t u = flow.last_psn ? Unwrap(*flow.last_psn, p.psn) : flow.start_psn ? Unwrap(*flow.start_psn, p.psn)
                                                                                     : p.psn;
    if (!flow.last_psn && flow.start_psn && reliable) {
      recovery_.Start(flow.id, *flow.start_psn);
      if (u > *flow.start_psn) {  // its first requests were lost before the capture
        flow.lost[*flow.start_psn] = u - 1;
        flow.open = Open::kUnknown;
        flow.message_first = *flow.start_psn;
      }
    }
    if (!flow.last_psn && flow.start_psn && (reliable ? u < *flow.start_psn : u != *flow.start_psn)) {
      Violation(p, "roce.psn", flow,
                absl::StrCat("the connection's first request has PSN ", Psn(u), "; its CM exchange (frame ",
                             flow.cm_frame, ") gave starting PSN ", Psn(*flow.start_psn)));
    }
    if (flow.expected_max >= flow.expected_min && flow.last_psn) {
      if (u > flow.expected_max && reliable) {
        // Loss before the capture: the recovery rules judge it (wire/roce_recovery.h). The
        // message the skipped PSNs belonged to is not known any more.
        flow.lost[flow.expected_min] = u - 1;
        flow.open = Open::kUnknown;
        flow.message_first = flow.expected_min;
      } else if (u > flow.expected_max) {
        // UC has no recovery (IBTA Vol 1 9.8.3): a gap is loss the receiver may see, or a
        // sender skipping PSNs; one capture point cannot tell which, so it is noted.
        Violation(p, "roce.unplaced_loss", flow,
                  absl::StrCat("UC PSN ", Psn(u), ", expected ", Psn(flow.expected_min),
                               flow.expected_max > flow.expected_min ? absl::StrCat("..", Psn(flow.expected_max)) : "",
                               ": ", u - flow.expected_max, " PSN(s) lost before the capture or skipped by the sender"));
        // The message the lost packets belonged to is not known any more: the opcode after
        // the gap may end or continue it (IBTA Vol 1 §9.8.3: the receiver drops the rest of a
        // message that lost a packet).
        flow.open = Open::kUnknown;
        flow.message_first = flow.expected_min;
      } else if (u < flow.expected_min) {
        if (reliable) {
          if (std::string wrong = NotARetransmission(p, flow, u); !wrong.empty()) {
            Violation(p, "roce.psn", flow, wrong);
          } else {
            ++report_.flows[flow.summary].retransmissions;  // go back N: a retransmission
          }
          flow.open = Open::kUnknown;
        } else if (auto same = flow.carried.find(u); same != flow.carried.end() && same->second == p.opcode.op) {
          Violation(p, "roce.duplicate_packet", flow,
                    absl::StrCat(p.opcode.name, " at PSN ", Psn(u), " again, after ", Psn(flow.expected_min - 1),
                                 ": a UC packet repeated on the wire"));
          return;  // the receiver drops the copy: the message it repeats goes on as before
        } else if (wire_may_reorder_ && same == flow.carried.end()) {
          Violation(p, "roce.unplaced_reorder", flow,
                    absl::StrCat(p.opcode.name, " at PSN ", Psn(u), " after ", Psn(flow.expected_min - 1),
                                 ", never carried before: the wire delivered it late, or the sender went back"));
          return;  // a stray from before: the flow's current message goes on as before
        } else {
          Violation(p, "roce.psn", flow,
                    absl::StrCat("PSN ", Psn(u), " after ", Psn(flow.expected_min - 1),
                                 ": UC does not retransmit, its PSNs only go forward"));
        }
      }
    }
    CheckSequence(p, flow);
    if (reliable && (p.opcode.op == IbOp::kSend || p.opcode.op == IbOp::kWrite) && p.opcode.ends_message() &&
        !p.ack_req) {
      Violation(p, "roce.ackreq", flow, absl::StrCat(p.opcode.name, " ends a message but has AckReq clear"));
    }
    // A READ sent before the MTU was known was given the most PSNs it could take; the
    // request after it says how many it took. A request resent from before it (go-back-N
    // after a loss) says nothing about it: the estimate waits for the next new request.
    const bool resent = flow.last_psn && u < flow.expected_min;
    if (flow.estimated_read && u > flow.requests.at(*flow.estimated_read).first) {
      if (u <= *flow.estimated_read) TrimRequest(flow, *flow.estimated_read, u - 1);
      flow.estimated_read.reset();
    }
    int64_t consumed_min = 1, consumed_max = 1;
    if (p.opcode.op == IbOp::kReadRequest) {
      const uint32_t length = p.dma_length.value_or(0);
      if (Mtu(flow)) {
        consumed_min = consumed_max = ReadPackets(length, Mtu(flow));
      } else {
        consumed_min = ReadPackets(length, 4096);
        consumed_max = ReadPackets(length, 256);
      }
      ReadProgress read;
      read.length = length;
      read.last = u + consumed_max - 1;
      flow.reads[u] = read;
      if (consumed_max > consumed_min && !resent) flow.estimated_read = u + consumed_max - 1;
    }
    if (reliable) recovery_.OnRequest(p, flow.id, u, consumed_min, consumed_max);
    if (p.opcode.position == IbPosition::kFirst) flow.message_first = u;
    if (p.opcode.ends_message()) {
      // A Last covers its whole message: an ACK may name any PSN of it.
      const int64_t first = p.opcode.position == IbPosition::kLast && flow.message_first <= u ? flow.message_first : u;
      flow.requests[u + consumed_max - 1] = {first, u + consumed_max - 1, p.frame.number};
    }
    for (int64_t psn = u; psn < u + consumed_max; ++psn) flow.carried[psn] = p.opcode.op;
    if (!flow.first_psn) flow.first_psn = u;
    flow.highest_psn = flow.last_psn ? std::max(flow.highest_psn, u + consumed_max - 1) : u + consumed_max - 1;
    flow.last_psn = u;
    flow.expected_min = u + consumed_min;
    flow.expected_max = u + consumed_max;
  }

  // Why a request whose PSN goes back is no retransmission ("" when it is one): a
  // retransmission repeats a PSN that carried the same operation (a READ may be re-sent
  // from any PSN of its response, IBTA Vol 1 §9.7.5.1.6). PSNs before the capture's first
  // request of the flow are unknown and pass.
  static std::string NotARetransmission(const RocePacket& p, const Flow& flow, int64_t u) {
    if (!flow.first_psn || u < *flow.first_psn) return "";
    auto it = flow.carried.find(u);
    if (it == flow.carried.end()) {
      auto gap = flow.lost.upper_bound(u);
      if (gap != flow.lost.begin() && u <= std::prev(gap)->second) return "";  // lost before the capture
      return absl::StrCat(p.opcode.name, " at PSN ", Psn(u), ", back from ", Psn(flow.expected_min),
                          ": no request carried that PSN, so it is no retransmission");
    }
    if (it->second != p.opcode.op) {
      return absl::StrCat(p.opcode.name, " at PSN ", Psn(u), ", back from ", Psn(flow.expected_min), ": that PSN ",
                          it->second == IbOp::kReadRequest ? "belongs to an earlier RDMA READ (its responses take it)"
                                                           : "carried another operation",
                          ", so this is a new request on a consumed PSN, not a retransmission");
    }
    return "";
  }

  // Moves the request whose last PSN is `key` to end at `last`.
  static void TrimRequest(Flow& flow, int64_t key, int64_t last) {
    for (int64_t psn = last + 1; psn <= key; ++psn) flow.carried.erase(psn);  // PSNs it did not take after all
    auto node = flow.requests.extract(key);
    node.key() = last;
    node.mapped().last = last;
    auto read = flow.reads.find(node.mapped().first);
    if (read != flow.reads.end()) read->second.last = last;
    flow.requests.insert(std::move(node));
    flow.highest_psn = std::max(last, flow.requests.rbegin()->first);
  }

  // A message is First, Middle*, Last or Only, one at a time (retransmissions may restart
  // anywhere: the state is unknown until the next message begins).
  void CheckSequence(const RocePacket& p, Flow& flow) {
    const Open family = p.opcode.op == IbOp::kSend ? Open::kSend : p.opcode.op == IbOp::kWrite ? Open::kWrite : Open::kNone;
    const char* open_name = flow.open == Open::kSend ? "SEND" : "RDMA WRITE";
    const bool open = flow.open == Open::kSend || flow.open == Open::kWrite;
    switch (p.opcode.position) {
      case IbPosition::kFirst:
      case IbPosition::kOnly:
        if (open) {
          Violation(p, "roce.opcode_sequence", flow,
                    absl::StrCat(p.opcode.name, " while a ", open_name, " message is open (no Last yet)"));
        }
        flow.open = p.opcode.position == IbPosition::kFirst ? family : Open::kNone;
        break;
      case IbPosition::kMiddle:
      case IbPosition::kLast:
        if (!flow.last_psn && !flow.start_psn) {
          // The flow's first packet in a capture that does not show its beginning: the
          // message began before the capture (or its first packets were lost before it).
        } else if (flow.open == Open::kNone) {
          Violation(p, "roce.opcode_sequence", flow, absl::StrCat(p.opcode.name, " without a First"));
        } else if (open && flow.open != family) {
          Violation(p, "roce.opcode_sequence", flow,
                    absl::StrCat(p.opcode.name, " inside a ", open_name, " message: messages do not interleave"));
          if (p.opcode.position == IbPosition::kMiddle) break;  // the open message goes on
        }
        flow.open = p.opcode.position == IbPosition::kMiddle ? family : Open::kNone;
        break;
    }
  }

  // The request flow whose requests `p` answers: the one already paired with `flow` if its
  // requests cover p's PSN, else the one that sent a covering request last. A message still
  // being sent covers its PSNs too: a long SEND's NAKs and ACKs come before its Last.
  Flow* Answered(const RocePacket& p, Flow& flow) {
    if (!flow.paired.empty()) {  // the CM exchange said which
      auto it = flows_.find(flow.paired);
      return it == flows_.end() ? nullptr : &it->second;
    }
    Flow* best = nullptr;
    int64_t best_frame = -1;
    for (const std::string& id : by_direction_[{p.dst, p.src}]) {
      Flow& r = flows_.at(id);
      if (!r.last_psn) continue;
      const int64_t u = Unwrap(*r.last_psn, p.psn);
      auto it = r.requests.lower_bound(u);
      const bool covered = it != r.requests.end() && it->second.first <= u;
      const bool in_open_message = r.open != Open::kNone && u >= r.message_first && u <= r.highest_psn + 1;
      if (!covered && !in_open_message) continue;
      if (flow.answers == id) return &r;
      const int64_t frame = covered ? it->second.frame : report_.flows[r.summary].last_frame;
      if (frame > best_frame) {
        best_frame = frame;
        best = &r;
      }
    }
    if (best == nullptr && !flow.answers.empty()) return &flows_.at(flow.answers);
    return best;
  }

  void OnResponse(const RocePacket& p, Flow& flow) {
    bool syndrome_ok = true;
    if (p.opcode.has_aeth() && p.syndrome) {
      syndrome_ok = CheckSyndrome(p, flow);
      if (syndrome_ok) RecordFault(p, flow);
    }
    Flow* r = Answered(p, flow);
    if (r == nullptr || !r->last_psn) {
      // Its request is not in the capture — or, on a connection whose beginning is, was never sent.
      if (flow.peer_start_psn && p.opcode.op == IbOp::kAck && syndrome_ok && p.syndrome && (*p.syndrome >> 5) == 0) {
        Violation(p, "roce.ack_msn", flow,
                  absl::StrCat(p.opcode.name, " acknowledges PSN ", Psn(p.psn), " before any request of the connection "
                               "was sent (its CM exchange, frame ", flow.cm_frame, ", starts the requests at PSN ",
                               Psn(*flow.peer_start_psn), ")"));
      }
      return;
    }
    if (!r->response_qp) {
      r->response_qp = p.dest_qp;
    } else if (*r->response_qp != p.dest_qp) {
      Violation(p, "roce.destqp", flow,
                absl::StrFormat("%s for a request of [%s] goes to QP 0x%06x; that QP's earlier responses went to "
                                "QP 0x%06x",
                                p.opcode.name, r->id, p.dest_qp, *r->response_qp));
    } else if (!flow.answers.empty() && flow.answers != r->id) {
      Violation(p, "roce.destqp", flow,
                absl::StrFormat("QP 0x%06x gets responses for requests sent to two QPs ([%s] and [%s])", p.dest_qp,
                                flow.answers, r->id));
    }
    flow.answers = r->id;
    if (r->pkey && *r->pkey != p.pkey && (!flow.pkey || *flow.pkey == p.pkey)) {
      Violation(p, "roce.pkey", flow,
                absl::StrFormat("%s has P_Key 0x%04x, the requests it answers 0x%04x", p.opcode.name, p.pkey, *r->pkey));
    }
    const int64_t u = Unwrap(*r->last_psn, p.psn);
    if (p.opcode.op == IbOp::kReadResponse) {
      CheckPayload(p, flow, *r);
      ReadResponse(p, flow, *r, u);
    }
    const bool terminal = p.opcode.op == IbOp::kAck || p.opcode.op == IbOp::kAtomicAck ||
                          (p.opcode.op == IbOp::kReadResponse && p.opcode.ends_message());
    // An RNR NAK for a READ or an atomic is the one fault: its MSN is not judged as well.
    const bool misplaced_rnr = syndrome_ok && p.syndrome && RnrNakForNoReceive(p, flow, *r, u);
    if (terminal && syndrome_ok && p.syndrome && p.msn && !misplaced_rnr) AckMsn(p, flow, *r, u);
    const bool reliable = r->service == IbService::kRc || r->service == IbService::kXrc;
    if (syndrome_ok && reliable && !misplaced_rnr) recovery_.OnResponse(p, flow.id, r->id, u);
  }

  void RecordFault(const RocePacket& p, const Flow& flow) {
    static const char* const kNakCodes[] = {"PSN sequence error", "invalid request", "remote access error",
                                            "remote operational error", "invalid RD request"};
    const uint32_t kind = *p.syndrome >> 5, code = *p.syndrome & 0x1f;
    if (kind == 1) {
      report_.faults.push_back({p.frame.number, p.frame.time, flow.id, "RNR NAK", absl::StrCat("timer ", code)});
    } else if (kind == 3) {
      report_.faults.push_back(
          {p.frame.number, p.frame.time, flow.id, "NAK", absl::StrCat(kNakCodes[code], " (code ", code, ")")});
    }
  }

  // An RNR NAK says the responder had no receive WQE for the request (IBTA Vol 1 §9.7.5.2.8),
  // so it answers only what consumes one: a SEND or an RDMA WRITE with immediate. One for a
  // READ or an atomic (rxe answers a READ response its host refused to transmit so:
  // rxe_resp.c read_reply() returns RESPST_ERR_RNR when rxe_xmit_packet() fails) is a
  // violation; true when it was one.
  bool RnrNakForNoReceive(const RocePacket& p, const Flow& flow, const Flow& r, int64_t u) {
    if (p.opcode.op != IbOp::kAck || (*p.syndrome >> 5) != 1) return false;
    auto it = r.carried.find(u);
    if (it == r.carried.end()) return false;
    const char* what = it->second == IbOp::kReadRequest ? "an RDMA READ"
                       : it->second == IbOp::kAtomic    ? "an atomic"
                                                        : nullptr;
    if (what == nullptr) return false;
    Violation(p, "roce.rnr_nak", flow,
              absl::StrCat("RNR NAK for ", what, " at PSN ", Psn(u),
                           ": only a SEND or an RDMA WRITE with immediate needs a receive WQE"));
    return true;
  }

  // AETH syndrome (IBTA Vol 1 §9.3): 000 ACK, 001 RNR NAK, 011 NAK with codes 0..4; 010 reserved.
  bool CheckSyndrome(const RocePacket& p, const Flow& flow) {
    const uint32_t s = *p.syndrome, kind = s >> 5, code = s & 0x1f;
    std::string wrong;
    if (kind == 2 || kind > 3) {
      wrong = absl::StrFormat("AETH syndrome 0x%02x is reserved (bits 6:5 = 10)", s);
    } else if (kind == 3 && code > 4) {
      wrong = absl::StrFormat("AETH syndrome 0x%02x: NAK code %d is reserved (0 PSN sequence error .. 4 invalid RD request)",
                              s, code);
    } else if (kind != 0 && (p.opcode.op == IbOp::kReadResponse || p.opcode.op == IbOp::kAtomicAck)) {
      wrong = absl::StrFormat("%s carries syndrome 0x%02x: only an Acknowledge may carry a NAK", p.opcode.name, s);
    }
    if (wrong.empty()) return true;
    Violation(p, "roce.aeth_syndrome", flow, wrong);
    return false;
  }

  void ReadResponse(const RocePacket& p, const Flow& flow, Flow& r, int64_t u) {
    const IbPosition pos = p.opcode.position;
    if (pos == IbPosition::kFirst || pos == IbPosition::kOnly) {
      auto it = r.reads.find(u);
      if (it == r.reads.end()) {
        Violation(p, "roce.read_response", flow,
                  absl::StrCat(p.opcode.name, " at PSN ", Psn(u), " answers no READ request of [", r.id, "]"));
        r.active_read.reset();
        return;
      }
      it->second.next = u;
      it->second.bytes = 0;
      it->second.packets = 0;
      r.active_read = u;
    } else if (r.active_read && u > r.reads.at(*r.active_read).next && u <= r.reads.at(*r.active_read).last) {
      r.reads.at(*r.active_read).lossy = true;  // response packets lost before the capture
    } else if (!r.active_read || r.reads.at(*r.active_read).next != u) {
      if (ReplayFromTheMiddle(p, flow, r, u)) {
        // reported once; its later packets follow it PSN by PSN
      } else {
        Violation(p, "roce.read_response", flow,
                  r.active_read ? absl::StrCat(p.opcode.name, " at PSN ", Psn(u), ", expected PSN ",
                                               Psn(r.reads.at(*r.active_read).next))
                                : absl::StrCat(p.opcode.name, " at PSN ", Psn(u), " without a READ response First"));
        r.active_read.reset();
        return;
      }
    }
    ReadProgress& read = r.reads.at(*r.active_read);
    read.next = u + 1;
    read.bytes += p.payload > 0 ? p.payload : 0;
    ++read.packets;
    if (!p.opcode.ends_message()) return;
    if (read.replay || read.lossy) {  // part of the message: its length is not judged (again)
      read.replay = read.lossy = false;
      r.active_read.reset();
      return;
    }
    if (r.estimated_read && *r.estimated_read == read.last && u < read.last && u >= *r.active_read) {
      TrimRequest(r, read.last, u);
      r.estimated_read.reset();
    }
    const uint32_t mtu = Mtu(r);
    if (read.bytes != read.length) {
      Violation(p, "roce.read_response", flow,
                absl::StrCat("the READ response carried ", read.bytes, " bytes in ", read.packets,
                             " packet(s) for a READ of ", read.length, " bytes"));
    } else if (mtu && read.packets != ReadPackets(read.length, mtu)) {
      Violation(p, "roce.read_response", flow,
                absl::StrCat("the READ response took ", read.packets, " packet(s) for ", read.length,
                             " bytes at path MTU ", mtu, "; expected ", ReadPackets(read.length, mtu)));
    }
    r.active_read.reset();
  }

  // A Middle or Last inside a READ's response PSNs with no First before it: the responder
  // replays a response from the middle (rxe answers a READ re-sent from the middle so). One
  // violation for the replay, not one per packet: its packets are then followed PSN by PSN.
  bool ReplayFromTheMiddle(const RocePacket& p, const Flow& flow, Flow& r, int64_t u) {
    auto it = r.reads.upper_bound(u);
    if (it == r.reads.begin()) return false;
    --it;
    if (u > it->second.last) return false;
    if (it->first != u) {  // no READ was sent from here: the response's head was lost before the capture
      it->second.next = u;
      it->second.lossy = true;
      r.active_read = it->first;
      return true;
    }
    if (!it->second.replay_reported) {  // once per READ request, however the replay interleaves
      Violation(p, "roce.read_response", flow,
                absl::StrCat(p.opcode.name, " at PSN ", Psn(u), " without a READ response First: the response to the "
                             "READ at PSN ", Psn(it->first), " replayed from the middle (reported once per READ)"));
      it->second.replay_reported = true;
    }
    it->second.next = u;
    it->second.replay = true;
    r.active_read = it->first;
    return true;
  }

  // The MSN counts the messages the responder completed: between two ACKs it advances by
  // the messages whose last PSN lies between the two acknowledged PSNs (IBTA Vol 1 §9.7.5.1).
  void AckMsn(const RocePacket& p, const Flow& flow, Flow& r, int64_t u) {
    const uint32_t kind = *p.syndrome >> 5;
    const bool ack = kind == 0;
    const int64_t through = ack ? u : u - 1;  // a NAK names the PSN it could not take
    if (ack && u > r.highest_psn) {
      Violation(p, "roce.ack_msn", flow,
                absl::StrCat(p.opcode.name, " acknowledges PSN ", Psn(u), ", beyond the highest PSN ",
                             Psn(r.highest_psn), " [", r.id, "] sent"));
      return;
    }
    const uint32_t msn = *p.msn;
    if (r.acked) {
      const auto [base, base_msn] = *r.acked;
      if (through > base) {
        int64_t completed = 0;
        for (auto it = r.requests.upper_bound(base); it != r.requests.end() && it->first <= through; ++it) ++completed;
        const uint32_t expected = (base_msn + completed) & (kPsnSpace - 1);
        // After a wrong MSN the count goes on from either: the one seen (the responder lost
        // or gained a count for good) or the one expected (a one-off). One fault, one violation.
        if (msn != expected && r.msn_if_one_off && msn == ((*r.msn_if_one_off + completed) & (kPsnSpace - 1))) {
          r.msn_if_one_off.reset();
          r.acked = {through, msn};
          return;
        }
        if (msn != expected) {
          Violation(p, "roce.ack_msn", flow,
                    absl::StrCat(p.opcode.name, " PSN ", Psn(u), " has MSN ", msn, ", expected ", expected, ": ",
                                 completed, " message(s) end after PSN ", Psn(base), " (MSN ", base_msn, ")"));
          r.msn_if_one_off = expected;
          r.acked = {through, msn};
          return;
        }
        r.msn_if_one_off.reset();
      } else if (through == base ? msn != base_msn : ((msn - base_msn) & (kPsnSpace - 1)) >= kPsnSpace / 2) {
        Violation(p, "roce.ack_msn", flow,
                  absl::StrCat(p.opcode.name, " PSN ", Psn(u), " has MSN ", msn, " after MSN ", base_msn,
                               " for PSN ", Psn(base), ": the MSN does not go back"));
      }
      if (through < base) return;
    }
    r.acked = {through, msn};
  }

  const uint32_t path_mtu_;
  const bool wire_may_reorder_;
  WireReport& report_;
  RoceRecovery recovery_;
  std::map<std::string, Flow> flows_;
  std::map<std::string, Announced> announced_;  // by flow id, for flows not seen yet
  // The last CM REQ from one address to another: its starting PSN, QP number and frame.
  std::map<std::pair<std::string, std::string>, std::tuple<int64_t, uint32_t, int64_t>> reqs_;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> by_direction_;
};

}  // namespace

void CheckRoce(const std::vector<RocePacket>& packets, uint32_t path_mtu, WireReport& report, int retry_cnt,
               bool wire_may_reorder) {
  RoceChecker checker(path_mtu, retry_cnt, wire_may_reorder, report);
  for (const RocePacket& p : packets) checker.Check(p);
  checker.Finish();
}

}  // namespace rdmacheck
