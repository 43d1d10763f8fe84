// Probes of verbs objects besides QPs: SRQs, CQs and memory regions.
#include <sys/mman.h>

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "capabilities/declared/declared_support.h"
#include "capabilities/probes/probes.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// SRQ create, then resize: ibv_modify_srq(IBV_SRQ_MAX_WR) must grow max_wr (ibv_modify_srq(3)).
absl::Status ProbeSrq(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdPtr pd, AllocPd(s.context()));
  ibv_srq_init_attr init{};
  init.attr.max_wr = 16;
  init.attr.max_sge = 1;
  absl::StatusOr<SrqPtr> srq = CreateSrq(pd.get(), init);
  s.Tried(Cap::kSrq, srq.status(), "ibv_create_srq(max_wr=16) returned an SRQ");
  if (!srq.ok()) {
    // Absent with the SRQ, or broken with it: never absent because the SRQ misbehaved.
    s.Record(Cap::kSrqResize, s.report().observed[Cap::kSrq].outcome, ErrnoOf(srq.status()).value_or(0),
             "no SRQ to resize");
    return absl::OkStatus();
  }
  const uint32_t before = init.attr.max_wr;  // as asked; the SRQ may have been given more
  ibv_srq_attr grow{};
  grow.max_wr = before * 4;
  if (int rc = ibv_modify_srq(srq->get(), &grow, IBV_SRQ_MAX_WR); rc != 0) {
    s.Tried(Cap::kSrqResize, ErrnoStatus(rc, absl::StrCat("ibv_modify_srq(max_wr ", before, " -> ", grow.max_wr, ")")),
            "");
    return absl::OkStatus();
  }
  ibv_srq_attr after{};
  if (int rc = ibv_query_srq(srq->get(), &after); rc != 0) {
    s.Record(Cap::kSrqResize, Outcome::kSupported, 0,
             absl::StrCat("ibv_modify_srq(max_wr=", grow.max_wr, ") returned 0; the size is unconfirmed: ibv_query_srq: ",
                          ErrnoName(rc)));
  } else if (after.max_wr < grow.max_wr) {
    s.Record(Cap::kSrqResize, Outcome::kBroken, 0,
             absl::StrCat("ibv_modify_srq(max_wr=", grow.max_wr, ") returned 0, but max_wr is ", after.max_wr));
  } else {
    s.Record(Cap::kSrqResize, Outcome::kSupported, 0,
             absl::StrCat("max_wr ", before, " -> ", after.max_wr, " (asked ", grow.max_wr, ")"));
  }
  return absl::OkStatus();
}

// CQ resize: ibv_resize_cq must leave at least the requested number of entries.
absl::Status ProbeCqResize(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(CqPtr cq, CreateCq(s.context(), 16));
  const int before = cq->cqe;
  const int wanted = 256;
  if (int rc = ibv_resize_cq(cq.get(), wanted); rc != 0) {
    s.Tried(Cap::kCqResize, ErrnoStatus(rc, absl::StrCat("ibv_resize_cq(", before, " -> ", wanted, ")")), "");
    return absl::OkStatus();
  }
  if (cq->cqe < wanted) {
    s.Record(Cap::kCqResize, Outcome::kBroken, 0,
             absl::StrCat("ibv_resize_cq(", wanted, ") returned 0, but the CQ has ", cq->cqe, " entries"));
  } else {
    s.Record(Cap::kCqResize, Outcome::kSupported, 0, absl::StrCat("cqe ", before, " -> ", cq->cqe));
  }
  return absl::OkStatus();
}

absl::Status ProbeCqEx(ProbeScope& s) {
  ibv_cq_init_attr_ex attr{};
  attr.cqe = 16;
  attr.wc_flags = IBV_WC_STANDARD_FLAGS;
  ibv_cq_ex* cq_ex = ibv_create_cq_ex(s.context(), &attr);
  if (cq_ex == nullptr) {
    s.Tried(Cap::kCqEx, ErrnoStatus(errno, "ibv_create_cq_ex(wc_flags=IBV_WC_STANDARD_FLAGS)"), "");
    return absl::OkStatus();
  }
  CqPtr cq(ibv_cq_ex_to_cq(cq_ex));
  bool has_poll = cq_ex->start_poll != nullptr && cq_ex->next_poll != nullptr && cq_ex->end_poll != nullptr;
  if (!has_poll) {
    s.Record(Cap::kCqEx, Outcome::kBroken, 0, "ibv_create_cq_ex returned a CQ without start_poll/next_poll/end_poll");
  } else {
    s.Record(Cap::kCqEx, Outcome::kSupported, 0, "ibv_create_cq_ex(wc_flags=IBV_WC_STANDARD_FLAGS) returned a CQ");
  }
  return absl::OkStatus();
}

// A zero-length MR (ibv_reg_mr(3) allows length 0 for no memory at all).
absl::Status ProbeZeroLengthMr(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdPtr pd, AllocPd(s.context()));
  // Page-aligned and unaligned: a zero-length region at a page boundary spans no page, which
  // some drivers refuse (ib_umem_get), while one inside a page spans that page.
  alignas(4096) static uint8_t page[4096];
  absl::StatusOr<MrPtr> aligned = RegMr(pd.get(), page, 0, IBV_ACCESS_LOCAL_WRITE);
  absl::StatusOr<MrPtr> unaligned = RegMr(pd.get(), page + 100, 0, IBV_ACCESS_LOCAL_WRITE);
  std::string detail = absl::StrCat("ibv_reg_mr(length=0): page-aligned ",
                                    aligned.ok() ? "registered" : aligned.status().message(), "; unaligned ",
                                    unaligned.ok() ? "registered" : unaligned.status().message());
  s.Tried(Cap::kZeroLengthMr, aligned.ok() ? aligned.status() : unaligned.status(), detail);
  return absl::OkStatus();
}

