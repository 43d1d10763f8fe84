#include "harness/connection/work_requests.h"

#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {

ibv_sge MakeSge(const ibv_mr* mr, size_t offset, uint32_t length) {
  return {reinterpret_cast<uint64_t>(mr->addr) + offset, length, mr->lkey};
}

ibv_send_wr SendWr(uint64_t wr_id, ibv_sge* sges, int num_sge, ibv_wr_opcode opcode, unsigned send_flags) {
  ibv_send_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = sges;
  wr.num_sge = num_sge;
  wr.opcode = opcode;
  wr.send_flags = send_flags;
  return wr;
}

ibv_send_wr RdmaWr(uint64_t wr_id, ibv_sge* sges, int num_sge, ibv_wr_opcode opcode, const RemoteBuffer& remote,
                   unsigned send_flags) {
  ibv_send_wr wr = SendWr(wr_id, sges, num_sge, opcode, send_flags);
  wr.wr.rdma.remote_addr = remote.addr;
  wr.wr.rdma.rkey = remote.rkey;
  return wr;
}

ibv_send_wr AtomicWr(uint64_t wr_id, ibv_sge* sge, ibv_wr_opcode opcode, const RemoteBuffer& remote,
                     uint64_t compare_add, uint64_t swap, unsigned send_flags) {
  ibv_send_wr wr = SendWr(wr_id, sge, 1, opcode, send_flags);
  wr.wr.atomic.remote_addr = remote.addr;
  wr.wr.atomic.rkey = remote.rkey;
  wr.wr.atomic.compare_add = compare_add;
  wr.wr.atomic.swap = swap;
  return wr;
}

ibv_recv_wr RecvWr(uint64_t wr_id, ibv_sge* sges, int num_sge) {
  ibv_recv_wr wr{};
  wr.wr_id = wr_id;
  wr.sg_list = sges;
  wr.num_sge = num_sge;
  return wr;
}

absl::Status PostSend(ibv_qp* qp, ibv_send_wr& wr, ibv_send_wr** bad_wr) {
  ibv_send_wr* bad = nullptr;
  int rc = ibv_post_send(qp, &wr, &bad);
  if (bad_wr != nullptr) *bad_wr = bad;
  if (rc != 0) return ErrnoStatus(rc, absl::StrCat("ibv_post_send(qp ", qp->qp_num, ", opcode ", wr.opcode, ")"));
  return absl::OkStatus();
}

absl::Status PostRecv(ibv_qp* qp, ibv_recv_wr& wr, ibv_recv_wr** bad_wr) {
  ibv_recv_wr* bad = nullptr;
  int rc = ibv_post_recv(qp, &wr, &bad);
  if (bad_wr != nullptr) *bad_wr = bad;
  if (rc != 0) return ErrnoStatus(rc, absl::StrCat("ibv_post_recv(qp ", qp->qp_num, ")"));
  return absl::OkStatus();
}

absl::Status PostSrqRecv(ibv_srq* srq, ibv_recv_wr& wr, ibv_recv_wr** bad_wr) {
  ibv_recv_wr* bad = nullptr;
  int rc = ibv_post_srq_recv(srq, &wr, &bad);
  if (bad_wr != nullptr) *bad_wr = bad;
  if (rc != 0) return ErrnoStatus(rc, "ibv_post_srq_recv");
  return absl::OkStatus();
}

}  // namespace rdmacheck
