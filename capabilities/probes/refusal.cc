#include "capabilities/probes/refusal.h"

#include <cerrno>
#include <map>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

// Per capability, the verb whose refusal is the device saying "not here" (the man page
// that documents the refusal in the comment).
const std::map<Cap, std::vector<NamingVerb>>& Table() {
  static const auto* table = new std::map<Cap, std::vector<NamingVerb>>{
      // ibv_create_qp(3): EINVAL / EOPNOTSUPP for a QP type the device lacks.
      {Cap::kRcQp, {{"ibv_create_qp", ""}}},
      {Cap::kUcQp, {{"ibv_create_qp", ""}}},
      {Cap::kUdQp, {{"ibv_create_qp", ""}}},
      // ibv_open_xrcd(3), ibv_create_srq_ex(3), ibv_create_qp_ex(3) of the XRC types.
      {Cap::kXrc, {{"ibv_open_xrcd", ""}, {"ibv_create_srq_ex", "XRC"}, {"ibv_create_qp_ex", "XRC"}}},
      {Cap::kAddressHandle, {{"ibv_create_ah", ""}}},
      {Cap::kSrq, {{"ibv_create_srq", ""}}},
      {Cap::kSrqResize, {{"ibv_modify_srq", ""}}},
      {Cap::kCqResize, {{"ibv_resize_cq", ""}}},
      {Cap::kCqEx, {{"ibv_create_cq_ex", ""}}},
      {Cap::kQpEx, {{"ibv_create_qp_ex", "send_ops_flags"}}},
      {Cap::kMwType1, {{"ibv_alloc_mw", "type 1"}, {"ibv_bind_mw", "type 1"}}},
      {Cap::kMwType2, {{"ibv_alloc_mw", "type 2"}, {"ibv_post_send", ""}}},  // the BIND_MW WR
      {Cap::kZeroLengthMr, {{"ibv_reg_mr", "length=0"}}},
      {Cap::kReregMr, {{"ibv_rereg_mr", ""}}},
      {Cap::kOdp, {{"ibv_reg_mr", "ON_DEMAND"}}},
      {Cap::kMrIova, {{"ibv_reg_mr_iova2", ""}}},
      {Cap::kZeroBasedMr, {{"ibv_reg_mr_iova2", ""}}},
      // ibv_create_qp(3) with cap.max_inline_data: the only way to ask for inline data.
      {Cap::kInlineData, {{"ibv_create_qp", ""}}},
      // ibv_post_send(3): EINVAL for an opcode the QP does not carry.
      {Cap::kRdmaWrite, {{"ibv_post_send", ""}}},
      {Cap::kRdmaRead, {{"ibv_post_send", ""}}},
      {Cap::kWriteWithImm, {{"ibv_post_send", ""}}},
      {Cap::kSendWithImm, {{"ibv_post_send", ""}}},
      {Cap::kSendWithInv, {{"ibv_post_send", ""}}},
      {Cap::kAtomics, {{"ibv_post_send", ""}}},
      {Cap::kAtomicWrite, {{"ibv_create_qp_ex", "ATOMIC_WRITE"}}},
      {Cap::kFlush, {{"ibv_create_qp_ex", "FLUSH"}, {"ibv_reg_mr", ""}}},
      // ibv_modify_qp(3) INIT->RTR is where a path MTU is given.
      {Cap::kMtu4096, {{"ibv_modify_qp", "to RTR"}}},
      {Cap::kQpStateQuery, {{"ibv_query_qp", ""}}},
      {Cap::kRdmaCm, {{"rdma_create_id", ""}, {"rdma_resolve_addr", ""}}},
      {Cap::kIpv6Gid, {{"rdma_bind_addr", ""}, {"rdma_resolve_addr", ""}}},
      {Cap::kMulticast, {{"ibv_attach_mcast", ""}}},
      {Cap::kCmMulticast, {{"rdma_join_multicast", ""}}},
  };
  return *table;
}

bool NamesCall(absl::string_view message, const NamingVerb& naming) {
  if (!absl::StartsWith(message, naming.verb)) return false;
  absl::string_view rest = message.substr(absl::string_view(naming.verb).size());
  if (rest.empty() || (rest[0] != '(' && rest[0] != ':' && rest[0] != ' ')) return false;  // ibv_create_qp_ex
  return absl::StrContains(message, naming.attribute);
}

}  // namespace

const std::vector<NamingVerb>& NamingVerbs(Cap cap) {
  static const auto* none = new std::vector<NamingVerb>;
  auto it = Table().find(cap);
  return it == Table().end() ? *none : it->second;
}

bool IsRefusal(const absl::Status& status, Cap cap) {
  std::optional<int> err = ErrnoOf(status);
  if (!err) return false;  // a completion error, a timeout, wrong data: it was accepted
  switch (*err < 0 ? -*err : *err) {
    case EOPNOTSUPP:       // the kernel's and providers' "not implemented"
    case ENOSYS:           // no kernel support (ibv_create_qp(3), ibv_open_xrcd(3))
    case EPROTONOSUPPORT:  // a QP type or transport the device lacks
    case EINVAL:           // ibv_post_send(3), ibv_create_qp(3), ibv_modify_qp(3): "invalid value" is how
                           // verbs refuse an opcode, a QP type or an attribute they do not have
      break;
    default:
      return false;
  }
  for (const NamingVerb& naming : NamingVerbs(cap)) {
    if (NamesCall(status.message(), naming)) return true;
  }
  return false;
}

}  // namespace rdmacheck
