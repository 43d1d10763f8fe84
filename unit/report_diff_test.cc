// `report diff`: what counts as a regression, the order changes are told in, the exit code.
#include "reports/report_diff.h"

#include <filesystem>

#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "cli/commands.h"
#include "testing/status_matchers.h"
#include "reports/report_json.h"
#include "reports/report_output.h"
#include "unit/report_fixtures.h"

namespace rdmacheck {
namespace {

using fixtures::Result;
using fixtures::RunOf;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

constexpr TestStatus kPass = TestStatus::kPass;
constexpr TestStatus kFail = TestStatus::kFail;
constexpr TestStatus kSkip = TestStatus::kSkip;
constexpr TestStatus kXfail = TestStatus::kXfail;
constexpr TestStatus kXpass = TestStatus::kXpass;

Report OneRun(DeviceRun run) {
  std::vector<DeviceRun> runs;
  runs.push_back(std::move(run));
  return BuildReport(std::move(runs));
}

TEST(ReportDiffTest, ClassifiesEveryKindOfChange) {
  // Newly failing: anything that did not fail the run before and does now.
  for (TestStatus before : {kPass, kSkip, kXfail}) {
    for (TestStatus after : {kFail, kXpass}) {
      EXPECT_EQ(ClassifyChange(before, after), ChangeKind::kRegression)
          << TestStatusName(before) << " -> " << TestStatusName(after);
    }
  }
  EXPECT_EQ(ClassifyChange(kFail, kPass), ChangeKind::kFixed);
  EXPECT_EQ(ClassifyChange(kXpass, kXfail), ChangeKind::kFixed);
  EXPECT_EQ(ClassifyChange(kPass, kSkip), ChangeKind::kChanged);
  EXPECT_EQ(ClassifyChange(kFail, kSkip), ChangeKind::kChanged);
  EXPECT_EQ(ClassifyChange(kFail, kXpass), ChangeKind::kChanged);
  EXPECT_EQ(ClassifyChange(std::nullopt, kFail), ChangeKind::kNewFailing);
  EXPECT_EQ(ClassifyChange(std::nullopt, kPass), ChangeKind::kAdded);
  EXPECT_EQ(ClassifyChange(kFail, std::nullopt), ChangeKind::kRemoved);
}

TEST(ReportDiffTest, ACapabilityRegressesWhenSupportIsLost) {
  EXPECT_TRUE(IsCapabilityRegression("supported", "unsupported"));
  EXPECT_TRUE(IsCapabilityRegression("supported", "broken"));
  EXPECT_FALSE(IsCapabilityRegression("unsupported", "supported"));
  EXPECT_FALSE(IsCapabilityRegression("broken", "unsupported"));
  EXPECT_FALSE(IsCapabilityRegression("supported", ""));  // no longer probed: listed, not a regression
}

TEST(ReportDiffTest, ListsNewlyFailingTestsFirst) {
  Report before = OneRun(RunOf("rxe0", {Result("pd", "PdTest.Fixed", kFail), Result("pd", "PdTest.Same", kPass),
                                        Result("pd", "PdTest.Breaks", kPass), Result("pd", "PdTest.Gone", kPass),
                                        Result("cq", "CqTest.Skips", kPass)}));
  Report after = OneRun(RunOf("rxe0", {Result("pd", "PdTest.Fixed", kPass), Result("pd", "PdTest.Same", kPass),
                                       Result("pd", "PdTest.New", kPass), Result("cq", "CqTest.Skips", kSkip),
                                       Result("pd", "PdTest.Breaks", kFail, "boom")}));
  ReportDiff diff = DiffReports(before, after);
  EXPECT_THAT(diff.tests,
              ElementsAre(Field(&TestChange::test, "PdTest.Breaks"), Field(&TestChange::test, "PdTest.Fixed"),
                          Field(&TestChange::test, "CqTest.Skips"), Field(&TestChange::test, "PdTest.New"),
                          Field(&TestChange::test, "PdTest.Gone")));
  EXPECT_EQ(diff.tests[0].kind, ChangeKind::kRegression);
  EXPECT_EQ(diff.tests[0].message, "boom");
  EXPECT_EQ(diff.unchanged_tests, 1);
  EXPECT_EQ(diff.Regressions(), 1);
  std::string text = DiffToText(diff, "old", "new");
  EXPECT_LT(text.find("PdTest.Breaks"), text.find("PdTest.Fixed"));
  EXPECT_THAT(text, HasSubstr("REGRESSION: 1 newly failing:\n  rxe0 pd PdTest.Breaks: pass -> fail\n      boom"));
}

TEST(ReportDiffTest, NothingChangedIsNoRegression) {
  Report r = OneRun(RunOf("rxe0", {Result("pd", "PdTest.A", kFail)}, {{"atomics", "broken"}}));
  ReportDiff diff = DiffReports(r, r);
  EXPECT_FALSE(diff.Regressed());
  EXPECT_THAT(diff.tests, IsEmpty());
  EXPECT_THAT(DiffToText(diff, "a", "b"), HasSubstr("no regression"));
}

TEST(ReportDiffTest, LostCapabilityIsARegressionAndAGainedOneIsNot) {
  Report before = OneRun(RunOf("rxe0", {}, {{"atomics", "supported"}, {"srq", "unsupported"}}));
  Report after = OneRun(RunOf("rxe0", {}, {{"atomics", "broken"}, {"srq", "supported"}}));
  ReportDiff diff = DiffReports(before, after);
  EXPECT_THAT(diff.capabilities, ElementsAre(Field(&CapabilityChange::capability, "atomics"),
                                             Field(&CapabilityChange::capability, "srq")));
  EXPECT_TRUE(diff.capabilities[0].regression);
  EXPECT_FALSE(diff.capabilities[1].regression);
  EXPECT_EQ(diff.Regressions(), 1);
}

TEST(ReportDiffTest, PairsDevicesByNameAndAMissingDeviceRegresses) {
  std::vector<DeviceRun> old_runs, new_runs;
  old_runs.push_back(RunOf("rxe0", {Result("pd", "PdTest.A", kPass)}));
  old_runs.push_back(RunOf("siw0", {Result("pd", "PdTest.A", kPass)}));
  new_runs.push_back(RunOf("mlx5_0", {Result("pd", "PdTest.A", kPass)}));
  new_runs.push_back(RunOf("rxe0", {Result("pd", "PdTest.A", kFail)}));
  ReportDiff diff = DiffReports(BuildReport(std::move(old_runs)), BuildReport(std::move(new_runs)));
  EXPECT_THAT(diff.devices_removed, ElementsAre("siw0"));
  EXPECT_THAT(diff.devices_added, ElementsAre("mlx5_0"));
  ASSERT_THAT(diff.tests, ElementsAre(Field(&TestChange::device, "rxe0")));
  EXPECT_EQ(diff.Regressions(), 2);
}

TEST(ReportDiffTest, TwoSingleDeviceRunsPairWhateverTheirNames) {
  ReportDiff diff = DiffReports(OneRun(RunOf("rxe0", {Result("pd", "PdTest.A", kPass)})),
                                OneRun(RunOf("rxe1", {Result("pd", "PdTest.A", kXpass)})));
  EXPECT_THAT(diff.devices_removed, IsEmpty());
  ASSERT_THAT(diff.tests, ElementsAre(Field(&TestChange::device, "rxe0 -> rxe1")));
  EXPECT_TRUE(diff.Regressed());
}

// The CLI, on the fixture runs: what a CI job sees.
class ReportCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One directory per test: ctest runs the tests of this fixture in parallel processes.
    out_ = ::testing::TempDir() + "/report_command_test." +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(out_);
  }
  void TearDown() override {
    absl::SetFlag(&FLAGS_out, "");
    absl::SetFlag(&FLAGS_format, "text");
  }
  int Report(std::vector<std::string> args, std::string* stdout_text) {
    ::testing::internal::CaptureStdout();
    int rc = ReportCommand(args);
    *stdout_text = ::testing::internal::GetCapturedStdout();
    return rc;
  }
  std::string Data(const std::string& name) { return fixtures::TestdataDir() + "/" + name; }
  std::string out_;
};

