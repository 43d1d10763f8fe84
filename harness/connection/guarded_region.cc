#include "harness/connection/guarded_region.h"

#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/patterns.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {

void GuardedRegion::FreeDeleter::operator()(uint8_t* p) const { std::free(p); }

absl::StatusOr<GuardedRegion> GuardedRegion::Create(ibv_pd* pd, int access, absl::optional<uint64_t> iova) {
  GuardedRegion region;
  region.memory_.reset(static_cast<uint8_t*>(std::aligned_alloc(kGuardBytes, kTotalBytes)));
  if (region.memory_ == nullptr) return absl::ResourceExhaustedError("aligned_alloc of a guarded region failed");
  std::memset(region.memory_.get(), kCanary, kTotalBytes);
  uint8_t* start = region.memory_.get() + kGuardBytes;
  auto mr = iova ? RegMrAtIova(pd, start, kMrBytes, *iova, access) : RegMr(pd, start, kMrBytes, access);
  if (!mr.ok()) return mr.status();
  region.mr_ = std::move(*mr);
  region.remote_ = {iova.value_or(reinterpret_cast<uint64_t>(start)), region.mr_->rkey, kMrBytes};
  return region;
}

RemoteBuffer GuardedRegion::remote() const { return remote_; }

void GuardedRegion::Deregister() { mr_.reset(); }

absl::Status GuardedRegion::Reregister(int access) {
  if (mr_ == nullptr) return absl::FailedPreconditionError("the guarded region's MR is deregistered");
  if (int rc = ibv_rereg_mr(mr_.get(), IBV_REREG_MR_CHANGE_ACCESS, nullptr, nullptr, 0, access); rc != 0) {
    return ErrnoStatus(errno != 0 ? errno : rc, "ibv_rereg_mr");
  }
  remote_.rkey = mr_->rkey;
  return absl::OkStatus();
}

absl::Status GuardedRegion::CheckGuardedBytes(absl::Span<const uint8_t> bytes) {
  if (bytes.size() != kTotalBytes) {
    return absl::DataLossError(absl::StrCat("a guarded region has ", kTotalBytes, " bytes, not ", bytes.size()));
  }
  absl::Status status = CheckPattern(bytes, Pattern::Constant(kCanary));
  if (status.ok()) return status;
  return absl::DataLossError(absl::StrCat("canary around a refused access changed (byte 0 is ", kGuardBytes,
                                          " before the MR): ", status.message()));
}

}  // namespace rdmacheck
