// The expectation matcher splits what the runner really writes for a failed test back into
// its failed assertions (issue 35.2): a failure after a SCOPED_TRACE failure, and an
// exception's failure (no source location), are parts of their own, so an entry for one
// failure never absorbs another. The messages come from a real GoogleTest process that
// reports through the runner's event writer (failure_parts_child.cc).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "capabilities/expectations/expectations.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runner/events.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::SizeIs;
using ::testing::StartsWith;

constexpr char kMtu[] = "active_mtu is 4096, want 1024";
constexpr char kByte[] = "byte 3 is 0x00, want 0x5a";
constexpr char kThrown[] = "C++ exception with description \"ibv_post_send: ENOMEM\" thrown in the test body.";

// The child's results as the supervisor receives them, by test name ("RunnerMessages.X").
const std::map<std::string, TestResult>& RunnerResults() {
  static const auto* results = [] {
    auto* by_name = new std::map<std::string, TestResult>;
    const std::string events = absl::StrCat(::testing::TempDir(), "rdmacheck-failure-parts-", getpid(), ".events");
    std::remove(events.c_str());
    const int status = std::system(absl::StrCat(RDMACHECK_FAILURE_PARTS_CHILD, " ", events,
                                                " '--gtest_filter=RunnerMessages.*' >/dev/null 2>&1").c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child status " << status;  // failures in events
    for (const TestEvent& e : EventReader(events).ReadNew()) {
      if (e.kind != TestEvent::Kind::kEnd) continue;
      TestResult& r = (*by_name)[e.name];  // the fields runner/supervisor.cc copies for a verdict
      r.name = e.name;
      r.status = e.status;
      r.message = e.message;
    }
    std::remove(events.c_str());
    return by_name;
  }();
  return *results;
}

TestResult Ran(const std::string& test) {
  auto it = RunnerResults().find("RunnerMessages." + test);
  EXPECT_NE(it, RunnerResults().end()) << test << " did not report";
  return it == RunnerResults().end() ? TestResult{} : it->second;
}

// A "fails" entry for the child's tests whose signature is `signature`.
Expectation Entry(const std::string& signature) {
  nlohmann::json entry = {{"test", "RunnerMessages.*"}, {"kind", "fails"}, {"reason", "rxe says so"},
                          {"reference", "IBTA"}, {"signature", signature}};
  absl::StatusOr<ExpectationFile> file = ParseExpectations({{"driver", "rxe"}, {"expectations", {entry}}}, "rxe.json");
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? file->entries[0] : Expectation{};
}

// FailureParts as strings (gMock prints a string_view as its characters).
std::vector<std::string> Parts(const std::string& message) {
  std::vector<std::string> parts;
  for (absl::string_view part : FailureParts(message)) parts.emplace_back(part);
  return parts;
}

TestStatus Judged(const std::string& test, const std::string& signature) {
  TestResult r = Ran(test);
  const Expectation entry = Entry(signature);
  ApplyExpectation(&entry, r);
  return r.status;
}

TEST(RunnerFailurePartsTest, ATracedFailureKeepsItsTraceAndTheNextFailureIsAPartOfItsOwn) {
  const TestResult r = Ran("TracedThenAnother");
  ASSERT_EQ(r.status, TestStatus::kFail);
  const std::vector<std::string> parts = Parts(r.message);
  ASSERT_THAT(parts, SizeIs(2)) << r.message;
  EXPECT_THAT(parts[0], AllOf(HasSubstr(kMtu), HasSubstr("Google Test trace:"), HasSubstr("port 1 of rxe0"),
                                           Not(HasSubstr(kByte))));
  EXPECT_THAT(parts[1], AllOf(HasSubstr("failure_parts_child.cc:"), HasSubstr(kByte)));
  EXPECT_THAT(Parts(Ran("TracedOnly").message), SizeIs(1));
}

TEST(RunnerFailurePartsTest, AnExceptionIsAPartOfItsOwn) {
  const TestResult r = Ran("FailsThenThrows");
  ASSERT_EQ(r.status, TestStatus::kFail);
  const std::vector<std::string> parts = Parts(r.message);
  ASSERT_THAT(parts, SizeIs(2)) << r.message;
  EXPECT_THAT(parts[0], AllOf(HasSubstr(kMtu), Not(HasSubstr("exception"))));
  EXPECT_THAT(parts[1], StartsWith(kThrown));
}

// Each entry matches its own failure only: the traced failure alone is the known deviation,
// with another failure after it, it is not (whichever of the two the entry names).
TEST(RunnerFailurePartsTest, AnEntryForOneFailureAbsorbsNoOther) {
  EXPECT_EQ(Judged("TracedOnly", kMtu), TestStatus::kXfail);
  EXPECT_EQ(Judged("TracedThenAnother", kMtu), TestStatus::kFail);
  EXPECT_EQ(Judged("TracedThenAnother", kByte), TestStatus::kFail);
  EXPECT_EQ(Judged("FailsThenThrows", kMtu), TestStatus::kFail);
}

}  // namespace
}  // namespace rdmacheck
