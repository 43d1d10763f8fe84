#include "runner/test_selection.h"

#include <fnmatch.h>

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "testing/catalogue.h"

namespace rdmacheck {

std::vector<RegisteredTest> RegisteredTests() {
  std::vector<RegisteredTest> tests;
  ::testing::UnitTest* unit = ::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit->total_test_suite_count(); ++i) {
    const ::testing::TestSuite* suite = unit->GetTestSuite(i);
    for (int j = 0; j < suite->total_test_count(); ++j) {
      const ::testing::TestInfo* info = suite->GetTestInfo(j);
      std::string name = absl::StrCat(info->test_suite_name(), ".", info->name());
      if (absl::StrContains(name, "DISABLED_")) continue;
      tests.push_back({SuiteOfFile(info->file()), name, info->test_suite_name(), info->name()});
    }
  }
  return tests;
}

std::vector<std::string> RegisteredTestNames() {
  std::vector<std::string> names;
  for (RegisteredTest& t : RegisteredTests()) names.push_back(std::move(t.name));
  return names;
}

namespace {
bool MatchesAny(absl::string_view name, absl::string_view patterns) {
  for (absl::string_view p : absl::StrSplit(patterns, ':', absl::SkipEmpty())) {
    if (fnmatch(std::string(p).c_str(), std::string(name).c_str(), 0) == 0) return true;
  }
  return false;
}
}  // namespace

bool MatchesGtestFilter(absl::string_view name, absl::string_view filter) {
  size_t dash = filter.find('-');
  absl::string_view positive = filter.substr(0, dash);
  absl::string_view negative = dash == absl::string_view::npos ? "" : filter.substr(dash + 1);
  if (positive.empty()) positive = "*";
  return MatchesAny(name, positive) && !MatchesAny(name, negative);
}

std::vector<std::string> SuitesOf(const std::vector<RegisteredTest>& tests) {
  std::vector<std::string> suites;
  for (const RegisteredTest& t : tests) {
    if (std::find(suites.begin(), suites.end(), t.suite) == suites.end()) suites.push_back(t.suite);
  }
  return suites;
}

absl::StatusOr<std::vector<RegisteredTest>> SelectTests(const std::vector<RegisteredTest>& all,
                                                        const std::vector<std::string>& suites,
                                                        absl::string_view gtest_filter) {
  std::vector<std::string> known = SuitesOf(all);
  for (const std::string& s : suites) {
    if (std::find(known.begin(), known.end(), s) == known.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--suites: unknown suite '", s, "' (suites: ", absl::StrJoin(known, ", "), ")"));
    }
  }
  std::vector<RegisteredTest> selected;
  for (const RegisteredTest& t : all) {
    bool in_suite = suites.empty() || std::find(suites.begin(), suites.end(), t.suite) != suites.end();
    if (in_suite && MatchesGtestFilter(t.name, gtest_filter)) selected.push_back(t);
  }
  return selected;
}

}  // namespace rdmacheck
