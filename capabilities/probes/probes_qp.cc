// Probes of QP creation: RC and XRC QPs, what a QP create really accepts (inline data,
// send SGEs), and a 4096-byte path MTU.
#include <fcntl.h>

#include <algorithm>
#include <functional>

#include "absl/strings/str_cat.h"
#include "capabilities/probes/probes.h"
#include "capabilities/probes/refusal.h"
#include "harness/connection/connected_pair.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

absl::Status CreateQpType(ProbeScope& s, Cap cap, ibv_qp_type type, const char* name) {
  RDMACHECK_ASSIGN_OR_RETURN(PdAndCq base, MakePdAndCq(s.context()));
  absl::StatusOr<QpPtr> qp = CreateQp(base.pd.get(), QpInitAttr(type, base.cq.get()));
  s.Tried(cap, qp.status(), absl::StrCat("ibv_create_qp(", name, ") returned a QP"));
  return absl::OkStatus();
}

absl::Status ProbeRcQp(ProbeScope& s) { return CreateQpType(s, Cap::kRcQp, IBV_QPT_RC, "RC"); }

// XRC: a domain, an XRC SRQ in it, and both XRC QP types (IBTA 9.8.1 / ibv_open_xrcd(3)).
absl::Status ProbeXrc(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdAndCq base, MakePdAndCq(s.context()));
  ibv_xrcd_init_attr xrcd_attr{};
  xrcd_attr.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
  xrcd_attr.fd = -1;  // a domain of this process alone
  xrcd_attr.oflags = O_CREAT;
  XrcdPtr xrcd(ibv_open_xrcd(s.context(), &xrcd_attr));
  if (!xrcd) {
    s.Tried(Cap::kXrc, ErrnoStatus(errno, "ibv_open_xrcd"), "");
    return absl::OkStatus();
  }
  ibv_srq_init_attr_ex srq_attr{};
  srq_attr.attr.max_wr = 16;
  srq_attr.attr.max_sge = 1;
  srq_attr.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD;
  srq_attr.srq_type = IBV_SRQT_XRC;
  srq_attr.xrcd = xrcd.get();
  srq_attr.cq = base.cq.get();
  srq_attr.pd = base.pd.get();
  SrqPtr srq(ibv_create_srq_ex(s.context(), &srq_attr));
  if (!srq) {
    s.Tried(Cap::kXrc, ErrnoStatus(errno, "ibv_create_srq_ex(XRC)"), "");
    return absl::OkStatus();
  }
  ibv_qp_init_attr_ex send_attr{};
  send_attr.qp_type = IBV_QPT_XRC_SEND;
  send_attr.send_cq = base.cq.get();
  send_attr.cap.max_send_wr = 16;
  send_attr.cap.max_send_sge = 1;
  send_attr.comp_mask = IBV_QP_INIT_ATTR_PD;
  send_attr.pd = base.pd.get();
  QpPtr send(ibv_create_qp_ex(s.context(), &send_attr));
  if (!send) {
    s.Tried(Cap::kXrc, ErrnoStatus(errno, "ibv_create_qp_ex(XRC_SEND)"), "");
    return absl::OkStatus();
  }
  ibv_qp_init_attr_ex recv_attr{};
  recv_attr.qp_type = IBV_QPT_XRC_RECV;
  recv_attr.comp_mask = IBV_QP_INIT_ATTR_XRCD;
  recv_attr.xrcd = xrcd.get();
  QpPtr recv(ibv_create_qp_ex(s.context(), &recv_attr));
  s.Tried(Cap::kXrc, recv ? absl::OkStatus() : ErrnoStatus(errno, "ibv_create_qp_ex(XRC_RECV)"),
          "XRC domain, XRC SRQ, XRC_SEND and XRC_RECV QPs created");
  return absl::OkStatus();
}

// The largest value in [lo, hi] that `accepts` takes, given that its answers are monotonic.
struct Largest {
  uint32_t value = 0;
  bool at_ceiling = false;  // hi itself was accepted: the real limit may be higher
  absl::Status refusal;     // what value + 1 got
};

