#include "capabilities/profile/cap.h"

#include <array>
#include <utility>

namespace rdmacheck {
namespace {
constexpr std::pair<Cap, const char*> kNames[] = {
    {Cap::kRcQp, "rc_qp"},
    {Cap::kManualConnect, "manual_connect"},
    {Cap::kRdmaCm, "rdma_cm"},
    {Cap::kUcQp, "uc_qp"},
    {Cap::kUdQp, "ud_qp"},
    {Cap::kXrc, "xrc"},
    {Cap::kAddressHandle, "address_handle"},
    {Cap::kSrq, "srq"},
    {Cap::kSrqResize, "srq_resize"},
    {Cap::kCqResize, "cq_resize"},
    {Cap::kCqEx, "cq_ex"},
    {Cap::kQpEx, "qp_ex"},
    {Cap::kMwType1, "mw_type1"},
    {Cap::kMwType2, "mw_type2"},
    {Cap::kZeroLengthMr, "zero_length_mr"},
    {Cap::kReregMr, "rereg_mr"},
    {Cap::kOdp, "odp"},
    {Cap::kMrIova, "mr_iova"},
    {Cap::kZeroBasedMr, "zero_based_mr"},
    {Cap::kInlineData, "inline_data"},
    {Cap::kRdmaWrite, "rdma_write"},
    {Cap::kRdmaRead, "rdma_read"},
    {Cap::kWriteWithImm, "write_with_imm"},
    {Cap::kSendWithImm, "send_with_imm"},
    {Cap::kSendWithInv, "send_with_inv"},
    {Cap::kAtomics, "atomics"},
    {Cap::kAtomicWrite, "atomic_write"},
    {Cap::kFlush, "flush"},
    {Cap::kMultiSgeRead, "multi_sge_read"},
    {Cap::kRnrRetry, "rnr_retry"},
    {Cap::kMtu4096, "mtu_4096"},
    {Cap::kIpv6Gid, "ipv6_gid"},
    {Cap::kMemlock, "memlock"},
    {Cap::kForkSafe, "fork_safe"},
    {Cap::kMulticast, "multicast"},
    {Cap::kCmMulticast, "cm_multicast"},
    {Cap::kLinkEvents, "link_events"},
    {Cap::kIpGids, "ip_gids"},
    {Cap::kTrafficCounters, "traffic_counters"},
    {Cap::kQpStateQuery, "qp_state_query"},
};
}  // namespace

const std::vector<Cap>& AllCaps() {
  static const std::vector<Cap> all = [] {
    std::vector<Cap> caps;
    for (const auto& [cap, name] : kNames) caps.push_back(cap);
    return caps;
  }();
  return all;
}

const char* CapName(Cap cap) {
  for (const auto& [c, name] : kNames) {
    if (c == cap) return name;
  }
  return "unknown_capability";
}

std::optional<Cap> CapFromName(absl::string_view name) {
  for (const auto& [cap, n] : kNames) {
    if (n == name) return cap;
  }
  return std::nullopt;
}

}  // namespace rdmacheck
