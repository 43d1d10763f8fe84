// Building and posting work requests. The builders return plain ibv_* structs so the
// fields a test is about stay visible where the test posts them:
//
//   ibv_sge sge = pair.local().Sge(/*offset=*/0, /*length=*/64);
//   ibv_send_wr wr = RdmaWr(/*wr_id=*/7, &sge, 1, IBV_WR_RDMA_WRITE, pair.local().peer_buffer());
//   ASSERT_OK(PostSend(pair.local().qp(), wr));
#ifndef RDMACHECK_HARNESS_CONNECTION_WORK_REQUESTS_H_
#define RDMACHECK_HARNESS_CONNECTION_WORK_REQUESTS_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace rdmacheck {

// A span of a peer's registered memory, as RDMA READ/WRITE/atomics address it.
struct RemoteBuffer {
  uint64_t addr = 0;
  uint32_t rkey = 0;
  uint32_t length = 0;

  RemoteBuffer At(uint64_t offset, uint32_t new_length) const { return {addr + offset, rkey, new_length}; }
};

ibv_sge MakeSge(const ibv_mr* mr, size_t offset, uint32_t length);

// A piece of an endpoint's registered buffer.
struct Slice {
  size_t offset = 0;
  uint32_t length = 0;
};

// A send-queue work request described by offsets into the posting endpoint's buffer
// instead of addresses and lkeys, so that it means the same on an endpoint in this process
// and on one driven in another process (two-host mode). Endpoint::Post turns it into an
// ibv_send_wr.
//
//   pair.local().Post(SendRequest::Send(/*wr_id=*/1, {{0, 64}}).WithImm(0x1234));
//   pair.local().Post(SendRequest::Write(2, {{0, 64}}, pair.local().peer_buffer().At(128, 64)));
struct SendRequest {
  uint64_t wr_id = 0;
  ibv_wr_opcode opcode = IBV_WR_SEND;
  std::vector<Slice> sges;
  unsigned flags = IBV_SEND_SIGNALED;
  uint32_t imm = 0;              // host order; posted in network order (imm_data is __be32)
  uint32_t invalidate_rkey = 0;  // IBV_WR_SEND_WITH_INV
  RemoteBuffer remote;           // RDMA READ/WRITE and atomics: the peer's memory
  uint64_t compare_add = 0;      // CAS: compare; FAA: addend
  uint64_t swap = 0;             // CAS: new value

  static SendRequest Send(uint64_t wr_id, std::vector<Slice> sges);
  static SendRequest Write(uint64_t wr_id, std::vector<Slice> sges, const RemoteBuffer& remote);
  static SendRequest Read(uint64_t wr_id, std::vector<Slice> sges, const RemoteBuffer& remote);
  // `result`: the 8 bytes that receive the original remote value.
  static SendRequest CompareSwap(uint64_t wr_id, Slice result, const RemoteBuffer& remote, uint64_t compare,
                                 uint64_t swap);
  static SendRequest FetchAdd(uint64_t wr_id, Slice result, const RemoteBuffer& remote, uint64_t add);

  // SEND -> SEND_WITH_IMM, RDMA_WRITE -> RDMA_WRITE_WITH_IMM.
  SendRequest& WithImm(uint32_t value);
  SendRequest& WithInvalidate(uint32_t rkey);  // SEND -> SEND_WITH_INV
  SendRequest& WithFlags(unsigned send_flags);

  // The total length of the SGEs.
  uint64_t length() const;
};

ibv_send_wr SendWr(uint64_t wr_id, ibv_sge* sges, int num_sge, ibv_wr_opcode opcode = IBV_WR_SEND,
                   unsigned send_flags = IBV_SEND_SIGNALED);
ibv_send_wr RdmaWr(uint64_t wr_id, ibv_sge* sges, int num_sge, ibv_wr_opcode opcode, const RemoteBuffer& remote,
                   unsigned send_flags = IBV_SEND_SIGNALED);
// IBV_WR_ATOMIC_CMP_AND_SWP (compare_add = compare) or IBV_WR_ATOMIC_FETCH_AND_ADD
// (compare_add = addend); `sge` receives the original 8 bytes.
ibv_send_wr AtomicWr(uint64_t wr_id, ibv_sge* sge, ibv_wr_opcode opcode, const RemoteBuffer& remote,
                     uint64_t compare_add, uint64_t swap = 0, unsigned send_flags = IBV_SEND_SIGNALED);
ibv_recv_wr RecvWr(uint64_t wr_id, ibv_sge* sges, int num_sge);
// IBV_WR_BIND_MW of a type 2 window over `length` bytes at `offset` of `mr`, with the next
// rkey (ibv_inc_rkey): after its completion the window answers to wr.bind_mw.rkey.
ibv_send_wr BindMwWr(uint64_t wr_id, ibv_mw* mw, ibv_mr* mr, size_t offset, uint64_t length, unsigned access,
                     unsigned send_flags = IBV_SEND_SIGNALED);

// ibv_post_send / ibv_post_recv / ibv_post_srq_recv, counted (verbs/post.h); on failure
// the Status carries the errno and `bad_wr` (if given) points at the first WR that was not
// posted.
absl::Status PostSend(ibv_qp* qp, ibv_send_wr& wr, ibv_send_wr** bad_wr = nullptr);
absl::Status PostRecv(ibv_qp* qp, ibv_recv_wr& wr, ibv_recv_wr** bad_wr = nullptr);
absl::Status PostSrqRecv(ibv_srq* srq, ibv_recv_wr& wr, ibv_recv_wr** bad_wr = nullptr);

// Posts `requests` as one linked list in one ibv_post_send call, with SGEs on `mr`
// (offsets relative to mr->addr). `ud` (UD QPs) fills in each WR's address.
struct UdAddress {
  ibv_ah* ah = nullptr;
  uint32_t remote_qpn = 0;
  uint32_t remote_qkey = 0;
};
absl::Status PostSendRequests(ibv_qp* qp, const ibv_mr* mr, absl::Span<const SendRequest> requests,
                              const UdAddress* ud = nullptr);
// The same through the extended QP API: ibv_wr_start, one ibv_wr_<opcode> + SGE list per
// request, ibv_wr_complete. `qp` must have been created with the send_ops_flags of the
// opcodes used (PairOptions::send_ops_flags).
absl::Status PostSendRequestsEx(ibv_qp_ex* qp, const ibv_mr* mr, absl::Span<const SendRequest> requests,
                                const UdAddress* ud = nullptr);
// One receive WR scattering into `sges` of `mr`, posted on `srq` when it is not null, else
// on the QP's receive queue.
absl::Status PostRecvSlices(ibv_qp* qp, ibv_srq* srq, const ibv_mr* mr, uint64_t wr_id, absl::Span<const Slice> sges);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_WORK_REQUESTS_H_