// ibv_rereg_mr: does the verb exist, in any of its three modes? Each mode is tried once on a
// fresh MR and only acceptance is noted; what the MR looks like afterwards is MrReregTest's
// to grade, one test per mode.
absl::Status ProbeReregMr(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdPtr pd, AllocPd(s.context()));
  RDMACHECK_ASSIGN_OR_RETURN(PdPtr other_pd, AllocPd(s.context()));
  std::vector<uint8_t> first(4096), second(4096);
  struct Mode {
    const char* name;
    int flags;
  };
  const Mode modes[] = {{"CHANGE_TRANSLATION", IBV_REREG_MR_CHANGE_TRANSLATION},
                        {"CHANGE_ACCESS", IBV_REREG_MR_CHANGE_ACCESS},
                        {"CHANGE_PD", IBV_REREG_MR_CHANGE_PD}};
  std::vector<std::string> answers;
  absl::Status first_refusal;
  bool accepted = false;
  for (const Mode& mode : modes) {
    RDMACHECK_ASSIGN_OR_RETURN(MrPtr mr, RegMr(pd.get(), first.data(), first.size(), IBV_ACCESS_LOCAL_WRITE));
    errno = 0;
    // access must be 0 unless IBV_REREG_MR_CHANGE_ACCESS is set (ibv_rereg_mr(3)).
    const int rc = ibv_rereg_mr(mr.get(), mode.flags, other_pd.get(), second.data(), second.size(),
                                mode.flags == IBV_REREG_MR_CHANGE_ACCESS ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ : 0);
    if (rc == 0) {
      accepted = true;
      answers.push_back(absl::StrCat(mode.name, " accepted"));
    } else {
      const int err = errno;
      answers.push_back(absl::StrCat(mode.name, " refused (", rc, ", ", ErrnoName(err), ")"));
      if (first_refusal.ok()) {
        first_refusal = err != 0 ? ErrnoStatus(err, absl::StrCat("ibv_rereg_mr(", mode.name, ")"))
                                 : absl::UnknownError(absl::StrCat("ibv_rereg_mr(", mode.name, ") returned ", rc,
                                                                   " and left errno 0"));
      }
    }
  }
  const std::string detail = absl::StrCat("ibv_rereg_mr: ", absl::StrJoin(answers, "; "));
  if (accepted) {
    s.Record(Cap::kReregMr, Outcome::kSupported, 0, detail);
  } else {
    s.Tried(Cap::kReregMr, first_refusal, detail);
  }
  return absl::OkStatus();
}

// On-demand paging: declared (odp_caps.general_caps ODP_SUPPORT) and an MR registered with
// IBV_ACCESS_ON_DEMAND (pages are not pinned). Which operations work on such MRs, per
// transport (odp_caps.per_transport_caps), is OdpTest's to grade.
absl::Status ProbeOdp(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdPtr pd, AllocPd(s.context()));
  std::vector<uint8_t> buffer(1 << 16);
  absl::StatusOr<MrPtr> mr =
      RegMr(pd.get(), buffer.data(), buffer.size(), IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND);
  std::optional<DeclaredHint> hint = DeclaredSupport(s.declared(), s.port(), Cap::kOdp);
  if (mr.ok() && hint && !hint->declared) {
    s.Record(Cap::kOdp, Outcome::kUnsupported, 0,
             absl::StrCat("not declared (", hint->evidence, "); ibv_reg_mr(IBV_ACCESS_ON_DEMAND) still returned an MR"));
    return absl::OkStatus();
  }
  s.Tried(Cap::kOdp, mr.status(), "ibv_reg_mr(IBV_ACCESS_ON_DEMAND) returned an MR");
  return absl::OkStatus();
}

// MRs at an iova (ibv_reg_mr_iova2): registration at an iova far from the buffer's address,
// and at iova 0 (zero-based). Only acceptance is noted; that the device then addresses the
// MR by its iova, lkey and rkey alike, is IovaMrTest's to grade.
absl::Status ProbeMrIova(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdPtr pd, AllocPd(s.context()));
  alignas(4096) static uint8_t page[4096];
  constexpr int kAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  constexpr uint64_t kIova = uint64_t{1} << 44;  // page-aligned like the buffer (the kernel wants equal page offsets)
  absl::StatusOr<MrPtr> shifted = RegMrAtIova(pd.get(), page, sizeof(page), kIova, kAccess);
  s.Tried(Cap::kMrIova, shifted.status(), "ibv_reg_mr_iova2(iova=0x100000000000) returned an MR");
  absl::StatusOr<MrPtr> zero_based = RegMrAtIova(pd.get(), page, sizeof(page), 0, kAccess);
  s.Tried(Cap::kZeroBasedMr, zero_based.status(), "ibv_reg_mr_iova2(iova=0) returned an MR");
  return absl::OkStatus();
}

}  // namespace

std::vector<ProbeSpec> ObjectProbes() {
  return {
      {"srq", {Cap::kSrq, Cap::kSrqResize}, ProbeSrq},
      {"cq_resize", {Cap::kCqResize}, ProbeCqResize},
      {"cq_ex", {Cap::kCqEx}, ProbeCqEx},
      {"zero_length_mr", {Cap::kZeroLengthMr}, ProbeZeroLengthMr},
      {"rereg_mr", {Cap::kReregMr}, ProbeReregMr},
      {"odp", {Cap::kOdp}, ProbeOdp},
      {"mr_iova", {Cap::kMrIova, Cap::kZeroBasedMr}, ProbeMrIova},
  };
}

}  // namespace rdmacheck
