#include "harness/connection/connected_pair.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {

PathOptions PathFor(const Selection& selection, PathOptions base, absl::optional<ibv_mtu> mtu) {
  base.port = selection.port;
  base.sgid_index = static_cast<uint8_t>(selection.gid.index);
  base.path_mtu = mtu.value_or(selection.port_attr.active_mtu);
  return base;
}

absl::StatusOr<ConnectedPair> ConnectedPair::Create(ibv_context* context, const Selection& selection,
                                                    const PairOptions& options) {
  ConnectMethod method = options.method.value_or(
      selection.transport == IBV_TRANSPORT_IWARP ? ConnectMethod::kRdmaCm : ConnectMethod::kManual);
  if (options.qp_type == IBV_QPT_UD || method == ConnectMethod::kManual) {
    return ConnectManually(context, selection, options);
  }
  if (options.qp_type != IBV_QPT_RC) {
    return absl::InvalidArgumentError("the pair builder connects only RC QPs through rdma_cm");
  }
  return ConnectWithCm(selection, options);
}

// PD, buffer + MR, CQs, completion channel and SRQ of one endpoint.
absl::Status ConnectedPair::AddResources(Endpoint& e, ibv_context* context, const PairOptions& options) {
  RDMACHECK_ASSIGN_OR_RETURN(e.pd_, AllocPd(context));
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  e.buffer_size_ = options.buffer_size;
  void* memory = nullptr;
  if (posix_memalign(&memory, page, std::max(options.buffer_size, page)) != 0) {
    return absl::ResourceExhaustedError(absl::StrCat("cannot allocate a ", options.buffer_size, "-byte buffer"));
  }
  e.buffer_.reset(static_cast<uint8_t*>(memory));
  RDMACHECK_ASSIGN_OR_RETURN(e.mr_, RegMr(e.pd_.get(), memory, options.buffer_size, options.mr_access));
  if (options.use_comp_channel) {
    RDMACHECK_ASSIGN_OR_RETURN(e.channel_, CreateCompChannel(context));
  }
  RDMACHECK_ASSIGN_OR_RETURN(e.send_cq_, CreateCq(context, options.max_send_wr + 1, e.channel_.get()));
  RDMACHECK_ASSIGN_OR_RETURN(e.recv_cq_, CreateCq(context, options.max_recv_wr + 1, e.channel_.get()));
  if (options.use_srq) {
    ibv_srq_init_attr attr{};
    attr.attr.max_wr = options.max_recv_wr;
    attr.attr.max_sge = options.max_recv_sge;
    RDMACHECK_ASSIGN_OR_RETURN(e.srq_, CreateSrq(e.pd_.get(), attr));
  }
  return absl::OkStatus();
}

ibv_qp_init_attr ConnectedPair::QpInitAttrFor(const Endpoint& e, const PairOptions& options) {
  ibv_qp_init_attr attr = QpInitAttr(options.qp_type, e.send_cq(), options.max_send_wr, options.max_send_sge);
  attr.recv_cq = e.recv_cq();
  attr.srq = e.srq();
  attr.cap.max_recv_wr = options.max_recv_wr;
  attr.cap.max_recv_sge = options.max_recv_sge;
  attr.cap.max_inline_data = options.max_inline_data;
  attr.sq_sig_all = options.sq_sig_all ? 1 : 0;
  if (e.srq() != nullptr) attr.cap.max_recv_wr = attr.cap.max_recv_sge = 0;
  return attr;
}

absl::Status ConnectedPair::AddQp(Endpoint& e, const PairOptions& options) {
  RDMACHECK_ASSIGN_OR_RETURN(e.owned_qp_, CreateQp(e.pd(), QpInitAttrFor(e, options)));
  e.qp_ = e.owned_qp_.get();
  return absl::OkStatus();
}

absl::StatusOr<ConnectedPair> ConnectedPair::ConnectManually(ibv_context* context, const Selection& selection,
                                                             const PairOptions& options) {
  ConnectedPair pair;
  pair.method_ = ConnectMethod::kManual;
  const PathOptions path = PathFor(selection, options.path, options.path_mtu);
  uint32_t psn = 0x1234;
  for (Endpoint* e : {pair.local_.get(), pair.remote_.get()}) {
    RDMACHECK_RETURN_IF_ERROR(AddResources(*e, context, options));
    RDMACHECK_RETURN_IF_ERROR(AddQp(*e, options));
    e->address_ = {e->qp_->qp_num, selection.port_attr.lid, selection.gid.gid, psn};
    e->qkey_ = path.qkey;
    psn += 0x1111;
  }
  for (auto [e, peer] : {std::pair{pair.local_.get(), pair.remote_.get()}, {pair.remote_.get(), pair.local_.get()}}) {
    e->peer_address_ = peer->address_;
    e->peer_buffer_ = peer->remote_buffer();
    RDMACHECK_RETURN_IF_ERROR(BringUp(e->qp_, e->peer_address_, e->address_.psn, path));
    if (options.qp_type == IBV_QPT_UD) {
      RDMACHECK_ASSIGN_OR_RETURN(e->peer_ah_, CreateAh(e->pd(), AddressTo(e->peer_address_, path)));
    }
  }
  return pair;
}

}  // namespace rdmacheck
