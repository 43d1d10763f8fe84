#include "capabilities/declared/declared_support.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace rdmacheck {
namespace {

using json = nlohmann::json;

std::optional<DeclaredHint> Flag(const json& declared, const char* flag) {
  const json* flags = declared.contains("device_cap_flags") ? &declared["device_cap_flags"] : nullptr;
  if (flags == nullptr || !flags->is_array()) return std::nullopt;
  bool set = std::find(flags->begin(), flags->end(), flag) != flags->end();
  return DeclaredHint{set, absl::StrCat("device_cap_flags ", set ? "has " : "lacks ", flag)};
}

std::optional<DeclaredHint> LimitAtLeast(const json& declared, const char* limit, int64_t least) {
  if (!declared.contains("limits") || !declared["limits"].contains(limit)) return std::nullopt;
  int64_t value = declared["limits"][limit].get<int64_t>();
  return DeclaredHint{value >= least, absl::StrCat(limit, "=", value)};
}

std::optional<DeclaredHint> LimitAbove0(const json& declared, const char* limit) {
  return LimitAtLeast(declared, limit, 1);
}

const json* Port(const json& declared, int port) {
  if (!declared.contains("ports")) return nullptr;
  for (const json& p : declared["ports"]) {
    if (p.value("port", 0) == port) return &p;
  }
  return nullptr;
}

// Both must hold (e.g. a flag and a non-zero limit).
std::optional<DeclaredHint> Both(std::optional<DeclaredHint> a, std::optional<DeclaredHint> b) {
  if (!a) return b;
  if (!b) return a;
  return DeclaredHint{a->declared && b->declared, absl::StrCat(a->evidence, ", ", b->evidence)};
}

}  // namespace

std::optional<DeclaredHint> DeclaredSupport(const json& declared, int port, Cap cap) {
  try {
    switch (cap) {
      case Cap::kAtomics: {
        if (!declared.contains("atomic_cap")) return std::nullopt;
        std::string atomic = declared["atomic_cap"].get<std::string>();
        return DeclaredHint{atomic != "NONE", absl::StrCat("atomic_cap=", atomic)};
      }
      // IBTA Vol 1 1.5, A19: ATOMIC WRITE and FLUSH are optional; the device says which it has.
      case Cap::kAtomicWrite: return Flag(declared, "ATOMIC_WRITE");
      case Cap::kFlush: {
        std::optional<DeclaredHint> global = Flag(declared, "FLUSH_GLOBAL");
        std::optional<DeclaredHint> persistent = Flag(declared, "FLUSH_PERSISTENT");
        if (!global || !persistent) return std::nullopt;
        if (global->declared) return global;
        if (persistent->declared) return persistent;
        return DeclaredHint{false, "device_cap_flags lacks FLUSH_GLOBAL and FLUSH_PERSISTENT"};
      }
      case Cap::kMwType1:
        return Both(Flag(declared, "MEM_WINDOW"), LimitAbove0(declared, "max_mw"));
      case Cap::kMwType2: {
        std::optional<DeclaredHint> a = Flag(declared, "MEM_WINDOW_TYPE_2A");
        std::optional<DeclaredHint> b = Flag(declared, "MEM_WINDOW_TYPE_2B");
        if (!a || !b) return std::nullopt;
        if (b->declared) return b;
        if (a->declared) return a;
        return DeclaredHint{false, "device_cap_flags lacks MEM_WINDOW_TYPE_2A and _2B"};
      }
      case Cap::kSrq: return LimitAbove0(declared, "max_srq");
      case Cap::kSrqResize: return Flag(declared, "SRQ_RESIZE");
      case Cap::kXrc: return Flag(declared, "XRC");
      // IBTA 10.6.7 (base memory management extensions) includes Send with Invalidate.
      case Cap::kSendWithInv: return Flag(declared, "MEM_MGT_EXTENSIONS");
      case Cap::kRdmaRead: return LimitAbove0(declared, "max_qp_rd_atom");
      case Cap::kMultiSgeRead: return LimitAtLeast(declared, "max_sge_rd", 2);
      case Cap::kAddressHandle: return LimitAbove0(declared, "max_ah");
      // ibv_query_device(3): max_mcast_grp, max_mcast_qp_attach (0: no multicast).
      case Cap::kMulticast:
      case Cap::kCmMulticast:
        return Both(LimitAbove0(declared, "max_mcast_grp"), LimitAbove0(declared, "max_mcast_qp_attach"));
      case Cap::kIpGids: {
        const json* p = Port(declared, port);
        if (p == nullptr || !p->contains("gids")) return std::nullopt;
        for (const json& g : (*p)["gids"]) {
          const std::string family = g.value("family", "");
          if (family == "MAC" || family == "IB") {
            return DeclaredHint{false, absl::StrCat("GID ", g.value("index", 0), " ", g.value("gid", ""), " is ",
                                                    family == "MAC" ? "the port's MAC, no IP address"
                                                                    : "an InfiniBand GID, no IP address")};
          }
        }
        return std::nullopt;
      }
      case Cap::kOdp: {
        if (!declared.contains("odp")) return std::nullopt;
        const json& general = declared["odp"]["general"];
        bool set = std::find(general.begin(), general.end(), "ODP_SUPPORT") != general.end();
        return DeclaredHint{set, absl::StrCat("odp general caps ", set ? "have" : "lack", " ODP_SUPPORT")};
      }
      case Cap::kMtu4096: {
        const json* p = Port(declared, port);
        if (p == nullptr || !p->contains("max_mtu")) return std::nullopt;
        int mtu = (*p)["max_mtu"].get<int>();
        return DeclaredHint{mtu >= 4096, absl::StrCat("port ", port, " max_mtu=", mtu)};
      }
      case Cap::kIpv6Gid: {
        const json* p = Port(declared, port);
        if (p == nullptr || !p->contains("gids")) return std::nullopt;
        for (const json& g : (*p)["gids"]) {
          // iWARP and InfiniBand GIDs are no IP addresses: the table says nothing about IPv6.
          std::string family = g.value("family", "");
          if (family == "MAC" || family == "IB") return std::nullopt;
        }
        for (const json& g : (*p)["gids"]) {
          if (g.value("family", "") == "IPv6") {
            return DeclaredHint{true, absl::StrCat("GID ", g.value("index", 0), " is ", g.value("gid", ""))};
          }
        }
        return DeclaredHint{false, absl::StrCat("port ", port, " has no IPv6 GID")};
      }
      case Cap::kRdmaCm: {
        const json* p = Port(declared, port);
        if (p == nullptr || !p->contains("port_cap_flags")) return std::nullopt;
        const json& flags = (*p)["port_cap_flags"];
        bool set = std::find(flags.begin(), flags.end(), "CM_SUP") != flags.end();
        return DeclaredHint{set, absl::StrCat("port_cap_flags ", set ? "has" : "lacks", " CM_SUP")};
      }
      default:
        return std::nullopt;
    }
  } catch (const json::exception&) {
    return std::nullopt;  // a profile from another version: no hint rather than a wrong one
  }
}

}  // namespace rdmacheck
