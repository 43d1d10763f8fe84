#include "wire/iwarp_check.h"

#include <deque>
#include <map>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rdmacheck {
namespace {

enum RdmapOpcode : int64_t {
  kWrite = 0, kReadRequest = 1, kReadResponse = 2, kSend = 3, kSendInvalidate = 4, kSendSe = 5,
  kSendSeInvalidate = 6, kTerminate = 7, kImmediate = 8, kImmediateSe = 9, kAtomicRequest = 10, kAtomicResponse = 11,
};

struct Stream {  // one TCP connection
  bool request_seen = false, reply_seen = false, reject = false, crc = false, markers = false, request_crc = false;
  bool undecoded = false;  // data the dissector could not read as FPDUs: MSNs start unseen
  bool initiator_sent = false;  // the initiator's first FPDU was seen
  std::string initiator;
};

struct Queue {  // an untagged queue of one direction
  bool seen = false, open = false;
  uint32_t msn = 0;
  uint32_t next_mo = 0;
};

struct ReadRequest {
  uint32_t sink_stag = 0, size = 0;
  uint64_t sink_to = 0;
  uint64_t bytes = 0;  // answered so far
  int64_t frame = 0;
};

struct Direction {
  size_t summary = 0;
  std::string id;
  std::map<uint32_t, Queue> queues;
  bool write_open = false;
  uint32_t write_stag = 0;
  uint64_t write_next_to = 0;
  std::deque<ReadRequest> reads;  // READ requests this side sent, oldest first
  int64_t terminated_at = 0;      // frame of its TERMINATE
  // A frame cut by the snap length may hide FPDUs after the first: from then on the
  // direction's sequences are picked up again wherever they are seen next.
  bool blind = false;
};

// Legal (layer, error type, error code) of a TERMINATE. Layer 0 RDMAP, 1 DDP, 2 LLP (MPA).
// Type 0 of each layer is a local catastrophic error, whose code RFC 5040 leaves open.
std::string TerminateProblem(int64_t layer, int64_t type, int64_t code) {
  static const std::map<std::pair<int64_t, int64_t>, std::set<int64_t>> kCodes = {
      {{0, 1}, {0x00, 0x01, 0x02, 0x03, 0x04, 0x09, 0xff}},  // RDMAP remote protection error
      {{0, 2}, {0x05, 0x06, 0x07, 0x08, 0x09, 0xff}},        // RDMAP remote operation error
      {{1, 1}, {0x00, 0x01, 0x02, 0x03, 0x04}},              // DDP tagged buffer error
      {{1, 2}, {0x01, 0x02, 0x03, 0x04, 0x05, 0x06}},        // DDP untagged buffer error
      {{2, 0}, {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07}},  // LLP: MPA errors (RFC 5044, RFC 6581)
      // RFC 5040 §4.8 keeps error type 3 for the LLP's use: the hardware iWARP drivers send
      // MPA errors as layer 2, type 3 (cxgb3/cxgb4 LAYER_MPA | DDP_LLP, nes, i40iw, irdma);
      // siw as type 0. Both carry the MPA codes.
      {{2, 3}, {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07}},
  };
  if (layer < 0 || layer > 2) return absl::StrCat("layer ", layer, " is not RDMAP (0), DDP (1) or LLP (2)");
  if (type == 0 && layer != 2) return "";
  auto it = kCodes.find({layer, type});
  if (it == kCodes.end()) return absl::StrCat("error type ", type, " is not defined for layer ", layer);
  if (!it->second.count(code)) {
    return absl::StrFormat("error code 0x%02x is not defined for layer %d, error type %d", code, layer, type);
  }
  return "";
}

// "DDP tagged buffer error, code 0x00".
std::string TerminateText(int64_t layer, int64_t type, int64_t code) {
  static const std::map<std::pair<int64_t, int64_t>, const char*> kTypes = {
      {{0, 0}, "RDMAP local catastrophic error"}, {{0, 1}, "RDMAP remote protection error"},
      {{0, 2}, "RDMAP remote operation error"},   {{1, 0}, "DDP local catastrophic error"},
      {{1, 1}, "DDP tagged buffer error"},        {{1, 2}, "DDP untagged buffer error"},
      {{2, 0}, "LLP (MPA) error"},               {{2, 3}, "LLP (MPA) error"},
  };
  auto it = kTypes.find({layer, type});
  const std::string what =
      it != kTypes.end() ? std::string(it->second) : absl::StrCat("layer ", layer, " error type ", type);
  return absl::StrFormat("%s, code 0x%02x", what, code);
}

class IwarpChecker {
 public:
  explicit IwarpChecker(WireReport& report) : report_(report) {}

