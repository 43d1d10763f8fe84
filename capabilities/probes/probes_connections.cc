// Probes of connections and addressing: RC wired by hand and through rdma_cm, UD and UC
// loopback, IPv6 GIDs. Each carries a send whose data is checked.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "capabilities/probes/probe_traffic.h"
#include "capabilities/probes/probes.h"
#include "harness/completion.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// Connecting RC QPs one way, then a send over the connection.
void ConnectProbe(ProbeScope& s, Cap cap, ConnectMethod method) {
  PairOptions options = RcOptions();
  options.method = method;
  absl::StatusOr<ConnectedPair> pair = ConnectedPair::Create(s.context(), s.selection(), options);
  absl::Status sent = pair.ok() ? SendAndCheck(*pair, false) : absl::OkStatus();
  const char* steps = method == ConnectMethod::kManual ? "RESET->INIT->RTR->RTS by ibv_modify_qp"
                                                       : "rdma_cm resolve/connect/accept";
  Judge(s, cap, pair.status(), sent, absl::StrCat(steps, " on loopback; a 64-byte SEND arrived intact"));
}

// No refusal decides this one: IB and RoCE QPs are wired by ibv_modify_qp (IBTA 10.3), so a
// refused transition there is a failure; iWARP QPs are connected only by the LLP's
// connection setup (RFC 5040 section 5, MPA: RFC 5044), never by hand.
absl::Status ProbeManualConnect(ProbeScope& s) {
  if (s.IsIwarp()) {
    s.Record(Cap::kManualConnect, Outcome::kUnsupported, 0,
             "iWARP transport: an RC QP is connected by its TCP/MPA connection (RFC 5040, RFC 5044), not by "
             "ibv_modify_qp to RTR");
    return absl::OkStatus();
  }
  ConnectProbe(s, Cap::kManualConnect, ConnectMethod::kManual);
  return absl::OkStatus();
}

absl::Status ProbeRdmaCm(ProbeScope& s) {
  ConnectProbe(s, Cap::kRdmaCm, ConnectMethod::kRdmaCm);
  return absl::OkStatus();
}

// UD and UC: the QP type must exist (create), then carry a loopback send (wired by hand:
// neither has a connection rdma_cm would make here).
void DatagramProbe(ProbeScope& s, Cap cap, ibv_qp_type type, const char* name) {
  {
    absl::StatusOr<PdAndCq> base = MakePdAndCq(s.context());
    absl::StatusOr<QpPtr> qp = base.ok() ? CreateQp(base->pd.get(), QpInitAttr(type, base->cq.get())) : base.status();
    if (!qp.ok()) {
      s.Tried(cap, qp.status(), "");
      return;
    }
  }
  PairOptions options;
  options.qp_type = type;
  options.method = ConnectMethod::kManual;
  absl::StatusOr<ConnectedPair> pair = ConnectedPair::Create(s.context(), s.selection(), options);
  absl::Status sent = pair.ok() ? SendAndCheck(*pair, type == IBV_QPT_UD) : pair.status();
  Judge(s, cap, absl::OkStatus(), sent, absl::StrCat(name, " QP created; a 64-byte loopback SEND arrived intact"));
}

absl::Status ProbeUd(ProbeScope& s) {
  DatagramProbe(s, Cap::kUdQp, IBV_QPT_UD, "UD");
  return absl::OkStatus();
}

absl::Status ProbeUc(ProbeScope& s) {
  DatagramProbe(s, Cap::kUcQp, IBV_QPT_UC, "UC");
  return absl::OkStatus();
}


std::string Ipv6AddressOf(const std::string& netdev, sockaddr_in6* out) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return "";
  std::string text;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET6 || netdev != a->ifa_name) continue;
    *out = *reinterpret_cast<sockaddr_in6*>(a->ifa_addr);
    char buffer[INET6_ADDRSTRLEN] = {};
    inet_ntop(AF_INET6, &out->sin6_addr, buffer, sizeof(buffer));
    text = buffer;
    break;
  }
  freeifaddrs(list);
  return text;
}

