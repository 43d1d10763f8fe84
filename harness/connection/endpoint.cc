#include "harness/completion.h"
#include "harness/connection/connected_pair.h"

namespace rdmacheck {

Endpoint::~Endpoint() {
  if (cm_id_ && cm_id_->qp != nullptr) {
    rdma_disconnect(cm_id_.get());  // a clean close for the peer (iWARP: instead of an abort)
    rdma_destroy_qp(cm_id_.get());
  }
}

RemoteBuffer Endpoint::remote_buffer() const {
  return {reinterpret_cast<uint64_t>(buffer_.get()), mr_->rkey, static_cast<uint32_t>(buffer_size_)};
}

absl::Status Endpoint::PostRecv(uint64_t wr_id, size_t offset, uint32_t length) {
  ibv_sge sge = Sge(offset, length);
  ibv_recv_wr wr = RecvWr(wr_id, &sge, 1);
  return srq_ ? PostSrqRecv(srq_.get(), wr) : rdmacheck::PostRecv(qp_, wr);
}

absl::Status Endpoint::PostSend(ibv_send_wr& wr, ibv_send_wr** bad_wr) {
  if (qp_->qp_type == IBV_QPT_UD) {
    for (ibv_send_wr* w = &wr; w != nullptr; w = w->next) {
      w->wr.ud.ah = peer_ah_.get();
      w->wr.ud.remote_qpn = peer_address_.qp_num;
      w->wr.ud.remote_qkey = qkey_;
    }
  }
  return rdmacheck::PostSend(qp_, wr, bad_wr);
}

absl::StatusOr<ibv_wc> Endpoint::PollSend(absl::Duration timeout) const {
  return PollCompletion(send_cq(), timeout);
}

absl::StatusOr<ibv_wc> Endpoint::PollRecv(absl::Duration timeout) const {
  return PollCompletion(recv_cq(), timeout);
}

}  // namespace rdmacheck