  void Check(const IwarpPdu& pdu) {
    Stream& stream = streams_[pdu.stream];
    if (pdu.tcp_retransmission) {  // TCP's copy of bytes already read
      if (stream.request_seen) ++report_.flows[DirectionOf(pdu).summary].retransmissions;
      return;
    }
    if (pdu.kind == IwarpPdu::kMpaRequest) return Request(pdu, stream);
    if (!stream.request_seen) return;  // a TCP connection that is not iWARP
    Direction& dir = DirectionOf(pdu);
    switch (pdu.kind) {
      case IwarpPdu::kMpaReply:
        CountPacket(report_, dir.summary, pdu.frame.number, pdu.frame.time, "MPA Reply");
        ++report_.iwarp_pdus;
        return Reply(pdu, stream, dir);
      case IwarpPdu::kTcpData:
        stream.undecoded = true;
        if (!stream.reply_seen || stream.reject) {
          Violation(pdu, "iwarp.mpa_startup", dir,
                    absl::StrCat(pdu.tcp_len, " bytes of data from ", pdu.src,
                                 stream.reject ? " after the MPA reply rejected the connection"
                                               : " before the MPA reply: no DDP data precedes the MPA exchange"));
        }
        return;
      case IwarpPdu::kFpdu:
        Fpdu(pdu, stream, dir);
        if (pdu.frame.truncated) LoseSync(pdu, dir);
        return;
      default:
        return;
    }
  }

 private:
  Direction& DirectionOf(const IwarpPdu& pdu) { return DirectionOf(pdu.stream, pdu.src, pdu.dst); }

  Direction& DirectionOf(int64_t stream, const std::string& src, const std::string& dst) {
    auto [it, inserted] = directions_.try_emplace({stream, src});
    if (inserted) {
      it->second.id = absl::StrCat("iwarp ", src, " > ", dst);
      it->second.summary = report_.flows.size();
      WireFlow summary;
      summary.id = it->second.id;
      summary.transport = "iwarp";
      summary.src = src;
      summary.dst = dst;
      summary.qp_type = "RC";
      summary.tcp_stream = stream;
      report_.flows.push_back(summary);
    }
    return it->second;
  }

  void LoseSync(const IwarpPdu& pdu, Direction& dir) {
    dir.blind = true;
    for (auto& [qn, q] : dir.queues) q = Queue();
    dir.write_open = false;
    dir.reads.clear();
    Direction& peer = DirectionOf(pdu.stream, pdu.dst, pdu.src);
    peer.blind = true;
    peer.reads.clear();
  }

  void Violation(const IwarpPdu& pdu, absl::string_view rule, const Direction& dir, std::string message) {
    AddViolation(report_, pdu.frame.number, pdu.frame.time, rule, dir.id, std::move(message));
  }

  // Revision, reserved bits and private data of an MPA request or reply.
  std::string MpaFrameProblem(const IwarpPdu& pdu) {
    if (pdu.rev != 1 && pdu.rev != 2) return absl::StrCat("revision ", pdu.rev, " (1: RFC 5044, 2: RFC 6581)");
    // Revision 2 names the first reserved bit P, enhanced connection setup (RFC 6581 §3).
    const int64_t reserved = pdu.rev == 2 ? pdu.reserved & ~int64_t{0x10} : pdu.reserved;
    if (reserved != 0) return absl::StrFormat("reserved bits 0x%02x (must be 0)", reserved);
    if (pdu.pd_length > 512) return absl::StrCat("private data length ", pdu.pd_length, " (at most 512)");
    if (pdu.pd_present >= 0 && pdu.pd_present != pdu.pd_length) {
      return absl::StrCat("private data length ", pdu.pd_length, ", but ", pdu.pd_present, " bytes follow the header");
    }
    return "";
  }

