// Creating verbs objects as RAII owners, with errors as absl::Status.
//
//   ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
//   ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 16));
//   ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pd.get(), buffer, IBV_ACCESS_LOCAL_WRITE));
//
// Tests that check a create verb's own failure modes call the verb directly instead.
#ifndef RDMACHECK_HARNESS_VERBS_FACTORIES_H_
#define RDMACHECK_HARNESS_VERBS_FACTORIES_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

absl::StatusOr<PdPtr> AllocPd(ibv_context* context);
absl::StatusOr<CompChannelPtr> CreateCompChannel(ibv_context* context);
absl::StatusOr<CqPtr> CreateCq(ibv_context* context, int cqe, ibv_comp_channel* channel = nullptr,
                               int comp_vector = 0);
absl::StatusOr<MrPtr> RegMr(ibv_pd* pd, void* addr, size_t length, int access);
absl::StatusOr<MrPtr> RegMr(ibv_pd* pd, absl::Span<uint8_t> buffer, int access);
// ibv_reg_mr_iova2: the MR is addressed by `iova` (lkey and rkey alike), not by `addr`;
// iova 0 makes it zero-based (ibv_reg_mr(3)).
absl::StatusOr<MrPtr> RegMrAtIova(ibv_pd* pd, void* addr, size_t length, uint64_t iova, int access);
absl::StatusOr<QpPtr> CreateQp(ibv_pd* pd, ibv_qp_init_attr attr);
// ibv_create_qp_ex: XRC QPs (comp_mask names the PD or the XRC domain).
absl::StatusOr<QpPtr> CreateQpEx(ibv_context* context, ibv_qp_init_attr_ex attr);
// An XRC domain not tied to a file (fd -1, O_CREAT).
absl::StatusOr<XrcdPtr> OpenXrcd(ibv_context* context);
absl::StatusOr<SrqPtr> CreateSrq(ibv_pd* pd, ibv_srq_init_attr attr);
absl::StatusOr<MwPtr> AllocMw(ibv_pd* pd, ibv_mw_type type);
absl::StatusOr<AhPtr> CreateAh(ibv_pd* pd, ibv_ah_attr attr);

// Init attributes for a QP of `type` with both queues on `cq`: small queues, one SGE.
ibv_qp_init_attr QpInitAttr(ibv_qp_type type, ibv_cq* cq, uint32_t depth = 16, uint32_t sge = 1);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_VERBS_FACTORIES_H_
