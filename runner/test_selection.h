// Which tests a run executes: every registered GoogleTest test, narrowed by --suites and
// by --gtest_filter (GoogleTest's own syntax: "POS:POS-NEG:NEG" with * and ?).
#ifndef RDMACHECK_RUNNER_TEST_SELECTION_H_
#define RDMACHECK_RUNNER_TEST_SELECTION_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"

namespace rdmacheck {

struct RegisteredTest {
  std::string suite;       // folder under suites/
  std::string name;        // GoogleTest full name
  std::string test_suite;  // GoogleTest test suite name (with any instantiation prefix)
  std::string test_name;   // GoogleTest test name (with any parameter suffix)
};

// Every test linked into this binary, in registration order; DISABLED_ tests left out.
std::vector<RegisteredTest> RegisteredTests();
// Their full names.
std::vector<std::string> RegisteredTestNames();

bool MatchesGtestFilter(absl::string_view name, absl::string_view filter);

// `suites`: empty = all; an unknown suite name is an InvalidArgument error that lists the
// suites that exist.
absl::StatusOr<std::vector<RegisteredTest>> SelectTests(const std::vector<RegisteredTest>& all,
                                                        const std::vector<std::string>& suites,
                                                        absl::string_view gtest_filter);

// Suite names in first-seen order.
std::vector<std::string> SuitesOf(const std::vector<RegisteredTest>& tests);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_TEST_SELECTION_H_
