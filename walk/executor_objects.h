// What the executor keeps per object and per MR buffer (walk/executor.h), shared by its two
// files: executor.cc (the calls) and executor_completions.cc (completions, flushes, canaries,
// teardown).
#ifndef RDMACHECK_WALK_EXECUTOR_OBJECTS_H_
#define RDMACHECK_WALK_EXECUTOR_OBJECTS_H_

#include <infiniband/verbs.h>

#include <cerrno>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/verbs/owners.h"
#include "walk/executor.h"
#include "walk/model.h"

namespace rdmacheck::walk {

inline constexpr size_t kCanaryBytes = 64;
inline constexpr uint8_t kCanary = 0xc5;
inline constexpr uint32_t kMaxSge = 2;
inline constexpr uint32_t kSrqDepth = 16;

// One MR's memory: canary, kSlotsPerMr slots of kSlotBytes, canary. Each posted WR owns a
// slot until it completes.
struct WalkBuffer {
  std::vector<uint8_t> bytes = std::vector<uint8_t>(kCanaryBytes + kSlotsPerMr * kSlotBytes + kCanaryBytes, kCanary);
  std::vector<bool> busy = std::vector<bool>(kSlotsPerMr, false);
  bool canary_reported = false;
  uint8_t* Slot(int i) { return bytes.data() + kCanaryBytes + static_cast<size_t>(i) * kSlotBytes; }
  int FreeSlot() const {
    for (int i = 0; i < kSlotsPerMr; ++i) {
      if (!busy[i]) return i;
    }
    return -1;
  }
};

// One verbs object the walk made, by kind, with what its posts need.
struct WalkHandle {
  Kind kind = Kind::kPd;
  PdPtr pd;
  CqPtr cq;
  MrPtr mr;
  SrqPtr srq;
  QpPtr qp;
  AhPtr ah;
  WalkBuffer* buffer = nullptr;  // MR
  ibv_qp_cap cap{};          // QP: what the device granted
  uint32_t srq_max_sge = 0;
};

// A failed create's errno; -1 when it returned NULL without setting one (a finding in itself).
inline int LastErrno() { return errno != 0 ? errno : -1; }
// The errno of a verb that returns one (the man pages: "the value of errno on failure"); a
// negative return is taken as -1 with errno set (older libibverbs), or as -errno.
inline int RcErrno(int rc) {
  if (rc >= 0) return rc;
  return errno != 0 ? errno : rc == -1 ? -1 : -rc;
}

inline Problem MakeProblem(std::string message, std::string signature) {
  return {std::move(message), std::move(signature)};
}

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_EXECUTOR_OBJECTS_H_