  void Request(const IwarpPdu& pdu, Stream& stream) {
    stream = Stream();
    stream.request_seen = true;
    stream.initiator = pdu.src;
    stream.request_crc = pdu.crc;
    Direction& dir = DirectionOf(pdu);
    CountPacket(report_, dir.summary, pdu.frame.number, pdu.frame.time, "MPA Request");
    ++report_.iwarp_pdus;
    if (std::string problem = MpaFrameProblem(pdu); !problem.empty()) {
      Violation(pdu, "iwarp.mpa_startup", dir, "MPA request: " + problem);
    }
  }

  void Reply(const IwarpPdu& pdu, Stream& stream, const Direction& dir) {
    std::string problem = MpaFrameProblem(pdu);
    if (stream.reply_seen) {
      problem = "a second reply on the connection";
    } else if (pdu.src == stream.initiator) {
      problem = "the reply comes from the initiator";
    } else if (stream.request_crc && !pdu.crc) {
      problem = "the request asked for CRCs (C=1) and the reply turns them off (C=0)";
    }
    if (!problem.empty()) Violation(pdu, "iwarp.mpa_startup", dir, "MPA reply: " + problem);
    stream.reply_seen = true;
    stream.reject = pdu.reject;
    stream.crc = pdu.crc;
    stream.markers = pdu.marker;
  }

  void Fpdu(const IwarpPdu& pdu, Stream& stream, Direction& dir) {
    CountPacket(report_, dir.summary, pdu.frame.number, pdu.frame.time,
                pdu.ddp_decoded ? RdmapOpcodeName(pdu.rdmap_opcode) : "FPDU (undecoded)");
    ++report_.iwarp_pdus;
    if (!stream.reply_seen || stream.reject) {
      Violation(pdu, "iwarp.mpa_startup", dir,
                stream.reject ? "FPDU after the MPA reply rejected the connection" : "FPDU before the MPA reply");
    } else if (pdu.src == stream.initiator) {
      stream.initiator_sent = true;
    } else if (!stream.initiator_sent && !stream.undecoded) {
      // RFC 5044 §7 (connection setup): the responder sends no FPDU before it received one; RFC 6581's
      // ready-to-receive message is how an initiator with nothing to send gives it one.
      Violation(pdu, "iwarp.mpa_startup", dir,
                absl::StrCat("the responder's FPDU comes before the initiator's first FPDU (", stream.initiator,
                             " sends first)"));
      stream.initiator_sent = true;  // one violation per connection
    }
    if (stream.crc && !stream.markers) {
      if (pdu.fpdu_crc == CrcCheck::kUnchecked) {
        ++report_.crc_unchecked;
      } else {
        ++report_.crc_checked;
        if (pdu.fpdu_crc == CrcCheck::kBad) Violation(pdu, "iwarp.mpa_crc", dir, "the FPDU's CRC32c does not match it");
      }
    }
    if (!pdu.ddp_decoded) {
      ++report_.iwarp_undecoded;
      return;
    }
    if (dir.terminated_at) {
      Violation(pdu, "iwarp.terminate", dir,
                absl::StrCat(RdmapOpcodeName(pdu.rdmap_opcode), " after this side's TERMINATE (frame ",
                             dir.terminated_at, ")"));
    }
    if (std::string problem = OpcodeProblem(pdu); !problem.empty()) {
      Violation(pdu, "iwarp.ddp_rdmap_opcode", dir, problem);
      return;
    }
    if (!pdu.tagged) {
      Untagged(pdu, stream, dir);
    } else if (pdu.rdmap_opcode == kWrite) {
      TaggedWrite(pdu, dir);
    } else {
      ReadResponse(pdu, dir);
    }
  }