absl::StatusOr<Largest> LargestAccepted(uint32_t lo, uint32_t hi, const std::function<absl::Status(uint32_t)>& accepts) {
  RDMACHECK_RETURN_IF_ERROR(accepts(lo));
  absl::Status at_hi = accepts(hi);
  if (at_hi.ok()) return Largest{hi, true, absl::OkStatus()};
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    absl::Status s = accepts(mid);
    if (s.ok()) {
      lo = mid;
    } else {
      hi = mid;
      at_hi = s;
    }
  }
  return Largest{lo, false, at_hi};
}

std::string RefusalText(const Largest& l, const char* what) {
  if (l.at_ceiling) return absl::StrCat("QP create accepts ", what, "=", l.value, " (the probe's ceiling)");
  std::string errno_text = ErrnoOf(l.refusal) ? ErrnoName(*ErrnoOf(l.refusal)) : std::string(l.refusal.message());
  return absl::StrCat("QP create accepts ", what, "=", l.value, ", refuses ", l.value + 1, " (", errno_text, ")");
}

absl::Status TryRcCreate(ibv_pd* pd, ibv_cq* cq, const std::function<void(ibv_qp_init_attr&)>& adjust,
                         ibv_qp_cap* granted = nullptr) {
  ibv_qp_init_attr attr = QpInitAttr(IBV_QPT_RC, cq);
  adjust(attr);
  QpPtr qp(ibv_create_qp(pd, &attr));
  if (!qp) return ErrnoStatus(errno, "ibv_create_qp(RC)");
  if (granted != nullptr) *granted = attr.cap;
  return absl::OkStatus();
}

// The real inline data limit: the verbs API has no attribute for it, only QP create
// accepting or refusing cap.max_inline_data.
absl::Status ProbeInline(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdAndCq base, MakePdAndCq(s.context()));
  absl::StatusOr<Largest> largest = LargestAccepted(0, 1 << 16, [&](uint32_t size) {
    return TryRcCreate(base.pd.get(), base.cq.get(), [size](ibv_qp_init_attr& a) { a.cap.max_inline_data = size; });
  });
  if (!largest.ok()) {
    s.Tried(Cap::kInlineData, largest.status(), "");
    return absl::OkStatus();
  }
  ibv_qp_cap granted{};
  RDMACHECK_RETURN_IF_ERROR(TryRcCreate(
      base.pd.get(), base.cq.get(), [&](ibv_qp_init_attr& a) { a.cap.max_inline_data = largest->value; }, &granted));
  std::string detail = absl::StrCat(RefusalText(*largest, "max_inline_data"), "; the created QP reports ",
                                    granted.max_inline_data);
  s.Measure("max_inline_data", largest->value, detail);
  if (largest->value == 0) {
    // Absent only when QP create refused max_inline_data=1 the way verbs refuse an
    // attribute; ENOMEM or EFAULT there is create failing.
    const bool refused = IsRefusal(largest->refusal, Cap::kInlineData);
    s.Record(Cap::kInlineData, refused ? Outcome::kUnsupported : Outcome::kBroken,
             ErrnoOf(largest->refusal).value_or(0), refused ? detail : absl::StrCat("QP create failed: ", detail));
  } else {
    s.Record(Cap::kInlineData, Outcome::kSupported, 0, detail);
  }
  return absl::OkStatus();
}

// The real send SGE limit, against the declared max_sge.
absl::Status ProbeSendSge(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdAndCq base, MakePdAndCq(s.context()));
  const uint32_t declared = std::max(s.attr().orig_attr.max_sge, 1);
  RDMACHECK_ASSIGN_OR_RETURN(Largest largest, LargestAccepted(1, std::max<uint32_t>(4 * declared, 64), [&](uint32_t n) {
                               return TryRcCreate(base.pd.get(), base.cq.get(),
                                                  [n](ibv_qp_init_attr& a) { a.cap.max_send_sge = n; });
                             }));
  s.Measure("max_send_sge", largest.value,
            absl::StrCat(RefusalText(largest, "max_send_sge"), "; declared max_sge=", s.attr().orig_attr.max_sge));
  return absl::OkStatus();
}

