#include "harness/verbs/factories.h"

#include <fcntl.h>

#include <cerrno>

#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {

absl::StatusOr<PdPtr> AllocPd(ibv_context* context) {
  PdPtr pd(ibv_alloc_pd(context));
  if (!pd) return ErrnoStatus(errno, "ibv_alloc_pd");
  return pd;
}

absl::StatusOr<CompChannelPtr> CreateCompChannel(ibv_context* context) {
  CompChannelPtr channel(ibv_create_comp_channel(context));
  if (!channel) return ErrnoStatus(errno, "ibv_create_comp_channel");
  return channel;
}

absl::StatusOr<CqPtr> CreateCq(ibv_context* context, int cqe, ibv_comp_channel* channel, int comp_vector) {
  CqPtr cq(ibv_create_cq(context, cqe, nullptr, channel, comp_vector));
  if (!cq) return ErrnoStatus(errno, absl::StrCat("ibv_create_cq(cqe=", cqe, ", comp_vector=", comp_vector, ")"));
  return cq;
}

absl::StatusOr<MrPtr> RegMr(ibv_pd* pd, void* addr, size_t length, int access) {
  MrPtr mr(ibv_reg_mr(pd, addr, length, access));
  if (!mr) return ErrnoStatus(errno, absl::StrCat("ibv_reg_mr(length=", length, ", access=0x", absl::Hex(access), ")"));
  return mr;
}

absl::StatusOr<MrPtr> RegMr(ibv_pd* pd, absl::Span<uint8_t> buffer, int access) {
  return RegMr(pd, buffer.data(), buffer.size(), access);
}

absl::StatusOr<MrPtr> RegMrAtIova(ibv_pd* pd, void* addr, size_t length, uint64_t iova, int access) {
  MrPtr mr(ibv_reg_mr_iova2(pd, addr, length, iova, static_cast<unsigned>(access)));
  if (!mr) {
    return ErrnoStatus(errno, absl::StrCat("ibv_reg_mr_iova2(length=", length, ", iova=0x", absl::Hex(iova),
                                           ", access=0x", absl::Hex(access), ")"));
  }
  return mr;
}

absl::StatusOr<QpPtr> CreateQp(ibv_pd* pd, ibv_qp_init_attr attr) {
  QpPtr qp(ibv_create_qp(pd, &attr));
  if (!qp) return ErrnoStatus(errno, absl::StrCat("ibv_create_qp(type=", attr.qp_type, ")"));
  return qp;
}

absl::StatusOr<QpPtr> CreateQpEx(ibv_context* context, ibv_qp_init_attr_ex attr) {
  QpPtr qp(ibv_create_qp_ex(context, &attr));
  if (!qp) return ErrnoStatus(errno, absl::StrCat("ibv_create_qp_ex(type=", attr.qp_type, ")"));
  return qp;
}

absl::StatusOr<XrcdPtr> OpenXrcd(ibv_context* context) {
  ibv_xrcd_init_attr attr{};
  attr.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS;
  attr.fd = -1;
  attr.oflags = O_CREAT;
  XrcdPtr xrcd(ibv_open_xrcd(context, &attr));
  if (!xrcd) return ErrnoStatus(errno, "ibv_open_xrcd");
  return xrcd;
}

absl::StatusOr<SrqPtr> CreateSrq(ibv_pd* pd, ibv_srq_init_attr attr) {
  SrqPtr srq(ibv_create_srq(pd, &attr));
  if (!srq) return ErrnoStatus(errno, "ibv_create_srq");
  return srq;
}

absl::StatusOr<MwPtr> AllocMw(ibv_pd* pd, ibv_mw_type type) {
  MwPtr mw(ibv_alloc_mw(pd, type));
  if (!mw) return ErrnoStatus(errno, absl::StrCat("ibv_alloc_mw(type ", type, ")"));
  return mw;
}

absl::StatusOr<AhPtr> CreateAh(ibv_pd* pd, ibv_ah_attr attr) {
  AhPtr ah(ibv_create_ah(pd, &attr));
  if (!ah) return ErrnoStatus(errno, "ibv_create_ah");
  return ah;
}

ibv_qp_init_attr QpInitAttr(ibv_qp_type type, ibv_cq* cq, uint32_t depth, uint32_t sge) {
  ibv_qp_init_attr attr{};
  attr.qp_type = type;
  attr.send_cq = cq;
  attr.recv_cq = cq;
  attr.cap.max_send_wr = depth;
  attr.cap.max_recv_wr = depth;
  attr.cap.max_send_sge = sge;
  attr.cap.max_recv_sge = sge;
  return attr;
}

}  // namespace rdmacheck
