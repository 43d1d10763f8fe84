#include "capabilities/probes/probes.h"

#include "absl/strings/str_cat.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {

const std::vector<ProbeSpec>& AllProbes() {
  static const std::vector<ProbeSpec> all = [] {
    std::vector<ProbeSpec> probes;
    for (auto group : {QpProbes, ObjectProbes, EnvironmentProbes, ConnectionProbes, OperationProbes, NetworkProbes,
                       MemoryOpProbes}) {
      for (ProbeSpec& spec : group()) probes.push_back(std::move(spec));
    }
    return probes;
  }();
  return all;
}

absl::StatusOr<PdAndCq> MakePdAndCq(ibv_context* context) {
  PdAndCq made;
  RDMACHECK_ASSIGN_OR_RETURN(made.pd, AllocPd(context));
  RDMACHECK_ASSIGN_OR_RETURN(made.cq, CreateCq(context, 64));
  return made;
}

absl::StatusOr<QpPtr> CreateRcQpEx(ibv_context* context, const PdAndCq& base, uint64_t send_ops_flags,
                                   const char* what) {
  ibv_qp_init_attr_ex attr{};
  attr.qp_type = IBV_QPT_RC;
  attr.send_cq = base.cq.get();
  attr.recv_cq = base.cq.get();
  attr.cap.max_send_wr = 16;
  attr.cap.max_recv_wr = 16;
  attr.cap.max_send_sge = 1;
  attr.cap.max_recv_sge = 1;
  attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
  attr.pd = base.pd.get();
  attr.send_ops_flags = send_ops_flags;
  QpPtr qp(ibv_create_qp_ex(context, &attr));
  if (!qp) return ErrnoStatus(errno, absl::StrCat("ibv_create_qp_ex(send_ops_flags=", what, ")"));
  return qp;
}

}  // namespace rdmacheck
