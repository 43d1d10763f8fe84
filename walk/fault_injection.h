// Allocation failures inside the kernel, for the walk's own control verbs (issue 36): with
// `rdmacheck walk --fail_alloc=N` on a kernel built with fault injection (the lab's debug
// kernel, RDMACHECK_KERNEL=debug), every N-th kernel allocation made while the walk creates,
// destroys or moves an object fails. The invariant under test: an allocation failure inside
// a driver gives a clean errno (ENOMEM) and leaves the object as it was, never a leak, a
// WARNING or a KASAN report (the walk's leak check and kernel-log watch judge that).
//
//   absl::StatusOr<FaultInjection> armed = FaultInjection::Arm(7);   // the process running
//   ...                                                              // the walk, once
//   { FailingScope failing(true); ibv_create_qp(...); }              // the walk's child
//
// Mechanism (Documentation/fault-injection/fault-injection.rst): failslab and
// fail_page_alloc in debugfs, with task-filter on, so only a task that wrote 1 to its
// /proc/thread-self/make-it-fail is failed; probability 100 and interval N make the failures
// every N-th allocation of that task, the same for the same calls (a replay or a shrink meets
// them again). Allocations that may sleep fail too (ignore-gfp-wait off: most verbs
// allocate with GFP_KERNEL); user pages (highmem) never do, so the walk's own memory is safe.
// The data path is not failed: a packet dropped for want of memory is a retransmission, not
// an errno, and the walk's data checks would take it for the device's fault.
#ifndef RDMACHECK_WALK_FAULT_INJECTION_H_
#define RDMACHECK_WALK_FAULT_INJECTION_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"

namespace rdmacheck::walk {

class FaultInjection {
 public:
  // Sets failslab and fail_page_alloc as above; FAILED_PRECONDITION, one line, when this
  // kernel has no fault injection (CONFIG_FAILSLAB, CONFIG_FAIL_PAGE_ALLOC, debugfs mounted).
  static absl::StatusOr<FaultInjection> Arm(int interval);
  FaultInjection(FaultInjection&& other) noexcept : saved_(std::move(other.saved_)) { other.saved_.clear(); }
  FaultInjection& operator=(FaultInjection&&) = delete;
  ~FaultInjection();  // the settings as they were

 private:
  FaultInjection() = default;
  std::map<std::string, std::string> saved_;  // debugfs file -> its value before
};

// While it lives, the calling thread's kernel allocations may be failed (when `on`; a
// FailingScope(false) does nothing, so call sites need no branch).
class FailingScope {
 public:
  explicit FailingScope(bool on);
  ~FailingScope();
  FailingScope(const FailingScope&) = delete;
  FailingScope& operator=(const FailingScope&) = delete;

 private:
  bool on_;
};

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_FAULT_INJECTION_H_
