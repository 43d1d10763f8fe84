#include "testing/observe.h"

#include <iostream>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace rdmacheck {

void Observe(const std::string& what) {
  ::testing::Test::RecordProperty("rdmacheck_observed", what);
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[ OBSERVED ] " << (info ? absl::StrCat(info->test_suite_name(), ".", info->name()) : "") << ": "
            << what << std::endl;
}

}  // namespace rdmacheck