  static std::string OpcodeProblem(const IwarpPdu& pdu) {
    if (pdu.ddp_version != 1) return absl::StrCat("DDP version ", pdu.ddp_version, " (RFC 5041: 1)");
    if (pdu.rdmap_version != 1) return absl::StrCat("RDMAP version ", pdu.rdmap_version, " (RFC 5040: 1)");
    if (pdu.ddp_reserved != 0) return absl::StrCat("DDP reserved bits ", pdu.ddp_reserved, " (must be 0)");
    const int64_t op = pdu.rdmap_opcode;
    if (op < 0 || op > kAtomicResponse) return absl::StrCat("RDMAP opcode ", op, " is reserved");
    const std::string name = RdmapOpcodeName(op);
    const bool tagged = op == kWrite || op == kReadResponse;
    if (pdu.tagged != tagged) {
      return absl::StrCat(name, " in a ", pdu.tagged ? "tagged" : "untagged", " DDP segment (it is ",
                          tagged ? "tagged" : "untagged", ")");
    }
    if (tagged) return "";
    int64_t queue = -1;  // RFC 5040 §4: Send* on 0, Read Request on 1, Terminate on 2
    if ((op >= kSend && op <= kSendSeInvalidate) || op == kImmediate || op == kImmediateSe) queue = 0;
    if (op == kReadRequest) queue = 1;
    if (op == kTerminate) queue = 2;
    if (queue >= 0 && pdu.qn != queue) return absl::StrCat(name, " on untagged queue ", pdu.qn, " (it belongs on ", queue, ")");
    if ((op == kReadRequest || op == kTerminate) && !pdu.last) return absl::StrCat(name, " is one segment, Last set");
    return "";
  }

  void Untagged(const IwarpPdu& pdu, const Stream& stream, Direction& dir) {
    Queue& q = dir.queues[pdu.qn];
    const uint32_t payload = pdu.segment_payload > 0 ? pdu.segment_payload : 0;
    std::string problem;
    if (!q.seen) {
      if (dir.blind) {
        // picked up again after a cut frame: anything goes for this segment
      } else if (!stream.undecoded && pdu.msn != 1) {
        problem = absl::StrCat("first message on queue ", pdu.qn, " has MSN ", pdu.msn, ", expected 1");
      } else if (pdu.mo != 0) {
        problem = absl::StrCat("MO ", pdu.mo, " on the first segment of a message, expected 0");
      }
    } else if (q.open) {
      if (pdu.msn != q.msn) problem = absl::StrCat("MSN ", pdu.msn, " while message ", q.msn, " is open (no Last yet)");
      else if (pdu.mo != q.next_mo) problem = absl::StrCat("MO ", pdu.mo, ", expected ", q.next_mo, " (the bytes sent before in message ", q.msn, ")");
    } else if (pdu.msn != q.msn + 1) {
      problem = absl::StrCat("MSN ", pdu.msn, " on queue ", pdu.qn, ", expected ", q.msn + 1);
    } else if (pdu.mo != 0) {
      problem = absl::StrCat("MO ", pdu.mo, " on the first segment of message ", pdu.msn, ", expected 0");
    }
    if (!problem.empty()) Violation(pdu, "iwarp.untagged_msn_mo", dir, problem);
    q.seen = true;
    q.msn = pdu.msn;
    q.next_mo = pdu.mo + payload;
    q.open = !pdu.last;
    if (pdu.rdmap_opcode == kReadRequest) {
      dir.reads.push_back({pdu.sink_stag, pdu.read_size, pdu.sink_to, 0, pdu.frame.number});
    } else if (pdu.rdmap_opcode == kTerminate) {
      dir.terminated_at = pdu.frame.number;
      report_.faults.push_back({pdu.frame.number, pdu.frame.time, dir.id, "TERMINATE",
                                TerminateText(pdu.term_layer, pdu.term_etype, pdu.term_code)});
      std::string bad = TerminateProblem(pdu.term_layer, pdu.term_etype, pdu.term_code);
      if (bad.empty() && pdu.term_reserved != 0) {
        bad = absl::StrFormat("reserved bits 0x%04x set in the Terminate control", pdu.term_reserved);
      }
      if (!bad.empty()) Violation(pdu, "iwarp.terminate", dir, "TERMINATE: " + bad);
    }
  }

