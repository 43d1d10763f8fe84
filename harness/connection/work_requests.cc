#include "harness/connection/work_requests.h"

#include <arpa/inet.h>

#include "absl/strings/str_cat.h"
#include "harness/status.h"
#include "harness/verbs/post.h"

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

ibv_send_wr BindMwWr(uint64_t wr_id, ibv_mw* mw, ibv_mr* mr, size_t offset, uint64_t length, unsigned access,
                     unsigned send_flags) {
  ibv_send_wr wr = SendWr(wr_id, nullptr, 0, IBV_WR_BIND_MW, send_flags);
  wr.bind_mw.mw = mw;
  wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
  wr.bind_mw.bind_info.mr = mr;
  wr.bind_mw.bind_info.addr = reinterpret_cast<uint64_t>(mr->addr) + offset;
  wr.bind_mw.bind_info.length = length;
  wr.bind_mw.bind_info.mw_access_flags = access;
  return wr;
}

absl::Status PostSend(ibv_qp* qp, ibv_send_wr& wr, ibv_send_wr** bad_wr) {
  ibv_send_wr* bad = nullptr;
  int rc = PostSend(qp, &wr, &bad);
  if (bad_wr != nullptr) *bad_wr = bad;
  if (rc != 0) return ErrnoStatus(rc, absl::StrCat("ibv_post_send(qp ", qp->qp_num, ", opcode ", wr.opcode, ")"));
  return absl::OkStatus();
}

absl::Status PostRecv(ibv_qp* qp, ibv_recv_wr& wr, ibv_recv_wr** bad_wr) {
  ibv_recv_wr* bad = nullptr;
  int rc = PostRecv(qp, &wr, &bad);
  if (bad_wr != nullptr) *bad_wr = bad;
  if (rc != 0) return ErrnoStatus(rc, absl::StrCat("ibv_post_recv(qp ", qp->qp_num, ")"));
  return absl::OkStatus();
}

absl::Status PostSrqRecv(ibv_srq* srq, ibv_recv_wr& wr, ibv_recv_wr** bad_wr) {
  ibv_recv_wr* bad = nullptr;
  int rc = PostSrqRecv(srq, &wr, &bad);
  if (bad_wr != nullptr) *bad_wr = bad;
  if (rc != 0) return ErrnoStatus(rc, "ibv_post_srq_recv");
  return absl::OkStatus();
}

SendRequest SendRequest::Send(uint64_t wr_id, std::vector<Slice> sges) {
  SendRequest r;
  r.wr_id = wr_id;
  r.opcode = IBV_WR_SEND;
  r.sges = std::move(sges);
  return r;
}

SendRequest SendRequest::Write(uint64_t wr_id, std::vector<Slice> sges, const RemoteBuffer& remote) {
  SendRequest r = Send(wr_id, std::move(sges));
  r.opcode = IBV_WR_RDMA_WRITE;
  r.remote = remote;
  return r;
}

SendRequest SendRequest::Read(uint64_t wr_id, std::vector<Slice> sges, const RemoteBuffer& remote) {
  SendRequest r = Write(wr_id, std::move(sges), remote);
  r.opcode = IBV_WR_RDMA_READ;
  return r;
}

SendRequest SendRequest::CompareSwap(uint64_t wr_id, Slice result, const RemoteBuffer& remote, uint64_t compare,
                                     uint64_t swap) {
  SendRequest r = Write(wr_id, {result}, remote);
  r.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
  r.compare_add = compare;
  r.swap = swap;
  return r;
}

SendRequest SendRequest::FetchAdd(uint64_t wr_id, Slice result, const RemoteBuffer& remote, uint64_t add) {
  SendRequest r = Write(wr_id, {result}, remote);
  r.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
  r.compare_add = add;
  return r;
}

SendRequest& SendRequest::WithImm(uint32_t value) {
  imm = value;
  if (opcode == IBV_WR_SEND) opcode = IBV_WR_SEND_WITH_IMM;
  if (opcode == IBV_WR_RDMA_WRITE) opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
  return *this;
}

SendRequest& SendRequest::WithInvalidate(uint32_t rkey) {
  invalidate_rkey = rkey;
  opcode = IBV_WR_SEND_WITH_INV;
  return *this;
}

SendRequest& SendRequest::WithFlags(unsigned send_flags) {
  flags = send_flags;
  return *this;
}

uint64_t SendRequest::length() const {
  uint64_t total = 0;
  for (const Slice& s : sges) total += s.length;
  return total;
}

