// Target memory for access-control tests, on one endpoint's side of a pair: a
// GuardedRegion (an MR with guard pages around it, every byte a canary) registered on the
// endpoint's PD, or on a PD of its own, in whichever process the endpoint lives.
//
//   ASSERT_OK_AND_ASSIGN(auto target, pair.remote().Guard({IBV_ACCESS_REMOTE_READ}));
//   ...an RDMA WRITE to target->remote() that must be refused...
//   EXPECT_OK(target->CheckCanary());
//
// In two-host mode the region is on the peer host and CheckCanary() reads all its bytes
// back over the side channel, so the check is the same byte-for-byte check either way.
// A target must be destroyed before its endpoint (declare it after the pair).
#ifndef RDMACHECK_HARNESS_CONNECTION_GUARDED_TARGET_H_
#define RDMACHECK_HARNESS_CONNECTION_GUARDED_TARGET_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/optional.h"
#include "harness/connection/guarded_region.h"
#include "harness/connection/work_requests.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

struct GuardSpec {
  int access = 0;         // the MR's access flags
  bool other_pd = false;  // on a PD of its own instead of the endpoint's
  // Registered with ibv_reg_mr_iova2 at this iova: remote() and the target's receive SGE
  // address it by the iova, not by the virtual address (0: a zero-based MR).
  absl::optional<uint64_t> iova;
};

class GuardedTarget {
 public:
  virtual ~GuardedTarget() = default;

  // The MR as the peer addresses it: its first byte, its current rkey, kMrBytes.
  virtual RemoteBuffer remote() const = 0;
  // The MR's first byte at the virtual address of the process that holds it (remote().addr
  // unless the target is at an iova).
  virtual uint64_t virtual_address() const = 0;
  virtual uint32_t lkey() const = 0;
  // Deregisters the MR; remote() keeps the keys it had (a stale rkey).
  virtual absl::Status Deregister() = 0;
  // ibv_rereg_mr(IBV_REREG_MR_CHANGE_ACCESS); remote() then has the current keys.
  virtual absl::Status Reregister(int access) = 0;
  // One receive on the endpoint's QP into the MR's first `length` bytes, its lkey XORed
  // with `lkey_xor` (non-zero: a bad lkey).
  virtual absl::Status PostRecv(uint64_t wr_id, uint32_t length, uint32_t lkey_xor = 0) = 0;
  // Every byte, guard page to guard page (GuardedRegion::kTotalBytes).
  virtual absl::StatusOr<std::vector<uint8_t>> ReadAll() const = 0;

  // OK when every byte still holds the canary (GuardedRegion::CheckGuardedBytes).
  absl::Status CheckCanary() const;
};

// A target in this process; `qp` is the endpoint's QP (for PostRecv).
class LocalGuardedTarget : public GuardedTarget {
 public:
  static absl::StatusOr<std::unique_ptr<LocalGuardedTarget>> Create(ibv_pd* pd, ibv_qp* qp, const GuardSpec& spec);

  RemoteBuffer remote() const override { return region_->remote(); }
  uint64_t virtual_address() const override { return region_->virtual_address(); }
  uint32_t lkey() const override;
  absl::Status Deregister() override;
  absl::Status Reregister(int access) override { return region_->Reregister(access); }
  absl::Status PostRecv(uint64_t wr_id, uint32_t length, uint32_t lkey_xor = 0) override;
  absl::StatusOr<std::vector<uint8_t>> ReadAll() const override;

 private:
  LocalGuardedTarget() = default;
  PdPtr own_pd_;  // GuardSpec::other_pd; declared first: released after the region's MR
  std::unique_ptr<GuardedRegion> region_;
  ibv_qp* qp_ = nullptr;
  uint32_t lkey_ = 0;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_GUARDED_TARGET_H_
