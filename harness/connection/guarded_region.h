// Memory with a registered window in the middle and unregistered guard pages around it,
// for access-control tests: every byte, inside and around the MR, holds a canary, so a
// refused access that still wrote anything is caught byte for byte.
//
//   ASSERT_OK_AND_ASSIGN(GuardedRegion target, GuardedRegion::Create(pd, IBV_ACCESS_REMOTE_READ));
//   ...post an RDMA WRITE to target.remote() that must be refused...
//   EXPECT_OK(target.CheckCanary());
//
//   | guard page | MR (kMrBytes)          | guard page |
//   ^ Bytes()    ^ mr()->addr = remote().addr
//
// Tests use it through an endpoint (harness/connection/guarded_target.h), so that the
// region lives on whichever host the endpoint does.
#ifndef RDMACHECK_HARNESS_CONNECTION_GUARDED_REGION_H_
#define RDMACHECK_HARNESS_CONNECTION_GUARDED_REGION_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/optional.h"
#include "absl/types/span.h"
#include "harness/connection/work_requests.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

class GuardedRegion {
 public:
  static constexpr size_t kGuardBytes = 4096;
  static constexpr uint32_t kMrBytes = 4096;
  static constexpr size_t kTotalBytes = kGuardBytes + kMrBytes + kGuardBytes;
  static constexpr uint8_t kCanary = 0xc5;

  // Registers the middle of fresh canary-filled memory on `pd` with `access`; with `iova`,
  // through ibv_reg_mr_iova2 at that address (remote() and local SGEs then use it).
  static absl::StatusOr<GuardedRegion> Create(ibv_pd* pd, int access, absl::optional<uint64_t> iova = absl::nullopt);

  ibv_mr* mr() const { return mr_.get(); }
  // The MR as a peer addresses it (its first byte, rkey, length): by the iova when it has one.
  RemoteBuffer remote() const;
  // The process's virtual address of the MR's first byte (remote().addr unless at an iova).
  uint64_t virtual_address() const { return reinterpret_cast<uint64_t>(memory_.get()) + kGuardBytes; }
  // Deregisters the MR; remote() keeps the rkey and address it had.
  void Deregister();
  // ibv_rereg_mr(IBV_REREG_MR_CHANGE_ACCESS) to `access`; remote() then has the MR's
  // current keys (they may change, ibv_rereg_mr(3)).
  absl::Status Reregister(int access);

  // Every byte: guard page, MR, guard page.
  absl::Span<const uint8_t> Bytes() const { return {memory_.get(), kTotalBytes}; }
  // OK when every byte of the guard pages and the MR still holds kCanary.
  absl::Status CheckCanary() const { return CheckGuardedBytes(Bytes()); }
  // The same check of the bytes of a region read back from another process.
  static absl::Status CheckGuardedBytes(absl::Span<const uint8_t> bytes);

 private:
  struct FreeDeleter {
    void operator()(uint8_t* p) const;
  };
  GuardedRegion() = default;
  std::unique_ptr<uint8_t, FreeDeleter> memory_;  // kGuardBytes + kMrBytes + kGuardBytes
  MrPtr mr_;                                      // declared after memory_: deregistered first
  RemoteBuffer remote_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_GUARDED_REGION_H_
