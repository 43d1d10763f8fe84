#include "harness/connection/guarded_target.h"

#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {

absl::Status GuardedTarget::CheckCanary() const {
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadAll());
  return GuardedRegion::CheckGuardedBytes(bytes);
}

absl::StatusOr<std::unique_ptr<LocalGuardedTarget>> LocalGuardedTarget::Create(ibv_pd* pd, ibv_qp* qp,
                                                                               const GuardSpec& spec) {
  if (pd == nullptr) return absl::FailedPreconditionError("the endpoint has no PD yet (is the pair built?)");
  std::unique_ptr<LocalGuardedTarget> target(new LocalGuardedTarget());
  target->qp_ = qp;
  if (spec.other_pd) {
    RDMACHECK_ASSIGN_OR_RETURN(target->own_pd_, AllocPd(pd->context));
    pd = target->own_pd_.get();
  }
  RDMACHECK_ASSIGN_OR_RETURN(GuardedRegion region, GuardedRegion::Create(pd, spec.access, spec.iova));
  target->region_ = std::make_unique<GuardedRegion>(std::move(region));
  target->lkey_ = target->region_->mr()->lkey;
  return target;
}

uint32_t LocalGuardedTarget::lkey() const { return region_->mr() != nullptr ? region_->mr()->lkey : lkey_; }

absl::Status LocalGuardedTarget::Deregister() {
  region_->Deregister();
  return absl::OkStatus();
}

absl::Status LocalGuardedTarget::PostRecv(uint64_t wr_id, uint32_t length, uint32_t lkey_xor) {
  if (qp_ == nullptr) return absl::FailedPreconditionError("the endpoint has no QP yet (is the pair built?)");
  ibv_sge sge{remote().addr, length, lkey() ^ lkey_xor};
  ibv_recv_wr wr = RecvWr(wr_id, &sge, 1);
  return rdmacheck::PostRecv(qp_, wr);
}

absl::StatusOr<std::vector<uint8_t>> LocalGuardedTarget::ReadAll() const {
  absl::Span<const uint8_t> bytes = region_->Bytes();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

}  // namespace rdmacheck
