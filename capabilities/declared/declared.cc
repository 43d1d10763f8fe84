#include "capabilities/declared/declared.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "harness/device.h"
#include "harness/status.h"
#include "harness/verbs/extensions.h"

namespace rdmacheck {
namespace {

// Names of the set bits of `bits`; bits the table does not know become "bit_N".
template <size_t N>
std::vector<std::string> BitNames(uint64_t bits, const std::pair<uint64_t, const char*> (&table)[N]) {
  std::vector<std::string> names;
  for (const auto& [bit, name] : table) {
    if (bits & bit) {
      names.emplace_back(name);
      bits &= ~bit;
    }
  }
  for (int i = 0; i < 64; ++i) {
    if (bits & (1ULL << i)) names.push_back(absl::StrCat("bit_", i));
  }
  return names;
}

constexpr std::pair<uint64_t, const char*> kDeviceCapFlags[] = {
    {IBV_DEVICE_RESIZE_MAX_WR, "RESIZE_MAX_WR"},
    {IBV_DEVICE_BAD_PKEY_CNTR, "BAD_PKEY_CNTR"},
    {IBV_DEVICE_BAD_QKEY_CNTR, "BAD_QKEY_CNTR"},
    {IBV_DEVICE_RAW_MULTI, "RAW_MULTI"},
    {IBV_DEVICE_AUTO_PATH_MIG, "AUTO_PATH_MIG"},
    {IBV_DEVICE_CHANGE_PHY_PORT, "CHANGE_PHY_PORT"},
    {IBV_DEVICE_UD_AV_PORT_ENFORCE, "UD_AV_PORT_ENFORCE"},
    {IBV_DEVICE_CURR_QP_STATE_MOD, "CURR_QP_STATE_MOD"},
    {IBV_DEVICE_SHUTDOWN_PORT, "SHUTDOWN_PORT"},
    {IBV_DEVICE_INIT_TYPE, "INIT_TYPE"},
    {IBV_DEVICE_PORT_ACTIVE_EVENT, "PORT_ACTIVE_EVENT"},
    {IBV_DEVICE_SYS_IMAGE_GUID, "SYS_IMAGE_GUID"},
    {IBV_DEVICE_RC_RNR_NAK_GEN, "RC_RNR_NAK_GEN"},
    {IBV_DEVICE_SRQ_RESIZE, "SRQ_RESIZE"},
    {IBV_DEVICE_N_NOTIFY_CQ, "N_NOTIFY_CQ"},
    {IBV_DEVICE_MEM_WINDOW, "MEM_WINDOW"},
    {IBV_DEVICE_UD_IP_CSUM, "UD_IP_CSUM"},
    {IBV_DEVICE_XRC, "XRC"},
    {IBV_DEVICE_MEM_MGT_EXTENSIONS, "MEM_MGT_EXTENSIONS"},
    {IBV_DEVICE_MEM_WINDOW_TYPE_2A, "MEM_WINDOW_TYPE_2A"},
    {IBV_DEVICE_MEM_WINDOW_TYPE_2B, "MEM_WINDOW_TYPE_2B"},
    {IBV_DEVICE_RC_IP_CSUM, "RC_IP_CSUM"},
    {IBV_DEVICE_RAW_IP_CSUM, "RAW_IP_CSUM"},
    {IBV_DEVICE_MANAGED_FLOW_STEERING, "MANAGED_FLOW_STEERING"},
    {IBV_DEVICE_RAW_SCATTER_FCS, "RAW_SCATTER_FCS"},
    {IBV_DEVICE_PCI_WRITE_END_PADDING, "PCI_WRITE_END_PADDING"},
    {kDeviceFlushGlobal, "FLUSH_GLOBAL"},
    {kDeviceFlushPersistent, "FLUSH_PERSISTENT"},
    {kDeviceAtomicWrite, "ATOMIC_WRITE"},
};

constexpr std::pair<uint64_t, const char*> kOdpGeneral[] = {
    {IBV_ODP_SUPPORT, "ODP_SUPPORT"},
    {IBV_ODP_SUPPORT_IMPLICIT, "ODP_SUPPORT_IMPLICIT"},
};

constexpr std::pair<uint64_t, const char*> kOdpTransport[] = {
    {IBV_ODP_SUPPORT_SEND, "SEND"},   {IBV_ODP_SUPPORT_RECV, "RECV"},     {IBV_ODP_SUPPORT_WRITE, "WRITE"},
    {IBV_ODP_SUPPORT_READ, "READ"},   {IBV_ODP_SUPPORT_ATOMIC, "ATOMIC"}, {IBV_ODP_SUPPORT_SRQ_RECV, "SRQ_RECV"},
    {kOdpSupportFlush, "FLUSH"},      {kOdpSupportAtomicWrite, "ATOMIC_WRITE"},
};

constexpr std::pair<uint64_t, const char*> kPortCapFlags[] = {
    {IBV_PORT_SM, "SM"},
    {IBV_PORT_NOTICE_SUP, "NOTICE_SUP"},
    {IBV_PORT_TRAP_SUP, "TRAP_SUP"},
    {IBV_PORT_OPT_IPD_SUP, "OPT_IPD_SUP"},
    {IBV_PORT_AUTO_MIGR_SUP, "AUTO_MIGR_SUP"},
    {IBV_PORT_SL_MAP_SUP, "SL_MAP_SUP"},
    {IBV_PORT_MKEY_NVRAM, "MKEY_NVRAM"},
    {IBV_PORT_PKEY_NVRAM, "PKEY_NVRAM"},
    {IBV_PORT_LED_INFO_SUP, "LED_INFO_SUP"},
    {IBV_PORT_SYS_IMAGE_GUID_SUP, "SYS_IMAGE_GUID_SUP"},
    {IBV_PORT_PKEY_SW_EXT_PORT_TRAP_SUP, "PKEY_SW_EXT_PORT_TRAP_SUP"},
    {IBV_PORT_EXTENDED_SPEEDS_SUP, "EXTENDED_SPEEDS_SUP"},
    {IBV_PORT_CAP_MASK2_SUP, "CAP_MASK2_SUP"},
    {IBV_PORT_CM_SUP, "CM_SUP"},
    {IBV_PORT_SNMP_TUNNEL_SUP, "SNMP_TUNNEL_SUP"},
    {IBV_PORT_REINIT_SUP, "REINIT_SUP"},
    {IBV_PORT_DEVICE_MGMT_SUP, "DEVICE_MGMT_SUP"},
    {IBV_PORT_VENDOR_CLASS_SUP, "VENDOR_CLASS_SUP"},
    {IBV_PORT_DR_NOTICE_SUP, "DR_NOTICE_SUP"},
    {IBV_PORT_CAP_MASK_NOTICE_SUP, "CAP_MASK_NOTICE_SUP"},
    {IBV_PORT_BOOT_MGMT_SUP, "BOOT_MGMT_SUP"},
    {IBV_PORT_LINK_LATENCY_SUP, "LINK_LATENCY_SUP"},
    {IBV_PORT_CLIENT_REG_SUP, "CLIENT_REG_SUP"},
    {IBV_PORT_IP_BASED_GIDS, "IP_BASED_GIDS"},
};

// IBTA PortInfo:LinkSpeedActive / LinkWidthActive as ibv_port_attr encodes them.
std::string SpeedName(uint8_t speed) {
  switch (speed) {
    case 1: return "2.5 Gbps";
    case 2: return "5 Gbps";
    case 4: case 8: return "10 Gbps";
    case 16: return "14 Gbps";
    case 32: return "25 Gbps";
    case 64: return "50 Gbps";
    case 128: return "100 Gbps";
  }
  return absl::StrCat("code ", speed);
}

std::string WidthName(uint8_t width) {
  switch (width) {
    case 1: return "1X";
    case 2: return "4X";
    case 4: return "8X";
    case 8: return "12X";
    case 16: return "2X";
  }
  return absl::StrCat("code ", width);
}

std::string PhysStateName(uint8_t state) {
  static const char* const kNames[] = {"NOP", "SLEEP", "POLLING", "DISABLED", "PORT_CONFIGURATION_TRAINING",
                                       "LINK_UP", "LINK_ERROR_RECOVERY", "PHY_TEST"};
  return state < 8 ? kNames[state] : absl::StrCat("code ", state);
}

std::string Hex(uint64_t value) { return absl::StrFormat("0x%x", value); }

// What kind of address a GID entry holds. RoCE GIDs are IP addresses; an iWARP device's
// GID is its MAC followed by zeros; an InfiniBand GID is a subnet prefix plus a port GUID.
const char* GidFamily(const GidEntry& gid, ibv_transport_type transport, uint8_t link_layer) {
  if (transport == IBV_TRANSPORT_IWARP) {
    bool mac_only = true;
    for (int i = 6; i < 16; ++i) mac_only = mac_only && gid.gid.raw[i] == 0;
    return mac_only ? "MAC" : "other";
  }
  if (link_layer != IBV_LINK_LAYER_ETHERNET) return "IB";
  return gid.IsIpv4Mapped() ? "IPv4" : "IPv6";
}

nlohmann::json Limits(const ibv_device_attr_ex& ex) {
  const ibv_device_attr& a = ex.orig_attr;
  return {
      {"max_mr_size", a.max_mr_size},
      {"max_qp", a.max_qp},
      {"max_qp_wr", a.max_qp_wr},
      {"max_sge", a.max_sge},
      {"max_sge_rd", a.max_sge_rd},
      {"max_cq", a.max_cq},
      {"max_cqe", a.max_cqe},
      {"max_mr", a.max_mr},
      {"max_pd", a.max_pd},
      {"max_qp_rd_atom", a.max_qp_rd_atom},
      {"max_ee_rd_atom", a.max_ee_rd_atom},
      {"max_res_rd_atom", a.max_res_rd_atom},
      {"max_qp_init_rd_atom", a.max_qp_init_rd_atom},
      {"max_ee_init_rd_atom", a.max_ee_init_rd_atom},
      {"max_ee", a.max_ee},
      {"max_rdd", a.max_rdd},
      {"max_mw", a.max_mw},
      {"max_raw_ipv6_qp", a.max_raw_ipv6_qp},
      {"max_raw_ethy_qp", a.max_raw_ethy_qp},
      {"max_mcast_grp", a.max_mcast_grp},
      {"max_mcast_qp_attach", a.max_mcast_qp_attach},
      {"max_total_mcast_qp_attach", a.max_total_mcast_qp_attach},
      {"max_ah", a.max_ah},
      {"max_fmr", a.max_fmr},
      {"max_map_per_fmr", a.max_map_per_fmr},
      {"max_srq", a.max_srq},
      {"max_srq_wr", a.max_srq_wr},
      {"max_srq_sge", a.max_srq_sge},
      {"max_pkeys", a.max_pkeys},
      {"local_ca_ack_delay", a.local_ca_ack_delay},
      {"phys_port_cnt", a.phys_port_cnt},
      {"max_tso", ex.tso_caps.max_tso},
      {"max_rwq_indirection_tables", ex.rss_caps.max_rwq_indirection_tables},
      {"max_rwq_indirection_table_size", ex.rss_caps.max_rwq_indirection_table_size},
      {"max_wq_type_rq", ex.max_wq_type_rq},
      {"max_tm_tags", ex.tm_caps.max_num_tags},
      {"max_cq_moderation_count", ex.cq_mod_caps.max_cq_count},
      {"max_cq_moderation_period_us", ex.cq_mod_caps.max_cq_period},
      {"max_dm_size", ex.max_dm_size},
  };
}

nlohmann::json Port(const PortInfo& port, ibv_transport_type transport, const NetlinkDevice* netlink) {
  const ibv_port_attr& a = port.attr;
  std::string port_netdev;
  if (netlink != nullptr && netlink->port_netdevs.count(port.num)) port_netdev = netlink->port_netdevs.at(port.num);
  nlohmann::json gids = nlohmann::json::array();
  for (const GidEntry& g : port.gids) {
    gids.push_back({{"index", g.index},
                    {"gid", g.Address()},
                    {"type", g.TypeName()},
                    {"family", GidFamily(g, transport, a.link_layer)},
                    {"netdev", g.netdev.empty() ? port_netdev : g.netdev}});
  }
  return {
      {"port", port.num},
      {"state", PortStateName(a.state)},
      {"phys_state", PhysStateName(a.phys_state)},
      {"link_layer", LinkLayerName(a.link_layer)},
      {"max_mtu", MtuBytes(a.max_mtu)},
      {"active_mtu", MtuBytes(a.active_mtu)},
      {"speed", SpeedName(a.active_speed)},
      {"width", WidthName(a.active_width)},
      {"max_msg_sz", a.max_msg_sz},
      {"gid_tbl_len", a.gid_tbl_len},
      {"pkey_tbl_len", a.pkey_tbl_len},
      {"lid", a.lid},
      {"sm_lid", a.sm_lid},
      {"lmc", a.lmc},
      {"max_vl_num", a.max_vl_num},
      {"port_cap_flags", BitNames(a.port_cap_flags, kPortCapFlags)},
      {"port_cap_flags2", Hex(a.port_cap_flags2)},
      {"netdev", port_netdev},
      {"gids", gids},
  };
}

}  // namespace

std::vector<std::string> DeviceCapFlagNames(uint64_t flags) { return BitNames(flags, kDeviceCapFlags); }

std::string GuidText(__be64 guid) {
  uint64_t g = be64toh(guid);
  return absl::StrFormat("%04x:%04x:%04x:%04x", (g >> 48) & 0xffff, (g >> 32) & 0xffff, (g >> 16) & 0xffff,
                         g & 0xffff);
}

const char* AtomicCapName(ibv_atomic_cap cap) {
  switch (cap) {
    case IBV_ATOMIC_NONE: return "NONE";
    case IBV_ATOMIC_HCA: return "HCA";
    case IBV_ATOMIC_GLOB: return "GLOB";
  }
  return "unknown";
}

absl::StatusOr<nlohmann::json> ReadDeclaredAttributes(ibv_context* context, const ibv_device_attr_ex& attr,
                                                      const NetlinkDevice* netlink) {
  RDMACHECK_ASSIGN_OR_RETURN(DeviceInfo info, Describe(context));
  // device_cap_flags_ex carries all 64 bits; older providers leave it 0 and only fill the 32.
  uint64_t flags = attr.device_cap_flags_ex | attr.orig_attr.device_cap_flags;
  const ibv_odp_caps& odp = attr.odp_caps;
  nlohmann::json ports = nlohmann::json::array();
  for (const PortInfo& port : info.ports) ports.push_back(Port(port, info.transport, netlink));
  return nlohmann::json{
      {"device_cap_flags", DeviceCapFlagNames(flags)},
      {"device_cap_flags_raw", Hex(flags)},
      {"atomic_cap", AtomicCapName(attr.orig_attr.atomic_cap)},
      {"limits", Limits(attr)},
      {"odp",
       {{"general", BitNames(odp.general_caps, kOdpGeneral)},
        {"rc", BitNames(odp.per_transport_caps.rc_odp_caps, kOdpTransport)},
        {"uc", BitNames(odp.per_transport_caps.uc_odp_caps, kOdpTransport)},
        {"ud", BitNames(odp.per_transport_caps.ud_odp_caps, kOdpTransport)},
        {"xrc", BitNames(attr.xrc_odp_caps, kOdpTransport)}}},
      {"completion_timestamp_mask", attr.completion_timestamp_mask},
      {"hca_core_clock_khz", attr.hca_core_clock},
      {"page_size_cap", Hex(attr.orig_attr.page_size_cap)},
      {"sys_image_guid", GuidText(attr.orig_attr.sys_image_guid)},
      {"ports", ports},
  };
}

}  // namespace rdmacheck