TEST_F(ReportCommandTest, WritesTheThreeFilesAndASummary) {
  absl::SetFlag(&FLAGS_out, out_);
  std::string text;
  EXPECT_EQ(Report({Data("rxe0"), Data("siw0")}, &text), kExitOk);
  for (const char* name : {"report.json", "report.md", "report.html"}) {
    EXPECT_TRUE(std::filesystem::exists(out_ + "/" + name)) << name;
    EXPECT_THAT(text, HasSubstr("wrote " + out_ + "/" + name));
  }
  EXPECT_THAT(text, HasSubstr("rdmacheck report: 2 device(s), 9 tests"));
  EXPECT_THAT(text, HasSubstr("differences: 5 tests, 4 capabilities"));
  EXPECT_THAT(text, HasSubstr("fail siw0 PortQueryTest.PkeyIndexZeroIsTheDefaultPartition"));
}

TEST_F(ReportCommandTest, DiffExitsOneAndNamesTheTestThatStartedToFail) {
  std::string text;
  EXPECT_EQ(Report({"diff", Data("rxe0"), Data("rxe0-regressed")}, &text), kExitFailures);
  EXPECT_THAT(text, HasSubstr("rxe0 pd PdTest.AllocAndDealloc: pass -> fail"));
  EXPECT_THAT(text, HasSubstr("REGRESSION rxe0 capability atomics: supported -> broken"));
  EXPECT_EQ(Report({"diff", Data("rxe0"), Data("rxe0")}, &text), kExitOk);
  EXPECT_THAT(text, HasSubstr("no regression"));
}

TEST_F(ReportCommandTest, DiffReadsReportJsonAsWellAsRunDirectories) {
  absl::SetFlag(&FLAGS_out, out_);
  std::string text;
  ASSERT_EQ(Report({Data("rxe0"), Data("siw0")}, &text), kExitOk);
  // OLD: the lab's out/ (a dir with report.json); NEW: the regressed rxe0 and siw0.
  absl::SetFlag(&FLAGS_out, out_ + "/new");
  ASSERT_EQ(Report({Data("rxe0-regressed"), Data("siw0")}, &text), kExitOk);
  absl::SetFlag(&FLAGS_format, "json");
  EXPECT_EQ(Report({"diff", out_, out_ + "/new/report.json"}, &text), kExitFailures);
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["regressions"], 2);
  EXPECT_EQ(j["tests"][0]["test"], "PdTest.AllocAndDealloc");
  EXPECT_EQ(j["tests"][0]["kind"], "regression");
}

TEST_F(ReportCommandTest, UnreadableInputExitsTwo) {
  std::string text;
  EXPECT_EQ(Report({"diff", Data("rxe0"), out_ + "/missing"}, &text), kExitUsage);
  EXPECT_EQ(Report({"diff", Data("rxe0")}, &text), kExitUsage);
  EXPECT_EQ(Report({out_ + "/missing"}, &text), kExitUsage);
  EXPECT_EQ(Report({}, &text), kExitUsage);
}

}  // namespace
}  // namespace rdmacheck
