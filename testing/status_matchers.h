// GoogleTest helpers for absl::Status and errno values.
//
//   ASSERT_OK(status_or_statusor);
//   ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
//   EXPECT_THAT(ibv_dealloc_pd(pd), ErrnoIs(EBUSY));   // prints "EBUSY", not "16"
//   EXPECT_THAT(status, HasErrno(EINVAL));
#ifndef RDMACHECK_TESTING_STATUS_MATCHERS_H_
#define RDMACHECK_TESTING_STATUS_MATCHERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/status.h"

namespace rdmacheck::testing_internal {
inline const absl::Status& ToStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& ToStatus(const absl::StatusOr<T>& s) { return s.status(); }
}  // namespace rdmacheck::testing_internal

#define EXPECT_OK(expr) EXPECT_THAT(expr, ::rdmacheck::IsOk())
#define ASSERT_OK(expr)                                                          \
  do {                                                                           \
    const absl::Status rdmacheck_status_ = ::rdmacheck::testing_internal::ToStatus(expr); \
    ASSERT_TRUE(rdmacheck_status_.ok()) << rdmacheck_status_.message();          \
  } while (0)

#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(RDMACHECK_STATUS_CONCAT_(statusor_, __LINE__), lhs, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr)   \
  auto tmp = (expr);                                 \
  ASSERT_TRUE(tmp.ok()) << tmp.status().message();   \
  lhs = std::move(tmp).value()

namespace rdmacheck {

// An int that is an errno value (a verb's return, or errno itself).
MATCHER_P(ErrnoIs, expected, std::string(negation ? "is not " : "is ") + std::string(ErrnoName(expected))) {
  if (arg != expected) {
    *result_listener << "which is " << (arg == 0 ? std::string("0 (success)") : std::string(ErrnoName(arg)));
    return false;
  }
  return true;
}

// A Status made by ErrnoStatus with this errno.
MATCHER_P(HasErrno, expected, std::string("fails with ") + std::string(ErrnoName(expected))) {
  const absl::Status& status = testing_internal::ToStatus(arg);
  std::optional<int> err = ErrnoOf(status);
  *result_listener << "whose status is " << status;
  return err && *err == expected;
}

// A StatusOr that is OK and whose value matches `m`.
MATCHER_P(IsOkAndHolds, m, "is OK and holds a matching value") {
  if (!arg.ok()) {
    *result_listener << "whose status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(m, *arg, result_listener);
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = testing_internal::ToStatus(arg);
  *result_listener << "whose status is " << status;
  return status.ok();
}

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_STATUS_MATCHERS_H_