// A 4096-byte path MTU: accepted by INIT->RTR on an RC QP (pointed at itself; RTR needs
// no peer to exist), and kept (ibv_query_qp). iWARP has no path MTU attribute: TCP decides.
absl::Status ProbeMtu4096(ProbeScope& s) {
  const int max_mtu = MtuBytes(s.selection().port_attr.max_mtu);
  if (s.IsIwarp()) {
    s.Record(Cap::kMtu4096, Outcome::kUnsupported, 0,
             absl::StrCat("iWARP QPs have no path MTU (TCP segments the stream); port max_mtu=", max_mtu));
    return absl::OkStatus();
  }
  if (max_mtu < 4096) {
    s.Record(Cap::kMtu4096, Outcome::kUnsupported, 0, absl::StrCat("port max_mtu=", max_mtu));
    return absl::OkStatus();
  }
  RDMACHECK_ASSIGN_OR_RETURN(PdAndCq base, MakePdAndCq(s.context()));
  RDMACHECK_ASSIGN_OR_RETURN(QpPtr qp, CreateQp(base.pd.get(), QpInitAttr(IBV_QPT_RC, base.cq.get())));
  const PathOptions path = PathFor(s.selection(), PathOptions{}, IBV_MTU_4096);
  RDMACHECK_RETURN_IF_ERROR(ModifyQp(qp.get(), InitAttr(IBV_QPT_RC, path)));
  const QpAddress self{qp->qp_num, s.selection().port_attr.lid, s.selection().gid.gid, 0};
  absl::Status rtr = ModifyQp(qp.get(), RtrAttr(IBV_QPT_RC, self, path));
  const std::string port_text =
      absl::StrCat("port max_mtu=", max_mtu, ", active_mtu=", MtuBytes(s.selection().port_attr.active_mtu));
  if (!rtr.ok()) {
    s.Tried(Cap::kMtu4096, rtr, "");
    return absl::OkStatus();
  }
  ibv_qp_attr now{};
  ibv_qp_init_attr init_now{};
  if (int q = ibv_query_qp(qp.get(), &now, IBV_QP_PATH_MTU, &init_now); q != 0) return ErrnoStatus(q, "ibv_query_qp");
  if (now.path_mtu != IBV_MTU_4096) {
    s.Record(Cap::kMtu4096, Outcome::kBroken, 0,
             absl::StrCat("RTR accepted path_mtu=4096, but ibv_query_qp reports ", MtuBytes(now.path_mtu), "; ",
                          port_text));
    return absl::OkStatus();
  }
  s.Record(Cap::kMtu4096, Outcome::kSupported, 0, absl::StrCat("INIT->RTR with path_mtu=4096 accepted; ", port_text));
  return absl::OkStatus();
}

// Does ibv_query_qp report the state? A QP moved RESET->INIT must read back INIT. Every
// qp_state test reads states back; where this is broken, a read-back that agrees with the
// test proves nothing, and those tests say so (suites/qp_state/qp_state_test_base.h).
absl::Status ProbeQpStateQuery(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdAndCq base, MakePdAndCq(s.context()));
  RDMACHECK_ASSIGN_OR_RETURN(QpPtr qp, CreateQp(base.pd.get(), QpInitAttr(IBV_QPT_RC, base.cq.get())));
  absl::Status init = ModifyQp(qp.get(), InitAttr(IBV_QPT_RC, PathFor(s.selection(), PathOptions{})));
  if (!init.ok()) {
    s.Tried(Cap::kQpStateQuery, init, "");
    return absl::OkStatus();
  }
  absl::StatusOr<ibv_qp_attr> now = QueryQp(qp.get(), IBV_QP_STATE);
  if (!now.ok()) {
    s.Tried(Cap::kQpStateQuery, now.status(), "");
  } else if (now->qp_state != IBV_QPS_INIT) {
    s.Record(Cap::kQpStateQuery, Outcome::kBroken, 0,
             absl::StrCat("after RESET->INIT ibv_query_qp says ", QpStateName(now->qp_state)));
  } else {
    s.Record(Cap::kQpStateQuery, Outcome::kSupported, 0, "after RESET->INIT ibv_query_qp says INIT");
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<ProbeSpec> QpProbes() {
  return {
      {"rc_qp", {Cap::kRcQp}, ProbeRcQp},
      {"xrc", {Cap::kXrc}, ProbeXrc},
      {"inline_data", {Cap::kInlineData}, ProbeInline},
      {"send_sge", {}, ProbeSendSge},
      {"mtu_4096", {Cap::kMtu4096}, ProbeMtu4096},
      {"qp_state_query", {Cap::kQpStateQuery}, ProbeQpStateQuery},
  };
}

}  // namespace rdmacheck
