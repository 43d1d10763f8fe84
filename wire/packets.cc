#include "wire/packets.h"

#include <arpa/inet.h>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "wire/crc.h"
#include "wire/ek_fields.h"

namespace rdmacheck {
namespace {

void Put16(std::string& s, size_t at, uint64_t v) {
  s[at] = static_cast<char>((v >> 8) & 0xff);
  s[at + 1] = static_cast<char>(v & 0xff);
}

uint32_t LittleEndian32(const std::string& s, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

std::optional<EkLayer> First(const nlohmann::json& layers, const std::string& name) {
  std::vector<EkLayer> all = LayerInstances(layers, name);
  if (all.empty()) return std::nullopt;
  return all.front();
}

// Writes the layer's source and destination addresses (`family`) into h at `at`.
bool PutAddresses(int family, const EkLayer& ip, const std::string& layer, std::string& h, size_t at) {
  const size_t size = family == AF_INET ? 4 : 16;
  for (const char* which : {".src", ".dst"}) {
    unsigned char address[16];
    if (inet_pton(family, ip.Text(layer + which).value_or("").c_str(), address) != 1) return false;
    h.replace(at, size, reinterpret_cast<const char*>(address), size);
    at += size;
  }
  return true;
}

// The IP and UDP headers as IBTA A17.8 feeds them to the ICRC: TOS/traffic class, TTL/hop
// limit, IPv4 checksum, IPv6 flow label and the UDP checksum all ones. Rebuilt from the
// dissected fields; nullopt for what the ICRC check does not handle (IPv4 options, fragments).
std::optional<std::string> MaskedIpUdp(const nlohmann::json& layers, const EkLayer& udp) {
  std::string h;
  if (std::optional<EkLayer> ip = First(layers, "ip")) {
    if (ip->NumberOr("ip.hdr_len", 0) != 20 || ip->NumberOr("ip.frag_offset", 1) != 0) return std::nullopt;
    h.assign(20, '\xff');
    h[0] = 0x45;
    Put16(h, 2, ip->NumberOr("ip.len", 0));
    Put16(h, 4, ip->NumberOr("ip.id", 0));
    Put16(h, 6, ip->NumberOr("ip.flags", 0) << 13);
    h[9] = static_cast<char>(ip->NumberOr("ip.proto", 17));
    if (!PutAddresses(AF_INET, *ip, "ip", h, 12)) return std::nullopt;
  } else if (std::optional<EkLayer> ip6 = First(layers, "ipv6")) {
    h.assign(40, '\xff');
    h[0] = 0x6f;
    Put16(h, 4, ip6->NumberOr("ipv6.plen", 0));
    h[6] = static_cast<char>(ip6->NumberOr("ipv6.nxt", 17));
    if (!PutAddresses(AF_INET6, *ip6, "ipv6", h, 8)) return std::nullopt;
  } else {
    return std::nullopt;
  }
  std::string u(8, '\xff');
  Put16(u, 0, udp.NumberOr("udp.srcport", 0));
  Put16(u, 2, udp.NumberOr("udp.dstport", 0));
  Put16(u, 4, udp.NumberOr("udp.length", 0));
  return h + u;
}

std::pair<std::string, std::string> Addresses(const nlohmann::json& layers) {
  if (std::optional<EkLayer> ip = First(layers, "ip")) {
    return {ip->Text("ip.src").value_or("?"), ip->Text("ip.dst").value_or("?")};
  }
  if (std::optional<EkLayer> ip6 = First(layers, "ipv6")) {
    return {ip6->Text("ipv6.src").value_or("?"), ip6->Text("ipv6.dst").value_or("?")};
  }
  return {"?", "?"};
}

void DecodeRoce(const nlohmann::json& layers, const FrameInfo& frame, const EkLayer& udp, const EkLayer& ib,
                CapturePackets& out) {
  std::optional<uint64_t> opcode = ib.Number("infiniband.bth.opcode");
  if (!opcode) return;  // not even a BTH: nothing the rules can read
  RocePacket p;
  p.frame = frame;
  std::tie(p.src, p.dst) = Addresses(layers);
  p.sport = udp.NumberOr("udp.srcport", 0);
  p.dport = udp.NumberOr("udp.dstport", 0);
  p.opcode = DescribeOpcode(static_cast<uint8_t>(*opcode));
  p.ack_req = ib.Flag("infiniband.bth.a");
  p.pkey = ib.NumberOr("infiniband.bth.p_key", 0);
  p.dest_qp = ib.NumberOr("infiniband.bth.destqp", 0);
  p.psn = ib.NumberOr("infiniband.bth.psn", 0);
  const int64_t udp_length = udp.NumberOr("udp.length", 0);
  const int64_t payload =
      udp_length - 8 - 12 - p.opcode.header_bytes - static_cast<int64_t>(ib.NumberOr("infiniband.bth.padcnt", 0)) - 4;
  p.payload = payload >= 0 ? payload : -1;
  if (std::optional<uint64_t> len = ib.Number("infiniband.reth.dmalen")) p.dma_length = *len;
  if (std::optional<uint64_t> syndrome = ib.Number("infiniband.aeth.syndrome")) {
    p.syndrome = *syndrome;
    p.msn = ib.NumberOr("infiniband.aeth.msn", 0);
  }
  std::optional<std::string> bytes = udp.Bytes("udp.payload");
  std::optional<std::string> masked = MaskedIpUdp(layers, udp);
  if (!frame.truncated && bytes && masked && static_cast<int64_t>(bytes->size()) == udp_length - 8 &&
      bytes->size() >= 16) {
    std::string ib_bytes = bytes->substr(0, bytes->size() - 4);
    p.icrc_sent = LittleEndian32(*bytes, bytes->size() - 4);
    p.icrc_computed = RoceIcrc(*masked, ib_bytes);
    p.icrc = p.icrc_sent == p.icrc_computed ? CrcCheck::kGood : CrcCheck::kBad;
  }
  out.roce.push_back(std::move(p));
}

void DecodeMpaFrame(const EkLayer& mpa, IwarpPdu& pdu) {
  pdu.marker = mpa.Flag("iwarp_mpa.marker_flag");
  pdu.crc = mpa.Flag("iwarp_mpa.crc_flag");
  pdu.reject = mpa.Flag("iwarp_mpa.rej_flag");
  pdu.rev = mpa.NumberOr("iwarp_mpa.rev", 0);
  pdu.reserved = mpa.NumberOr("iwarp_mpa.res", 0);
  pdu.pd_length = mpa.NumberOr("iwarp_mpa.pdlength", 0);
  pdu.pd_present = pdu.frame.truncated ? -1 : pdu.tcp_len - 20;
}

std::optional<int64_t> FirstNumber(const EkLayer& layer, std::initializer_list<const char*> fields) {
  for (const char* f : fields) {
    if (std::optional<uint64_t> n = layer.Number(f)) return static_cast<int64_t>(*n);
  }
  return std::nullopt;
}

void DecodeDdp(const EkLayer& ddp, IwarpPdu& pdu) {
  pdu.ddp_decoded = ddp.Has("iwarp_ddp.dv");
  pdu.tagged = ddp.Flag("iwarp_ddp.tagged_flag");
  pdu.last = ddp.Flag("iwarp_ddp.last_flag");
  pdu.ddp_version = ddp.NumberOr("iwarp_ddp.dv", 0);
  pdu.ddp_reserved = ddp.NumberOr("iwarp_ddp.rsvd", 0);
  pdu.stag = ddp.NumberOr("iwarp_ddp.stag", 0);
  pdu.tagged_offset = ddp.NumberOr("iwarp_ddp.tagged_offset", 0);
  pdu.qn = ddp.NumberOr("iwarp_ddp.qn", 0);
  pdu.msn = ddp.NumberOr("iwarp_ddp.msn", 0);
  pdu.mo = ddp.NumberOr("iwarp_ddp.mo", 0);
  pdu.rdmap_version = ddp.NumberOr("iwarp_rdma.version", 0);
  pdu.rdmap_opcode = static_cast<int64_t>(ddp.NumberOr("iwarp_rdma.opcode", 0xff));
  // Tagged header: DDP control, RDMAP control, STag, TO; untagged: control, RsvdULP, QN, MSN, MO.
  pdu.segment_payload = pdu.ulpdu_length - (pdu.tagged ? 14 : 18);
  pdu.sink_stag = ddp.NumberOr("iwarp_rdma.sinkstag", 0);
  pdu.sink_to = ddp.NumberOr("iwarp_rdma.sinkto", 0);
  pdu.read_size = ddp.NumberOr("iwarp_rdma.rdmardsz", 0);
  if (ddp.Has("iwarp_rdma.term_layer")) {
    pdu.term_layer = ddp.NumberOr("iwarp_rdma.term_layer", 0);
    pdu.term_etype = FirstNumber(ddp, {"iwarp_rdma.term_etype_rdma", "iwarp_rdma.term_etype_ddp",
                                       "iwarp_rdma.term_etype_llp", "iwarp_rdma.term_etype"})
                         .value_or(-1);
    pdu.term_code = FirstNumber(ddp, {"iwarp_rdma.term_errcode_rdma", "iwarp_rdma.term_errcode_ddp_tagged",
                                      "iwarp_rdma.term_errcode_ddp_untagged", "iwarp_rdma.term_errcode_llp",
                                      "iwarp_rdma.term_errcode"})
                        .value_or(-1);
    pdu.term_reserved = ddp.NumberOr("iwarp_rdma.term_rsvd", 0);
  }
}

// Bytes of an FPDU on the wire: length field, ULPDU, pad to 4, CRC (RFC 5044 §4, no markers).
size_t FpduSize(int64_t ulpdu_length) { return ((2 + ulpdu_length + 3) / 4) * 4 + 4; }

void DecodeIwarp(const nlohmann::json& layers, const FrameInfo& frame, const EkLayer& tcp, CapturePackets& out) {
  IwarpPdu base;
  base.frame = frame;
  auto [src, dst] = Addresses(layers);
  base.src = absl::StrCat(src, ":", tcp.NumberOr("tcp.srcport", 0));
  base.dst = absl::StrCat(dst, ":", tcp.NumberOr("tcp.dstport", 0));
  base.stream = tcp.NumberOr("tcp.stream", 0);
  base.tcp_len = tcp.NumberOr("tcp.len", 0);
  base.tcp_retransmission = tcp.HasExpert("tcp.analysis.retransmission") ||
                            tcp.HasExpert("tcp.analysis.fast_retransmission") ||
                            tcp.HasExpert("tcp.analysis.spurious_retransmission");
  std::vector<EkLayer> mpa = LayerInstances(layers, "iwarp_mpa");
  if (mpa.empty()) {
    if (base.tcp_len > 0) out.iwarp.push_back(base);
    return;
  }
  std::vector<EkLayer> ddp = LayerInstances(layers, "iwarp_ddp_rdmap");
  std::optional<std::string> payload = tcp.Bytes("tcp.payload");
  // The FPDUs' CRCs are checked when the segment holds whole FPDUs from its first byte to
  // its last (an FPDU the dissector put together from two segments is not checked).
  size_t total = 0;
  for (const EkLayer& m : mpa) total += FpduSize(m.NumberOr("iwarp_mpa.ulpdulength", 0));
  size_t offset = 0;
  bool aligned = payload.has_value() && !frame.truncated && total == payload->size();
  size_t next_ddp = 0;
  for (const EkLayer& m : mpa) {
    IwarpPdu pdu = base;
    if (m.Has("iwarp_mpa.req") || m.Has("iwarp_mpa.rep")) {
      pdu.kind = m.Has("iwarp_mpa.req") ? IwarpPdu::kMpaRequest : IwarpPdu::kMpaReply;
      DecodeMpaFrame(m, pdu);
      aligned = false;
      out.iwarp.push_back(pdu);
      continue;
    }
    pdu.kind = IwarpPdu::kFpdu;
    pdu.ulpdu_length = m.NumberOr("iwarp_mpa.ulpdulength", 0);
    const size_t size = FpduSize(pdu.ulpdu_length);
    if (aligned && offset + size <= payload->size() && !m.Has("iwarp_mpa.markers")) {
      pdu.fpdu_crc = Crc32c(absl::string_view(*payload).substr(offset, size - 4)) ==
                             LittleEndian32(*payload, offset + size - 4)
                         ? CrcCheck::kGood
                         : CrcCheck::kBad;
    }
    offset += size;
    if (next_ddp < ddp.size()) DecodeDdp(ddp[next_ddp++], pdu);
    out.iwarp.push_back(pdu);
  }
}

}  // namespace

uint32_t RoceIcrc(const std::string& masked_ip_udp, const std::string& ib_without_icrc) {
  std::string b = std::string(8, '\xff') + masked_ip_udp + ib_without_icrc;
  b[8 + masked_ip_udp.size() + 4] = '\xff';  // BTH Resv8a
  return Crc32(b);
}

void DecodePacket(const nlohmann::json& layers, CapturePackets& out) {
  FrameInfo frame;
  if (std::optional<EkLayer> f = First(layers, "frame")) {
    frame.number = f->NumberOr("frame.number", 0);
    absl::SimpleAtod(f->Text("frame.time_epoch").value_or("0"), &frame.time);
    frame.truncated = f->NumberOr("frame.cap_len", 0) < f->NumberOr("frame.len", 0);
  }
  ++out.frames;
  if (frame.truncated) ++out.truncated;
  // An ICMP error quotes the head of the packet it answers: not a packet on the wire.
  if (layers.contains("icmp") || layers.contains("icmpv6")) return;
  std::optional<EkLayer> udp = First(layers, "udp");
  std::optional<EkLayer> ib = First(layers, "infiniband");
  if (udp && ib) {
    DecodeRoce(layers, frame, *udp, *ib, out);
  } else if (std::optional<EkLayer> tcp = First(layers, "tcp")) {
    DecodeIwarp(layers, frame, *tcp, out);
  }
}

}  // namespace rdmacheck
