#include "wire/packets.h"

#include <arpa/inet.h>

#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/strings/str_cat.h"
#include "wire/crc.h"
#include "wire/ek_fields.h"

namespace rdmacheck {
namespace {

constexpr uint64_t kRoceV2Port = 4791;  // IBTA Annex A17.2.1 (UDP destination port)

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
std::optional<std::string> MaskedIpUdp(const std::optional<EkLayer>& ip, bool ipv6, const EkLayer& udp) {
  if (!ip) return std::nullopt;
  std::string h;
  if (!ipv6) {
    if (ip->NumberOr("ip.hdr_len", 0) != 20 || ip->NumberOr("ip.frag_offset", 1) != 0) return std::nullopt;
    h.assign(20, '\xff');
    h[0] = 0x45;
    Put16(h, 2, ip->NumberOr("ip.len", 0));
    Put16(h, 4, ip->NumberOr("ip.id", 0));
    Put16(h, 6, ip->NumberOr("ip.flags", 0) << 13);
    h[9] = static_cast<char>(ip->NumberOr("ip.proto", 17));
    if (!PutAddresses(AF_INET, *ip, "ip", h, 12)) return std::nullopt;
  } else {
    h.assign(40, '\xff');
    h[0] = 0x6f;
    Put16(h, 4, ip->NumberOr("ipv6.plen", 0));
    h[6] = static_cast<char>(ip->NumberOr("ipv6.nxt", 17));
    if (!PutAddresses(AF_INET6, *ip, "ipv6", h, 8)) return std::nullopt;
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

// The frame's protocol chain ("eth:ethertype:ip:udp:infiniband") and, per position, which
// instance of that layer it is in the EK layers (a tunnelled packet has two "ip" and "udp").
struct Chain {
  std::vector<std::string> names;
  std::vector<size_t> instance;

  explicit Chain(const std::string& protocols) {
    std::map<std::string, size_t> seen;
    for (absl::string_view name : absl::StrSplit(protocols, ':', absl::SkipEmpty())) {
      names.emplace_back(name);
      instance.push_back(seen[std::string(name)]++);
    }
  }
  std::optional<size_t> Find(absl::string_view name, size_t from = 0) const {
    for (size_t i = from; i < names.size(); ++i) {
      if (names[i] == name) return i;
    }
    return std::nullopt;
  }
  bool Before(absl::string_view name, size_t at) const {
    std::optional<size_t> i = Find(name);
    return i && *i < at;
  }
  std::optional<EkLayer> Layer(const nlohmann::json& layers, size_t at) const {
    std::vector<EkLayer> all = LayerInstances(layers, names[at]);
    if (instance[at] >= all.size()) return std::nullopt;
    return all[instance[at]];
  }
};

uint32_t BigEndian(absl::string_view s, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

// What the rules read of the BTH and of the AETH and RETH behind it.
struct Bth {
  uint8_t opcode = 0;
  bool ack_req = false;
  uint32_t pad = 0, pkey = 0, dest_qp = 0, psn = 0;
  std::optional<uint32_t> dma_length, syndrome, msn;
};

std::optional<Bth> BthFromFields(const EkLayer& ib) {
  std::optional<uint64_t> opcode = ib.Number("infiniband.bth.opcode");
  if (!opcode) return std::nullopt;  // not even a BTH: nothing the rules can read
  Bth h;
  h.opcode = static_cast<uint8_t>(*opcode);
  h.ack_req = ib.Flag("infiniband.bth.a");
  h.pad = ib.NumberOr("infiniband.bth.padcnt", 0);
  h.pkey = ib.NumberOr("infiniband.bth.p_key", 0);
  h.dest_qp = ib.NumberOr("infiniband.bth.destqp", 0);
  h.psn = ib.NumberOr("infiniband.bth.psn", 0);
  if (std::optional<uint64_t> len = ib.Number("infiniband.reth.dmalen")) h.dma_length = *len;
  if (std::optional<uint64_t> syndrome = ib.Number("infiniband.aeth.syndrome")) {
    h.syndrome = *syndrome;
    h.msn = ib.NumberOr("infiniband.aeth.msn", 0);
  }
  return h;
}

// The same, read from the UDP payload of a RoCEv2 packet tshark decoded as something else:
// fixed offsets (IBTA Vol 1 §9.2 BTH, §9.3.2 RETH, §9.3.5 AETH; XRC puts its XRCETH first).
// nullopt when the bytes cannot be a BTH (fewer than 12, or a transport version not 0).
std::optional<Bth> BthFromBytes(absl::string_view b) {
  if (b.size() < 12 || (b[1] & 0x0f) != 0) return std::nullopt;
  Bth h;
  h.opcode = static_cast<uint8_t>(b[0]);
  h.pad = (static_cast<unsigned char>(b[1]) >> 4) & 3;
  h.pkey = BigEndian(b, 2, 2);
  h.dest_qp = BigEndian(b, 5, 3);
  h.ack_req = (b[8] & 0x80) != 0;
  h.psn = BigEndian(b, 9, 3);
  const IbOpcode o = DescribeOpcode(h.opcode);
  const size_t ext = 12 + (o.service == IbService::kXrc ? 4 : 0);
  const bool reth = o.op == IbOp::kReadRequest ||
                    (o.op == IbOp::kWrite && (o.position == IbPosition::kFirst || o.position == IbPosition::kOnly));
  if (o.service != IbService::kUd && reth && b.size() >= ext + 16) h.dma_length = BigEndian(b, ext + 12, 4);
  if (o.service != IbService::kUd && o.has_aeth() && b.size() >= ext + 4) {
    h.syndrome = static_cast<unsigned char>(b[ext]);
    h.msn = BigEndian(b, ext + 1, 3);
  }
  return h;
}

std::optional<CmMessage> CmFrom(const EkLayer& ib) {
  CmMessage m;
  if (std::optional<uint64_t> qpn = ib.Number("infiniband.cm.req.localqpn")) {
    m.kind = CmMessage::kReq;
    m.local_qpn = *qpn;
    m.start_psn = ib.NumberOr("infiniband.cm.req.startpsn", 0);
  } else if (std::optional<uint64_t> qpn = ib.Number("infiniband.cm.rep.localqpn")) {
    m.kind = CmMessage::kRep;
    m.local_qpn = *qpn;
    m.start_psn = ib.NumberOr("infiniband.cm.rep.startpsn", 0);
  } else if (ib.Has("infiniband.cm.dreq.localcommid")) {
    m.kind = CmMessage::kDreq;
  } else {
    return std::nullopt;
  }
  return m;
}

RocePacket FromBth(const Bth& h, const FrameInfo& frame, IbLink link) {
  RocePacket p;
  p.frame = frame;
  p.link = link;
  p.opcode = DescribeOpcode(h.opcode);
  p.ack_req = h.ack_req;
  p.pkey = h.pkey;
  p.dest_qp = h.dest_qp;
  p.psn = h.psn;
  p.dma_length = h.dma_length;
  p.syndrome = h.syndrome;
  p.msn = h.msn;
  return p;
}

// FNV-1a, 64 bits: the same bytes give the same hash on every run and machine.
uint64_t Fnv1a(absl::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// Payload bytes of a transport packet whose BTH onwards (to the ICRC) is `transport_bytes` long.
int64_t PayloadBytes(int64_t transport_bytes, const IbOpcode& opcode, uint32_t pad) {
  const int64_t payload = transport_bytes - 12 - opcode.header_bytes - pad - 4;
  return payload >= 0 ? payload : -1;
}

// RoCEv2: the UDP header at chain position `at` (destination port 4791, or source port 4791
// with tshark's InfiniBand layer behind it), its IP header just before it.
void DecodeRoceV2(const nlohmann::json& layers, const FrameInfo& frame, const Chain& chain, size_t at,
                  CapturePackets& out) {
  const EkLayer udp = *chain.Layer(layers, at);
  std::optional<std::string> bytes = udp.Bytes("udp.payload");
  std::optional<Bth> h;
  std::optional<EkLayer> ib;
  const bool decoded = at + 1 < chain.names.size() && chain.names[at + 1] == "infiniband";
  if (decoded) {
    ib = chain.Layer(layers, at + 1);
    if (ib) h = BthFromFields(*ib);
  } else if (bytes) {
    h = BthFromBytes(*bytes);
  }
  if (!h) return;
  RocePacket p = FromBth(*h, frame, IbLink::kRoceV2);
  if (ib) p.cm = CmFrom(*ib);
  p.bth_from_bytes = !decoded;
  if (!decoded) ++out.roce_undecoded;
  const bool ipv6 = at > 0 && chain.names[at - 1] == "ipv6";
  std::optional<EkLayer> ip;
  if (at > 0 && (ipv6 || chain.names[at - 1] == "ip")) ip = chain.Layer(layers, at - 1);
  if (ip) {
    const std::string family = ipv6 ? "ipv6" : "ip";
    p.src = ip->Text(family + ".src").value_or("?");
    p.dst = ip->Text(family + ".dst").value_or("?");
  } else {
    p.src = p.dst = "?";
  }
  p.sport = udp.NumberOr("udp.srcport", 0);
  p.dport = udp.NumberOr("udp.dstport", 0);
  const int64_t udp_length = udp.NumberOr("udp.length", 0);
  p.payload = PayloadBytes(udp_length - 8, p.opcode, h->pad);
  std::optional<std::string> masked = MaskedIpUdp(ip, ipv6, udp);
  if (!frame.truncated && bytes && masked && static_cast<int64_t>(bytes->size()) == udp_length - 8 &&
      bytes->size() >= 16) {
    std::string ib_bytes = bytes->substr(0, bytes->size() - 4);
    p.icrc_sent = LittleEndian32(*bytes, bytes->size() - 4);
    p.icrc_computed = RoceIcrc(*masked, ib_bytes);
    p.icrc = p.icrc_sent == p.icrc_computed ? CrcCheck::kGood : CrcCheck::kBad;
    // The whole packet is here: what a retransmission must repeat, and an Atomic ACK's value
    // (AETH, then AtomicAckETH: 8 bytes, after the BTH and any XRCETH).
    p.content_hash = Fnv1a(absl::string_view(*bytes).substr(12, bytes->size() - 16));
    const size_t ext = 12 + (p.opcode.service == IbService::kXrc ? 4 : 0);
    if (p.opcode.op == IbOp::kAtomicAck && bytes->size() >= ext + 12 + 4) {
      p.atomic_original = (static_cast<uint64_t>(BigEndian(*bytes, ext + 4, 4)) << 32) | BigEndian(*bytes, ext + 8, 4);
    }
  }
  out.roce.push_back(std::move(p));
}

// RoCEv1 (GRH + BTH over Ethernet) and native InfiniBand (LRH [+ GRH] + BTH): the same
// transport headers, addressed by GID or LID. Their ICRC (and the VCRC) is not checked.
void DecodeIbTransport(const FrameInfo& frame, const EkLayer& ib, IbLink link, CapturePackets& out) {
  std::optional<Bth> h = BthFromFields(ib);
  if (!h) return;
  RocePacket p = FromBth(*h, frame, link);
  p.cm = CmFrom(ib);
  if (std::optional<uint64_t> original = ib.Number("infiniband.atomicacketh.origremdt")) p.atomic_original = *original;
  if (link == IbLink::kRoceV1) {
    p.src = ib.Text("infiniband.grh.sgid").value_or("?");
    p.dst = ib.Text("infiniband.grh.dgid").value_or("?");
    if (std::optional<uint64_t> len = ib.Number("infiniband.grh.paylen")) {
      p.payload = PayloadBytes(static_cast<int64_t>(*len), p.opcode, h->pad);
    }
  } else {
    p.src = absl::StrCat("lid ", ib.NumberOr("infiniband.lrh.slid", 0));
    p.dst = absl::StrCat("lid ", ib.NumberOr("infiniband.lrh.dlid", 0));
    // LRH PktLen: 4-byte words from the LRH to the ICRC (the VCRC is not counted).
    const int64_t grh = ib.NumberOr("infiniband.lrh.lnh", 0) == 3 ? 40 : 0;
    if (std::optional<uint64_t> words = ib.Number("infiniband.lrh.pktlen")) {
      p.payload = PayloadBytes(static_cast<int64_t>(*words) * 4 - 8 - grh, p.opcode, h->pad);
    }
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

const char* IbLinkName(IbLink link) {
  switch (link) {
    case IbLink::kRoceV2: return "RoCEv2";
    case IbLink::kRoceV1: return "RoCEv1";
    case IbLink::kInfiniBand: return "InfiniBand";
  }
  return "?";
}

void DecodePacket(const nlohmann::json& layers, CapturePackets& out) {
  FrameInfo frame;
  std::string protocols;
  if (std::optional<EkLayer> f = First(layers, "frame")) {
    frame.number = f->NumberOr("frame.number", 0);
    absl::SimpleAtod(f->Text("frame.time_epoch").value_or("0"), &frame.time);
    frame.truncated = f->NumberOr("frame.cap_len", 0) < f->NumberOr("frame.len", 0);
    protocols = f->Text("frame.protocols").value_or("");
  }
  ++out.frames;
  if (frame.truncated) ++out.truncated;
  const Chain chain(protocols);
  // A BTH before any UDP header: native InfiniBand, or RoCEv1 behind an Ethernet header.
  // Whatever IP it carries (IP over InfiniBand) is its payload.
  if (std::optional<size_t> ib = chain.Find("infiniband"); ib && !chain.Before("udp", *ib)) {
    const IbLink link = chain.Before("eth", *ib) ? IbLink::kRoceV1 : IbLink::kInfiniBand;
    if (std::optional<EkLayer> layer = chain.Layer(layers, *ib)) DecodeIbTransport(frame, *layer, link, out);
    return;
  }
  // RoCEv2: the innermost UDP header to port 4791 (a tunnel's outer one goes to 4789 or
  // 6081), or one from port 4791 that tshark found a BTH behind.
  std::optional<size_t> roce;
  for (std::optional<size_t> at = chain.Find("udp"); at; at = chain.Find("udp", *at + 1)) {
    std::optional<EkLayer> udp = chain.Layer(layers, *at);
    if (!udp) continue;
    const bool ib_behind = *at + 1 < chain.names.size() && chain.names[*at + 1] == "infiniband";
    if (udp->NumberOr("udp.dstport", 0) == kRoceV2Port || (ib_behind && udp->NumberOr("udp.srcport", 0) == kRoceV2Port)) {
      roce = *at;
    }
  }
  // An ICMP error quotes the head of the packet it answers: not a packet on the wire.
  const size_t transport = roce ? *roce : chain.Find("tcp").value_or(chain.names.size());
  if (chain.Before("icmp", transport) || chain.Before("icmpv6", transport)) return;
  if (roce) {
    DecodeRoceV2(layers, frame, chain, *roce, out);
  } else if (std::optional<EkLayer> tcp = First(layers, "tcp")) {
    DecodeIwarp(layers, frame, *tcp, out);
  }
}

}  // namespace rdmacheck
