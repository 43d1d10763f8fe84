// The packets of a capture as the rules read them, decoded from tshark's fields (the
// dissectors do the parsing; this only picks the fields and computes the two CRCs, which
// Wireshark 4.0 does not verify for RoCEv2 and reports only as text for MPA).
//
// Which packets carry an InfiniBand transport (BTH) is decided by where the BTH sits, from
// the frame's protocol chain (frame.protocols), never by tshark's port guesses alone:
//   RoCEv2       UDP destination port 4791 with a BTH right after the UDP header — also when
//                tshark named the payload after the *source* port (e.g. 69, TFTP): then the
//                BTH is read from the UDP payload's first bytes (IbLink counts those);
//                or a BTH tshark found after a UDP header from source port 4791 (a packet
//                sent to the wrong port: roce.udp_port)
//   RoCEv1       Ethernet type 0x8915: GRH + BTH
//   InfiniBand   a native capture (ibdump, ERF): LRH [+ GRH] + BTH. IP over InfiniBand
//                inside it is the payload of a UD or RC SEND, never RoCE.
// In a VXLAN/Geneve tunnel the inner IP and UDP headers are the RoCEv2 ones.
#ifndef RDMACHECK_WIRE_PACKETS_H_
#define RDMACHECK_WIRE_PACKETS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "wire/ib_opcodes.h"

namespace rdmacheck {

enum class CrcCheck { kGood, kBad, kUnchecked };

struct FrameInfo {
  int64_t number = 0;
  double time = 0;         // seconds since the epoch
  bool truncated = false;  // frame.cap_len < frame.len
};

// How a packet with a BTH reached the capture.
enum class IbLink { kRoceV2, kRoceV1, kInfiniBand };
const char* IbLinkName(IbLink link);  // "RoCEv2", "RoCEv1", "InfiniBand"

// A connection management message (IBTA Vol 1 §12.6, MADs on QP1): REQ and REP carry the
// sender's QP number and the PSN its requests start at; DREQ begins the disconnect.
struct CmMessage {
  enum Kind { kReq, kRep, kDreq };
  Kind kind = kReq;
  uint32_t local_qpn = 0;
  uint32_t start_psn = 0;
};

struct RocePacket {
  FrameInfo frame;
  IbLink link = IbLink::kRoceV2;
  bool bth_from_bytes = false;  // RoCEv2 tshark decoded as another protocol: BTH read from the bytes
  std::string src, dst;  // IP addresses; RoCEv1: GIDs; InfiniBand: "lid N"
  uint32_t sport = 0, dport = 0;
  IbOpcode opcode;
  bool ack_req = false;
  uint32_t pkey = 0;
  uint32_t dest_qp = 0;
  uint32_t psn = 0;
  int64_t payload = -1;  // bytes, from the UDP length and the opcode's headers; -1 unknown
  std::optional<uint32_t> dma_length;  // RETH
  std::optional<uint32_t> syndrome, msn;  // AETH
  // What the recovery rules compare (wire/roce_recovery.h), read from the packet's bytes
  // (RoCEv2; unset when the capture cut the packet): a hash of everything after the BTH up
  // to the ICRC (extended headers, payload, pad), and an Atomic ACK's original remote data.
  std::optional<uint64_t> content_hash;
  std::optional<uint64_t> atomic_original;  // AtomicAckETH (IBTA Vol 1 §9.3)
  CrcCheck icrc = CrcCheck::kUnchecked;
  uint32_t icrc_sent = 0, icrc_computed = 0;
  std::optional<CmMessage> cm;  // a CM MAD tshark decoded (UD SEND to QP1)
};

struct IwarpPdu {
  enum Kind { kMpaRequest, kMpaReply, kFpdu, kTcpData };
  FrameInfo frame;
  Kind kind = kTcpData;
  int64_t stream = -1;   // tcp.stream
  std::string src, dst;  // "ip:port"
  bool tcp_retransmission = false;  // a TCP-level copy: the rules read the first one
  int64_t tcp_len = 0;
  // MPA request / reply (RFC 5044 §7)
  bool marker = false, crc = false, reject = false;
  int64_t rev = -1, reserved = 0, pd_length = -1, pd_present = -1;
  // FPDU
  int64_t ulpdu_length = -1;
  CrcCheck fpdu_crc = CrcCheck::kUnchecked;
  bool ddp_decoded = false;
  bool tagged = false, last = false;
  int64_t ddp_version = -1, ddp_reserved = 0;
  uint32_t stag = 0;
  uint64_t tagged_offset = 0;
  uint32_t qn = 0, msn = 0, mo = 0;
  int64_t rdmap_version = -1;
  int64_t rdmap_opcode = -1;
  int64_t segment_payload = -1;  // DDP payload bytes of this segment
  // RDMA Read Request (RFC 5040 §4)
  uint32_t sink_stag = 0, read_size = 0;
  uint64_t sink_to = 0;
  // Terminate
  int64_t term_layer = -1, term_etype = -1, term_code = -1, term_reserved = 0;
};

struct CapturePackets {
  int64_t frames = 0;
  int64_t truncated = 0;
  int64_t roce_undecoded = 0;  // UDP to port 4791 that tshark did not decode as InfiniBand
  std::vector<RocePacket> roce;
  std::vector<IwarpPdu> iwarp;
};

// Adds what one tshark EK packet ("layers") holds.
void DecodePacket(const nlohmann::json& layers, CapturePackets& out);

// The RoCEv2 ICRC of a packet: the IP and UDP headers as sent (masked here), then the
// InfiniBand part without its ICRC (IBTA Annex A17.8). Exposed for the unit tests.
uint32_t RoceIcrc(const std::string& masked_ip_udp, const std::string& ib_without_icrc);

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_PACKETS_H_