  void TaggedWrite(const IwarpPdu& pdu, Direction& dir) {
    const uint64_t payload = pdu.segment_payload > 0 ? pdu.segment_payload : 0;
    if (dir.write_open && (pdu.stag != dir.write_stag || pdu.tagged_offset != dir.write_next_to)) {
      Violation(pdu, "iwarp.tagged_write", dir,
                absl::StrFormat("RDMA Write segment at STag 0x%08x TO 0x%x; the message continues at STag 0x%08x "
                                "TO 0x%x",
                                pdu.stag, pdu.tagged_offset, dir.write_stag, dir.write_next_to));
    }
    dir.write_open = !pdu.last;
    dir.write_stag = pdu.stag;
    dir.write_next_to = pdu.tagged_offset + payload;
  }

  void ReadResponse(const IwarpPdu& pdu, Direction& dir) {
    Direction& requester = DirectionOf(pdu.stream, pdu.dst, pdu.src);
    if (requester.reads.empty()) {
      if (!dir.blind) Violation(pdu, "iwarp.read_response", dir, "Read Response with no outstanding Read Request");
      return;
    }
    ReadRequest& read = requester.reads.front();
    const uint64_t payload = pdu.segment_payload > 0 ? pdu.segment_payload : 0;
    std::string problem;
    if (pdu.stag != read.sink_stag) {
      problem = absl::StrFormat("STag 0x%08x, the Read Request (frame %d) named sink STag 0x%08x", pdu.stag, read.frame,
                                read.sink_stag);
    } else if (pdu.tagged_offset < read.sink_to || pdu.tagged_offset + payload > read.sink_to + read.size) {
      problem = absl::StrFormat("bytes [0x%x, 0x%x) outside the sink [0x%x, 0x%x) of the Read Request (frame %d)",
                                pdu.tagged_offset, pdu.tagged_offset + payload, read.sink_to,
                                read.sink_to + read.size, read.frame);
    } else if (pdu.tagged_offset != read.sink_to + read.bytes) {
      problem = absl::StrFormat("TO 0x%x, expected 0x%x (the response continues where it stopped)", pdu.tagged_offset,
                                read.sink_to + read.bytes);
    }
    read.bytes += payload;
    if (problem.empty() && pdu.last && read.bytes != read.size) {
      problem = absl::StrCat("the Read Response carried ", read.bytes, " bytes, the Read Request (frame ", read.frame,
                             ") asked for ", read.size);
    }
    if (!problem.empty()) Violation(pdu, "iwarp.read_response", dir, problem);
    if (pdu.last) requester.reads.pop_front();
  }

  WireReport& report_;
  std::map<int64_t, Stream> streams_;
  std::map<std::pair<int64_t, std::string>, Direction> directions_;
};

}  // namespace

std::string RdmapOpcodeName(int64_t opcode) {
  static const char* const kNames[] = {"RDMA Write", "RDMA Read Request", "RDMA Read Response", "Send",
                                       "Send with Invalidate", "Send with SE", "Send with SE and Invalidate",
                                       "Terminate", "Immediate Data", "Immediate Data with SE", "Atomic Request",
                                       "Atomic Response"};
  if (opcode >= 0 && opcode <= kAtomicResponse) return kNames[opcode];
  return absl::StrCat("opcode ", opcode);
}

void CheckIwarp(const std::vector<IwarpPdu>& pdus, WireReport& report) {
  IwarpChecker checker(report);
  for (const IwarpPdu& pdu : pdus) checker.Check(pdu);
}

}  // namespace rdmacheck
