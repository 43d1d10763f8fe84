// Probes of the memory-placement operations (IBTA Vol 1 1.5, Annex A19): ATOMIC WRITE and
// RDMA FLUSH. Each answers "is it there?" only: declared by the device (device_cap_flags)
// and accepted by the verbs that set it up (a QP with its send_ops_flags, an MR with the
// FLUSH access). What the operation then does on the wire is AtomicWriteTest's and
// FlushTest's to grade (suites/memory_ops).
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "capabilities/declared/declared_support.h"
#include "capabilities/probes/probes.h"
#include "harness/status.h"
#include "harness/verbs/extensions.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// What happened to a verb the device does not declare, for the evidence of "absent".
std::string Aside(const absl::Status& status, const char* accepted) {
  return status.ok() ? absl::StrCat("; ", accepted) : absl::StrCat("; ", status.message());
}

// An operation the device does not declare is absent whatever its provider accepts: a
// provider may take the opcode that the kernel then cannot execute (rdma-core 44's rxe
// provider on kernel 6.1). UndeclaredAtomicWriteTest grades what such a post does.
absl::Status ProbeAtomicWrite(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdAndCq base, MakePdAndCq(s.context()));
  absl::StatusOr<QpPtr> qp = CreateRcQpEx(s.context(), base, IBV_QP_EX_WITH_ATOMIC_WRITE, "ATOMIC_WRITE");
  std::optional<DeclaredHint> hint = DeclaredSupport(s.declared(), s.port(), Cap::kAtomicWrite);
  if (hint && !hint->declared) {
    s.Record(Cap::kAtomicWrite, Outcome::kUnsupported, ErrnoOf(qp.status()).value_or(0),
             absl::StrCat("not declared (", hint->evidence, ")",
                          Aside(qp.status(), "the provider still accepts IBV_QP_EX_WITH_ATOMIC_WRITE")));
    return absl::OkStatus();
  }
  s.Tried(Cap::kAtomicWrite, qp.status(), "declared; ibv_create_qp_ex(IBV_QP_EX_WITH_ATOMIC_WRITE) returned a QP");
  return absl::OkStatus();
}

absl::Status ProbeFlush(ProbeScope& s) {
#if !RDMACHECK_HAVE_IBV_WR_FLUSH
  s.Record(Cap::kFlush, Outcome::kUnsupported, 0, kNoIbvWrFlush);
  return absl::OkStatus();
#else
  RDMACHECK_ASSIGN_OR_RETURN(PdAndCq base, MakePdAndCq(s.context()));
  absl::StatusOr<QpPtr> qp = CreateRcQpEx(s.context(), base, IBV_QP_EX_WITH_FLUSH, "FLUSH");
  alignas(4096) static uint8_t page[4096];
  absl::StatusOr<MrPtr> mr = qp.ok() ? RegMr(base.pd.get(), page, sizeof(page),
                                             IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_FLUSH_GLOBAL)
                                     : absl::StatusOr<MrPtr>(qp.status());
  std::optional<DeclaredHint> hint = DeclaredSupport(s.declared(), s.port(), Cap::kFlush);
  if (hint && !hint->declared) {
    s.Record(Cap::kFlush, Outcome::kUnsupported, ErrnoOf(mr.status()).value_or(0),
             absl::StrCat("not declared (", hint->evidence, ")",
                          Aside(mr.status(), "the QP and an IBV_ACCESS_FLUSH_GLOBAL MR are still accepted")));
    return absl::OkStatus();
  }
  s.Tried(Cap::kFlush, mr.status(),
          "declared; ibv_create_qp_ex(IBV_QP_EX_WITH_FLUSH) and ibv_reg_mr(IBV_ACCESS_FLUSH_GLOBAL) accepted");
  return absl::OkStatus();
#endif
}

}  // namespace

std::vector<ProbeSpec> MemoryOpProbes() {
  return {
      {"atomic_write", {Cap::kAtomicWrite}, ProbeAtomicWrite},
      {"flush", {Cap::kFlush}, ProbeFlush},
  };
}

}  // namespace rdmacheck
