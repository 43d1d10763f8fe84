#include "suites/rdma_cm/cm_side.h"

#include "absl/strings/str_cat.h"
#include "harness/completion.h"
#include "harness/connection/work_requests.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {

CmSide::~CmSide() {
  if (id && id->qp != nullptr) rdma_destroy_qp(id.get());  // before the PD and CQ go
}

absl::StatusOr<std::unique_ptr<CmSide>> CmSide::Create(rdma_port_space ps) {
  auto side = std::make_unique<CmSide>();
  RDMACHECK_ASSIGN_OR_RETURN(side->channel, CreateCmChannel());
  RDMACHECK_ASSIGN_OR_RETURN(side->id, CreateCmId(side->channel.get(), ps));
  return side;
}

absl::Status CmSide::AddQp(ibv_qp_type type) {
  if (!id || id->verbs == nullptr) return absl::FailedPreconditionError("the id is not bound to a device yet");
  RDMACHECK_ASSIGN_OR_RETURN(pd, AllocPd(id->verbs));
  RDMACHECK_ASSIGN_OR_RETURN(cq, CreateCq(id->verbs, 32));
  RDMACHECK_ASSIGN_OR_RETURN(mr, RegMr(pd.get(), absl::MakeSpan(buffer), IBV_ACCESS_LOCAL_WRITE));
  ibv_qp_init_attr attr = QpInitAttr(type, cq.get(), 8, 1);
  if (rdma_create_qp(id.get(), pd.get(), &attr) != 0) return ErrnoStatus(errno, "rdma_create_qp");
  return absl::OkStatus();
}

absl::StatusOr<ibv_wc> CmSide::Send(uint32_t length) {
  ibv_sge sge = MakeSge(mr.get(), 0, length);
  ibv_send_wr wr = SendWr(1, &sge, 1);
  RDMACHECK_RETURN_IF_ERROR(PostSend(id->qp, wr));
  return PollCompletion(cq.get());
}

absl::StatusOr<ResolvedCm> ListenAndResolve(const sockaddr_storage& address) {
  ResolvedCm cm;
  RDMACHECK_ASSIGN_OR_RETURN(cm.server, CmSide::Create());
  cm.server->listener = std::move(cm.server->id);
  RDMACHECK_ASSIGN_OR_RETURN(sockaddr_storage listening, Listen(cm.server->listener.get(), address));
  RDMACHECK_ASSIGN_OR_RETURN(cm.client, CmSide::Create());
  RDMACHECK_RETURN_IF_ERROR(ResolveRoute(cm.client->id.get(), address, listening));
  RDMACHECK_RETURN_IF_ERROR(cm.client->AddQp());
  return cm;
}

}  // namespace rdmacheck
