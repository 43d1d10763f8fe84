// Expected deviations: the file format, matching, version ranges, stale patterns, and
// what an entry makes of a result (xfail / xpass).
#include "capabilities/expectations.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

nlohmann::json Entry(std::string test, std::string kind = "fails") {
  return {{"test", std::move(test)}, {"kind", std::move(kind)}, {"reason", "siw says no"}, {"reference", "RFC 5040"}};
}

ExpectationFile File(std::vector<nlohmann::json> entries) {
  absl::StatusOr<ExpectationFile> file =
      ParseExpectations({{"driver", "siw"}, {"expectations", entries}}, "/x/siw.json");
  EXPECT_TRUE(file.ok()) << file.status();
  return file.ok() ? *file : ExpectationFile{};
}

TestResult Result(TestStatus status) {
  TestResult r;
  r.name = "QpTest.RtsManual";
  r.status = status;
  r.message = "qp_test.cc:10: EINVAL";
  return r;
}

TEST(ExpectationFormatTest, AValidFileParses) {
  nlohmann::json e = Entry("QpTest.*");
  e["kernel"] = {{"from", "5.3"}, {"before", "6.10"}};
  e["rdma_core"] = {{"from", "40"}};
  ExpectationFile file = File({e});
  ASSERT_EQ(file.entries.size(), 1u);
  EXPECT_EQ(file.driver, "siw");
  EXPECT_EQ(file.entries[0].kernel.before, "6.10");
  EXPECT_EQ(file.entries[0].reference, "RFC 5040");
}

TEST(ExpectationFormatTest, MistakesAreErrorsThatNameTheEntry) {
  auto error = [](nlohmann::json entry) {
    return ParseExpectations({{"driver", "siw"}, {"expectations", {Entry("A.B"), entry}}}, "/x/siw.json").status();
  };
  nlohmann::json typo = Entry("A.B");
  typo["reasn"] = "x";
  EXPECT_THAT(error(typo).message(), HasSubstr("siw.json entry 1: unknown key 'reasn'"));
  nlohmann::json no_reason = Entry("A.B");
  no_reason.erase("reason");
  EXPECT_THAT(error(no_reason).message(), HasSubstr("'reason' must be a non-empty string"));
  EXPECT_THAT(error(Entry("A.B", "sometimes")).message(), HasSubstr("must be \"fails\" or \"flaky\""));
  EXPECT_THAT(error(Entry("A.B:C.D")).message(), HasSubstr("must be one pattern"));
  nlohmann::json bad_version = Entry("A.B");
  bad_version["kernel"] = {{"from", "new"}};
  EXPECT_THAT(error(bad_version).message(), HasSubstr("kernel"));
  EXPECT_FALSE(ParseExpectations(nlohmann::json::array(), "/x/siw.json").ok());
}

TEST(ExpectationMatchTest, PatternsMatchFullOrCatalogueNames) {
  ExpectationFile file = File({Entry("CqTest.Create"), Entry("QpTest.Rts*")});
  EXPECT_TRUE(file.entries[0].Matches("CqTest.Create"));
  EXPECT_TRUE(file.entries[0].Matches("Sizes/CqTest.Create/3"));  // every instance
  EXPECT_FALSE(file.entries[0].Matches("CqTest.CreateMany"));
  EXPECT_TRUE(file.entries[1].Matches("QpTest.RtsManual"));
  EXPECT_FALSE(file.entries[1].Matches("QpTest.Rtr"));
}

TEST(ExpectationMatchTest, VersionRangesAreHalfOpen) {
  VersionRange range{"6.1", "6.9"};
  EXPECT_TRUE(range.Contains("6.1.0-56-amd64"));
  EXPECT_TRUE(range.Contains("6.8.12"));
  EXPECT_FALSE(range.Contains("6.9"));
  EXPECT_FALSE(range.Contains("5.15.0"));
  EXPECT_FALSE(range.Contains("unknown"));
  EXPECT_TRUE(VersionRange{}.Contains("unknown"));
  EXPECT_TRUE((VersionRange{"44", ""}.Contains("44.0-2")));
}

