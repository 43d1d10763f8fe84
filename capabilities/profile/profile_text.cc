#include "capabilities/profile/profile_text.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "capabilities/verdict/decide.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

using json = nlohmann::json;

std::string Scalar(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

std::string Names(const json& list) {
  if (!list.is_array() || list.empty()) return "none";
  std::vector<std::string> names;
  for (const json& n : list) names.push_back(Scalar(n));
  return absl::StrJoin(names, ", ");
}

// "key=value" items, wrapped to lines of about `width` characters under `indent`.
void Wrapped(std::string& out, const std::string& indent, const std::vector<std::string>& items, size_t width = 96) {
  std::string line;
  for (const std::string& item : items) {
    if (!line.empty() && line.size() + item.size() + 2 > width) {
      absl::StrAppend(&out, indent, line, "\n");
      line.clear();
    }
    absl::StrAppend(&line, line.empty() ? "" : "  ", item);
  }
  if (!line.empty()) absl::StrAppend(&out, indent, line, "\n");
}

void IdentityText(std::string& out, const Profile& p) {
  const Identity& id = p.identity;
  absl::StrAppendFormat(&out, "%s: driver %s%s, transport %s, link layer %s, node type %s\n", id.device, id.driver,
                        id.protocol.empty() ? "" : absl::StrCat(" (", id.protocol, ")"), id.transport, id.link_layer,
                        id.node_type);
  absl::StrAppendFormat(&out, "  vendor 0x%x part %u, fw %s, hw 0x%x, node GUID %s\n", id.vendor_id,
                        id.vendor_part_id, id.fw_ver.empty() ? "-" : id.fw_ver, id.hw_ver, id.node_guid);
  absl::StrAppendFormat(&out, "  probed on port %d, GID %d %s (%s)%s\n", id.port, id.gid_index, id.gid, id.gid_type,
                        id.netdev.empty() ? "" : absl::StrCat(" on ", id.netdev));
  absl::StrAppendFormat(&out, "  kernel %s, rdma-core %s, host %s, %s\n", id.kernel, id.rdma_core, id.hostname,
                        id.time);
  absl::StrAppendFormat(&out, "  connects RC QPs by: %s\n", ConnectMethodName(PreferredConnectMethod(p)));
}

void DeclaredText(std::string& out, const json& d) {
  out += "\ndeclared\n";
  if (d.empty()) {
    out += "  (nothing)\n";
    return;
  }
  absl::StrAppend(&out, "  device_cap_flags: ", Names(d.value("device_cap_flags", json::array())), " (",
                  d.value("device_cap_flags_raw", "?"), ")\n");
  absl::StrAppend(&out, "  atomic_cap: ", d.value("atomic_cap", "?"), "\n");
  if (d.contains("odp")) {
    std::vector<std::string> odp;
    for (const auto& [k, v] : d["odp"].items()) odp.push_back(absl::StrCat(k, "=", Names(v)));
    absl::StrAppend(&out, "  odp: ", absl::StrJoin(odp, "; "), "\n");
  }
  absl::StrAppend(&out, "  completion_timestamp_mask: ", Scalar(d.value("completion_timestamp_mask", json(0))),
                  ", hca_core_clock_khz: ", Scalar(d.value("hca_core_clock_khz", json(0))),
                  ", page_size_cap: ", d.value("page_size_cap", "?"), "\n");
  out += "  max inline data: not reported by the verbs API (see measured)\n";
  if (d.contains("limits")) {
    out += "  limits:\n";
    std::vector<std::string> items;
    for (const auto& [k, v] : d["limits"].items()) items.push_back(absl::StrCat(k, "=", Scalar(v)));
    Wrapped(out, "    ", items);
  }
  for (const json& port : d.value("ports", json::array())) {
    absl::StrAppendFormat(&out, "  port %d: %s (%s), %s, MTU max %d active %d, %s %s, netdev %s\n",
                          port.value("port", 0), port.value("state", "?"), port.value("phys_state", "?"),
                          port.value("link_layer", "?"), port.value("max_mtu", 0), port.value("active_mtu", 0),
                          port.value("speed", "?"), port.value("width", "?"),
                          port.value("netdev", "").empty() ? "-" : port.value("netdev", ""));
    absl::StrAppend(&out, "    port_cap_flags: ", Names(port.value("port_cap_flags", json::array())), "\n");
    std::vector<std::string> items;
    for (const char* key : {"gid_tbl_len", "pkey_tbl_len", "max_msg_sz", "lid", "sm_lid", "lmc", "max_vl_num"}) {
      if (port.contains(key)) items.push_back(absl::StrCat(key, "=", Scalar(port[key])));
    }
    Wrapped(out, "    ", items);
    for (const json& g : port.value("gids", json::array())) {
      absl::StrAppendFormat(&out, "    GID %-3d %-40s %-7s %-5s %s\n", g.value("index", 0), g.value("gid", ""),
                            g.value("type", ""), g.value("family", ""), g.value("netdev", ""));
    }
  }
}

}  // namespace

std::string ProfileToText(const Profile& p) {
  std::string out;
  IdentityText(out, p);
  DeclaredText(out, p.declared);

  out += "\nobserved\n";
  if (p.observed.empty()) out += "  (no probe ran)\n";
  for (const auto& [cap, o] : p.observed) {
    std::string err = o.err != 0 ? ErrnoName(o.err) : "";
    absl::StrAppendFormat(&out, "  %-16s %-12s %-11s %s\n", CapName(cap), OutcomeName(o.outcome), err, o.detail);
  }
  if (!p.measured.empty()) {
    out += "\nmeasured\n";
    for (const auto& [name, m] : p.measured) {
      absl::StrAppendFormat(&out, "  %-16s %-8d %s\n", name, m.value, m.detail);
    }
  }
  out += "\nquirks\n";
  if (p.quirks.empty()) out += "  none\n";
  for (const Quirk& q : p.quirks) absl::StrAppend(&out, "  ", q.capability, ": ", q.text, "\n");
  return out;
}

}  // namespace rdmacheck
