// Status helpers for verbs and libc calls.
//
// Helpers in rdmacheck return absl::Status / absl::StatusOr and never abort: a failed
// verb becomes a Status whose message names the verb and the errno, and whose errno
// can be read back with ErrnoOf() (probes record it, tests compare it).
#ifndef RDMACHECK_HARNESS_STATUS_H_
#define RDMACHECK_HARNESS_STATUS_H_

#include <optional>
#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace rdmacheck {

// "ibv_create_cq(cqe=0): EINVAL (Invalid argument)", with errno kept as a payload.
absl::Status ErrnoStatus(int err, absl::string_view what);

// The errno a Status was made from by ErrnoStatus, if any.
std::optional<int> ErrnoOf(const absl::Status& status);

// "EINVAL" for EINVAL; "errno 1234" for values without a symbolic name.
const char* ErrnoName(int err);

// Every bounded wait's timeout, worded once: "timed out after 2s waiting for completions:
// 0 of 1 arrived" (DEADLINE_EXCEEDED). It names what was awaited and how many of how many
// arrived, so an expected deviation's signature can name both (capabilities/expectations
// refuses one that matches a timeout whatever was awaited, or whatever count arrived).
absl::Status WaitTimedOut(absl::Duration timeout, absl::string_view what, int arrived, int awaited);

}  // namespace rdmacheck

#define RDMACHECK_STATUS_CONCAT_INNER_(a, b) a##b
#define RDMACHECK_STATUS_CONCAT_(a, b) RDMACHECK_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (an absl::Status) is not OK.
#define RDMACHECK_RETURN_IF_ERROR(expr)            \
  do {                                             \
    if (absl::Status status_ = (expr); !status_.ok()) \
      return status_;                              \
  } while (0)

// `lhs = value of expr` (an absl::StatusOr), or returns its error.
#define RDMACHECK_ASSIGN_OR_RETURN(lhs, expr) \
  RDMACHECK_ASSIGN_OR_RETURN_IMPL_(RDMACHECK_STATUS_CONCAT_(statusor_, __LINE__), lhs, expr)
#define RDMACHECK_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                     \
  if (!tmp.ok()) return tmp.status();                    \
  lhs = std::move(tmp).value()

#endif  // RDMACHECK_HARNESS_STATUS_H_