// IPv6 addressing. RoCE: an IPv6 (not IPv4-mapped) GID that an address handle accepts
// and an RC connection over it carries a send. iWARP and InfiniBand, whose GIDs are no IP
// addresses: an IPv6 address on the port's netdev that rdma_cm binds to this device.
absl::Status ProbeIpv6(ProbeScope& s) {
  const bool roce = !s.IsIwarp() && s.selection().port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  if (roce) {
    RDMACHECK_ASSIGN_OR_RETURN(std::vector<GidEntry> gids,
                               ReadGidTable(s.context(), s.selection().port_attr, s.port()));
    const GidEntry* v6 = nullptr;
    for (const GidEntry& g : gids) {
      if (g.IsZero() || g.IsIpv4Mapped()) continue;
      if (v6 == nullptr || (v6->type != IBV_GID_TYPE_ROCE_V2 && g.type == IBV_GID_TYPE_ROCE_V2)) v6 = &g;
    }
    if (v6 == nullptr) {
      s.Record(Cap::kIpv6Gid, Outcome::kUnsupported, 0,
               absl::StrCat("no IPv6 GID in port ", s.port(), "'s table (", gids.size(), " entries)"));
      return absl::OkStatus();
    }
    const std::string gid_text = absl::StrCat("GID ", v6->index, " ", v6->Address(), " (", v6->TypeName(), ")");
    {
      RDMACHECK_ASSIGN_OR_RETURN(PdPtr pd, AllocPd(s.context()));
      ibv_ah_attr ah{};
      ah.port_num = s.port();
      ah.is_global = 1;
      ah.grh.dgid = v6->gid;
      ah.grh.sgid_index = v6->index;
      ah.grh.hop_limit = 64;
      errno = 0;
      absl::StatusOr<AhPtr> made = CreateAh(pd.get(), ah);
      if (!made.ok()) {
        s.Tried(Cap::kIpv6Gid, made.status(), "");
        return absl::OkStatus();
      }
    }
    // The evidence that counts: an RC connection over that GID carries a send.
    Selection over_v6 = s.selection();
    over_v6.gid = *v6;
    PairOptions options;
    options.method = ConnectMethod::kManual;
    absl::StatusOr<ConnectedPair> pair = ConnectedPair::Create(s.context(), over_v6, options);
    if (!pair.ok() && !ConnectedPair::Create(s.context(), s.selection(), options).ok()) {
      s.Record(Cap::kIpv6Gid, Outcome::kSupported, 0,
               absl::StrCat(gid_text, " takes an address handle (no manual RC connection to send over)"));
      return absl::OkStatus();
    }
    absl::Status sent = pair.ok() ? SendAndCheck(*pair, false) : pair.status();
    Judge(s, Cap::kIpv6Gid, absl::OkStatus(),
          sent.ok() ? sent : InContext(sent, absl::StrCat(gid_text, " takes an address handle, but")),
          absl::StrCat(gid_text, ": a loopback RC SEND over it arrived intact"));
    return absl::OkStatus();
  }
  std::string netdev = s.selection().gid.netdev;
  for (const nlohmann::json& port : s.declared().value("ports", nlohmann::json::array())) {
    if (netdev.empty() && port.value("port", 0) == s.port()) netdev = port.value("netdev", "");
  }
  if (netdev.empty()) {
    s.Record(Cap::kIpv6Gid, Outcome::kUnsupported, 0, "cannot tell the port's netdev");
    return absl::OkStatus();
  }
  sockaddr_in6 address{};
  std::string text = Ipv6AddressOf(netdev, &address);
  if (text.empty()) {
    s.Record(Cap::kIpv6Gid, Outcome::kUnsupported, 0, absl::StrCat("netdev ", netdev, " has no IPv6 address"));
    return absl::OkStatus();
  }
  CmChannelPtr channel(rdma_create_event_channel());
  if (!channel) return ErrnoStatus(errno, "rdma_create_event_channel");
  rdma_cm_id* raw = nullptr;
  if (rdma_create_id(channel.get(), &raw, nullptr, RDMA_PS_TCP) != 0) return ErrnoStatus(errno, "rdma_create_id");
  CmIdPtr id(raw);
  if (rdma_bind_addr(id.get(), reinterpret_cast<sockaddr*>(&address)) != 0) {
    s.Tried(Cap::kIpv6Gid, ErrnoStatus(errno, absl::StrCat("rdma_bind_addr(", text, "%", netdev, ")")), "");
    return absl::OkStatus();
  }
  if (id->verbs == nullptr || s.selection().device != ibv_get_device_name(id->verbs->device)) {
    s.Record(Cap::kIpv6Gid, Outcome::kUnsupported, 0,
             absl::StrCat("rdma_cm bound ", text, " to ",
                          id->verbs ? ibv_get_device_name(id->verbs->device) : "no RDMA device"));
    return absl::OkStatus();
  }
  s.Record(Cap::kIpv6Gid, Outcome::kSupported, 0,
           absl::StrCat("rdma_cm binds ", text, "%", netdev, " to ", s.selection().device,
                        " (address only: the pair builder connects over IPv4 here)"));
  return absl::OkStatus();
}


}  // namespace

std::vector<ProbeSpec> ConnectionProbes() {
  return {
      {"manual_connect", {Cap::kManualConnect}, ProbeManualConnect, kTrafficBudget},
      {"rdma_cm", {Cap::kRdmaCm}, ProbeRdmaCm, kTrafficBudget},
      {"ud_qp", {Cap::kUdQp}, ProbeUd, kTrafficBudget},
      {"uc_qp", {Cap::kUcQp}, ProbeUc, kTrafficBudget},
      {"ipv6", {Cap::kIpv6Gid}, ProbeIpv6, kTrafficBudget},
  };
}

}  // namespace rdmacheck