TEST(ExpectationMatchTest, AnEntryOutsideItsVersionRangeDoesNotApply) {
  nlohmann::json old_kernels = Entry("QpTest.RtsManual");
  old_kernels["kernel"] = {{"before", "6.0"}};
  ExpectationFile file = File({old_kernels});
  EXPECT_EQ(FindExpectation(file, "QpTest.RtsManual", "6.1.0-56-amd64", "44.0-2"), nullptr);
  EXPECT_NE(FindExpectation(file, "QpTest.RtsManual", "5.10.0", "44.0-2"), nullptr);
}

TEST(StaleEntriesTest, APatternThatMatchesNoRegisteredTestIsStale) {
  ExpectationFile file = File({Entry("PdTest.*"), Entry("GoneTest.Removed")});
  std::vector<std::string> tests = {"PdTest.AllocDealloc", "Inst/CqTest.Create/0"};
  EXPECT_THAT(StaleEntries(file, tests),
              ElementsAre("siw.json entry 1: pattern 'GoneTest.Removed' matches no registered test"));
  EXPECT_THAT(StaleEntries(File({Entry("CqTest.Create")}), tests), IsEmpty());
}

TEST(ApplyExpectationTest, AKnownFailureIsXfailWithItsReason) {
  ExpectationFile file = File({Entry("QpTest.RtsManual")});
  TestResult r = Result(TestStatus::kFail);
  ApplyExpectation(&file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kXfail);
  EXPECT_EQ(r.expectation_reason, "siw says no");
  EXPECT_EQ(r.expectation_reference, "RFC 5040");
  EXPECT_EQ(r.message, "qp_test.cc:10: EINVAL");  // the failure stays visible
  EXPECT_FALSE(IsFailure(r.status));
}

TEST(ApplyExpectationTest, AKernelLogFailureIsNeverXfail) {
  ExpectationFile file = File({Entry("QpTest.RtsManual")});
  TestResult r = Result(TestStatus::kFail);
  r.kernel_log = {"[ 1.0] WARNING: CPU: 0 PID: 1 at drivers/infiniband/sw/siw/siw_qp.c:1"};
  ApplyExpectation(&file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kFail);
  EXPECT_EQ(r.expectation_reason, "");
}

TEST(ApplyExpectationTest, APassOfAKnownFailureIsXpassAndFailsTheRun) {
  ExpectationFile file = File({Entry("QpTest.RtsManual")});
  TestResult r = Result(TestStatus::kPass);
  ApplyExpectation(&file.entries[0], r);
  EXPECT_EQ(r.status, TestStatus::kXpass);
  EXPECT_THAT(r.message, HasSubstr("stale entry, or the device was fixed"));
  EXPECT_TRUE(IsFailure(r.status));
}

TEST(ApplyExpectationTest, FlakyPassesStayPassesSkipsStaySkipsNoEntryChangesNothing) {
  ExpectationFile file = File({Entry("QpTest.RtsManual", "flaky"), Entry("QpTest.Other")});
  TestResult pass = Result(TestStatus::kPass);
  ApplyExpectation(&file.entries[0], pass);
  EXPECT_EQ(pass.status, TestStatus::kPass);
  TestResult fail = Result(TestStatus::kFail);
  ApplyExpectation(&file.entries[0], fail);
  EXPECT_EQ(fail.status, TestStatus::kXfail);
  EXPECT_EQ(fail.expectation_reason, "flaky: siw says no");
  TestResult skip = Result(TestStatus::kSkip);
  ApplyExpectation(&file.entries[1], skip);
  EXPECT_EQ(skip.status, TestStatus::kSkip);
  TestResult untouched = Result(TestStatus::kFail);
  ApplyExpectation(nullptr, untouched);
  EXPECT_EQ(untouched.status, TestStatus::kFail);
}

TEST(ShippedExpectationsTest, EveryShippedFileParsesAndIsNamedForItsDriver) {
  ASSERT_OK_AND_ASSIGN(std::vector<ExpectationFile> files, AllShippedExpectations());
  std::vector<std::string> drivers;
  for (const ExpectationFile& f : files) drivers.push_back(f.driver);
  EXPECT_THAT(drivers, ::testing::IsSupersetOf({"rxe", "siw"}));
  ASSERT_OK_AND_ASSIGN(std::optional<ExpectationFile> siw, ExpectationsForDriver("siw"));
  EXPECT_TRUE(siw.has_value());
  ASSERT_OK_AND_ASSIGN(std::optional<ExpectationFile> none, ExpectationsForDriver("no_such_driver"));
  EXPECT_FALSE(none.has_value());
}

}  // namespace
}  // namespace rdmacheck