absl::Status PostSendRequests(ibv_qp* qp, const ibv_mr* mr, absl::Span<const SendRequest> requests,
                              const UdAddress* ud) {
  if (requests.empty()) return absl::InvalidArgumentError("PostSendRequests: no work requests");
  std::vector<std::vector<ibv_sge>> sges(requests.size());
  std::vector<ibv_send_wr> wrs(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    const SendRequest& r = requests[i];
    for (const Slice& s : r.sges) sges[i].push_back(MakeSge(mr, s.offset, s.length));
    ibv_send_wr& wr = wrs[i];
    wr = SendWr(r.wr_id, sges[i].empty() ? nullptr : sges[i].data(), static_cast<int>(sges[i].size()), r.opcode,
                r.flags);
    switch (r.opcode) {
      case IBV_WR_ATOMIC_CMP_AND_SWP:
      case IBV_WR_ATOMIC_FETCH_AND_ADD:
        wr.wr.atomic.remote_addr = r.remote.addr;
        wr.wr.atomic.rkey = r.remote.rkey;
        wr.wr.atomic.compare_add = r.compare_add;
        wr.wr.atomic.swap = r.swap;
        break;
      case IBV_WR_SEND_WITH_INV:
        wr.invalidate_rkey = r.invalidate_rkey;
        break;
      default:
        wr.wr.rdma.remote_addr = r.remote.addr;
        wr.wr.rdma.rkey = r.remote.rkey;
        break;
    }
    if (r.opcode == IBV_WR_SEND_WITH_IMM || r.opcode == IBV_WR_RDMA_WRITE_WITH_IMM) wr.imm_data = htonl(r.imm);
    if (ud != nullptr) {
      wr.wr.ud.ah = ud->ah;
      wr.wr.ud.remote_qpn = ud->remote_qpn;
      wr.wr.ud.remote_qkey = ud->remote_qkey;
    }
    if (i > 0) wrs[i - 1].next = &wr;
  }
  return PostSend(qp, wrs.front());
}

absl::Status PostSendRequestsEx(ibv_qp_ex* qp, const ibv_mr* mr, absl::Span<const SendRequest> requests,
                                const UdAddress* ud) {
  if (qp == nullptr) return absl::FailedPreconditionError("not an extended QP (create it with send_ops_flags)");
  ibv_wr_start(qp);
  for (const SendRequest& r : requests) {
    qp->wr_id = r.wr_id;
    qp->wr_flags = r.flags;
    const uint32_t rkey = r.remote.rkey;
    const uint64_t addr = r.remote.addr;
    switch (r.opcode) {
      case IBV_WR_SEND: ibv_wr_send(qp); break;
      case IBV_WR_SEND_WITH_IMM: ibv_wr_send_imm(qp, htonl(r.imm)); break;
      case IBV_WR_SEND_WITH_INV: ibv_wr_send_inv(qp, r.invalidate_rkey); break;
      case IBV_WR_RDMA_WRITE: ibv_wr_rdma_write(qp, rkey, addr); break;
      case IBV_WR_RDMA_WRITE_WITH_IMM: ibv_wr_rdma_write_imm(qp, rkey, addr, htonl(r.imm)); break;
      case IBV_WR_RDMA_READ: ibv_wr_rdma_read(qp, rkey, addr); break;
      case IBV_WR_ATOMIC_CMP_AND_SWP: ibv_wr_atomic_cmp_swp(qp, rkey, addr, r.compare_add, r.swap); break;
      case IBV_WR_ATOMIC_FETCH_AND_ADD: ibv_wr_atomic_fetch_add(qp, rkey, addr, r.compare_add); break;
      default:
        ibv_wr_abort(qp);
        return absl::InvalidArgumentError(absl::StrCat("PostSendRequestsEx: opcode ", r.opcode, " has no ibv_wr_* here"));
    }
    if (ud != nullptr) ibv_wr_set_ud_addr(qp, ud->ah, ud->remote_qpn, ud->remote_qkey);
    std::vector<ibv_sge> list;
    for (const Slice& s : r.sges) list.push_back(MakeSge(mr, s.offset, s.length));
    ibv_wr_set_sge_list(qp, list.size(), list.data());
  }
  if (int rc = WrComplete(qp, static_cast<int>(requests.size())); rc != 0) return ErrnoStatus(rc, "ibv_wr_complete");
  return absl::OkStatus();
}

absl::Status PostRecvSlices(ibv_qp* qp, ibv_srq* srq, const ibv_mr* mr, uint64_t wr_id, absl::Span<const Slice> sges) {
  std::vector<ibv_sge> list;
  for (const Slice& s : sges) list.push_back(MakeSge(mr, s.offset, s.length));
  ibv_recv_wr wr = RecvWr(wr_id, list.empty() ? nullptr : list.data(), static_cast<int>(list.size()));
  return srq != nullptr ? PostSrqRecv(srq, wr) : PostRecv(qp, wr);
}

}  // namespace rdmacheck
