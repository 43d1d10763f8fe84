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

#include "absl/status/status.h"

namespace rdmacheck {

// A span of a peer's registered memory, as RDMA READ/WRITE/atomics address it.
struct RemoteBuffer {
  uint64_t addr = 0;
  uint32_t rkey = 0;
  uint32_t length = 0;

  RemoteBuffer At(uint64_t offset, uint32_t new_length) const { return {addr + offset, rkey, new_length}; }
};

ibv_sge MakeSge(const ibv_mr* mr, size_t offset, uint32_t length);

ibv_send_wr SendWr(uint64_t wr_id, ibv_sge* sges, int num_sge, ibv_wr_opcode opcode = IBV_WR_SEND,
                   unsigned send_flags = IBV_SEND_SIGNALED);
ibv_send_wr RdmaWr(uint64_t wr_id, ibv_sge* sges, int num_sge, ibv_wr_opcode opcode, const RemoteBuffer& remote,
                   unsigned send_flags = IBV_SEND_SIGNALED);
// IBV_WR_ATOMIC_CMP_AND_SWP (compare_add = compare) or IBV_WR_ATOMIC_FETCH_AND_ADD
// (compare_add = addend); `sge` receives the original 8 bytes.
ibv_send_wr AtomicWr(uint64_t wr_id, ibv_sge* sge, ibv_wr_opcode opcode, const RemoteBuffer& remote,
                     uint64_t compare_add, uint64_t swap = 0, unsigned send_flags = IBV_SEND_SIGNALED);
ibv_recv_wr RecvWr(uint64_t wr_id, ibv_sge* sges, int num_sge);

// ibv_post_send / ibv_post_recv / ibv_post_srq_recv; on failure the Status carries the
// errno and `bad_wr` (if given) points at the first WR that was not posted.
absl::Status PostSend(ibv_qp* qp, ibv_send_wr& wr, ibv_send_wr** bad_wr = nullptr);
absl::Status PostRecv(ibv_qp* qp, ibv_recv_wr& wr, ibv_recv_wr** bad_wr = nullptr);
absl::Status PostSrqRecv(ibv_srq* srq, ibv_recv_wr& wr, ibv_recv_wr** bad_wr = nullptr);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_WORK_REQUESTS_H_
