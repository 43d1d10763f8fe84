#include "harness/status.h"

#include <cstring>
#include <string>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace rdmacheck {
namespace {
constexpr absl::string_view kErrnoPayload = "rdmacheck/errno";
}  // namespace

const char* ErrnoName(int err) {
  // strerrorname_np (glibc 2.32+) gives the symbolic name; Debian 12 has glibc 2.36.
  const char* name = strerrorname_np(err);
  return name ? name : "unknown-errno";
}

absl::Status ErrnoStatus(int err, absl::string_view what) {
  absl::Status status(absl::ErrnoToStatusCode(err),
                      absl::StrCat(what, ": ", ErrnoName(err), " (", std::strerror(err), ")"));
  if (err == 0) {
    // errno 0 means the call failed without saying why; still an error.
    status = absl::UnknownError(absl::StrCat(what, ": failed without errno"));
  }
  status.SetPayload(kErrnoPayload, absl::Cord(std::to_string(err)));
  return status;
}

absl::Status WaitTimedOut(absl::Duration timeout, absl::string_view what, int arrived, int awaited) {
  return absl::DeadlineExceededError(absl::StrCat("timed out after ", absl::FormatDuration(timeout), " waiting for ",
                                                  what, ": ", arrived, " of ", awaited, " arrived"));
}

std::optional<int> ErrnoOf(const absl::Status& status) {
  auto payload = status.GetPayload(kErrnoPayload);
  int err = 0;
  if (!payload || !absl::SimpleAtoi(std::string(*payload), &err)) return std::nullopt;
  return err;
}

}  // namespace rdmacheck
