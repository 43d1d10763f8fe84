// The test plan's numbers: each test keeps its ID for good. plan/ids.json, committed:
//
//   {"version": 2, "next": 253,
//    "tests":   {"AhTest.CreateFromSelectedGidAndDestroy": 1, ...},
//    "retired": {"OldTest.Gone": 17}}
//
// Rules (AssignIds): a test that has a number keeps it; new tests take the next free
// numbers, in name order; a test that is gone is retired with its number, which no other
// test gets again (one that comes back gets its own number back). Any change bumps the
// plan version by one, and the change is written to plan/CHANGELOG.md.
// "T-0007" is how a number is shown.
#ifndef RDMACHECK_PLAN_TEST_IDS_H_
#define RDMACHECK_PLAN_TEST_IDS_H_

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace rdmacheck {

struct TestIds {
  int version = 0;  // the plan version: 0 before any ID was given
  int next = 1;     // the next free number
  std::map<std::string, int> tests;    // "Fixture.Name" -> number
  std::map<std::string, int> retired;  // removed tests, their numbers kept out of use
};

struct IdChanges {
  std::vector<std::pair<std::string, int>> added;    // new (or returned) tests, with their numbers
  std::vector<std::pair<std::string, int>> retired;  // tests gone, with the numbers they had
  bool empty() const { return added.empty() && retired.empty(); }
};

// A missing file reads as no IDs yet (version 0).
absl::StatusOr<TestIds> LoadTestIds(const std::string& path);
absl::Status SaveTestIds(const std::string& path, const TestIds& ids);  // written whole, then renamed

// Brings `ids` to the tests of `current` ("Fixture.Name", any order).
IdChanges AssignIds(TestIds& ids, const std::vector<std::string>& current);

std::string ShowId(int number);  // 7 -> "T-0007"

// Appends "## Plan version N (DATE)" with one line per added and retired test.
absl::Status AppendChangeLog(const std::string& path, int version, const std::string& date, const IdChanges& changes);

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_TEST_IDS_H_
