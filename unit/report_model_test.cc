// The report model: matrix, differences, capability rows, quirks, counts, loading run dirs.
#include "reports/report_model.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/status_matchers.h"
#include "unit/report_fixtures.h"

namespace rdmacheck {
namespace {

using fixtures::Expected;
using fixtures::Result;
using fixtures::RunOf;
using fixtures::SkippedFor;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Optional;
using ::testing::Pair;
using ::testing::SizeIs;

constexpr TestStatus kPass = TestStatus::kPass;
constexpr TestStatus kFail = TestStatus::kFail;
constexpr TestStatus kSkip = TestStatus::kSkip;
constexpr TestStatus kXfail = TestStatus::kXfail;
constexpr TestStatus kXpass = TestStatus::kXpass;

std::vector<std::string> RowNames(const Report& r) {
  std::vector<std::string> names;
  for (const MatrixRow& row : r.matrix) names.push_back(row.suite + ":" + row.test);
  return names;
}

TEST(ReportModelTest, CatalogueIdDropsInstantiationAndParameter) {
  EXPECT_EQ(CatalogueId("Sizes/OpsTest.SendArrivesIntact/1"), "OpsTest.SendArrivesIntact");
  EXPECT_EQ(CatalogueId("PdTest.AllocAndDealloc"), "PdTest.AllocAndDealloc");
  EXPECT_EQ(CatalogueId("CqTest.Create/3"), "CqTest.Create");
  EXPECT_EQ(CatalogueId("NoDot"), "NoDot");
}

TEST(ReportModelTest, MatrixGroupsTestsBySuiteInRunOrder) {
  std::vector<DeviceRun> runs;
  runs.push_back(RunOf(
      "rxe0", {Result("pd", "PdTest.A", kPass), Result("cq", "CqTest.C", kPass), Result("pd", "PdTest.B", kPass)}));
  runs.push_back(RunOf(
      "siw0", {Result("cq", "CqTest.C", kFail), Result("mr", "MrTest.M", kPass), Result("pd", "PdTest.A", kPass)}));
  Report r = BuildReport(std::move(runs));
  EXPECT_THAT(RowNames(r), ElementsAre("pd:PdTest.A", "pd:PdTest.B", "cq:CqTest.C", "mr:MrTest.M"));
  // Cells index each device's own results; a test a device did not run has none.
  EXPECT_THAT(r.matrix[0].cells, ElementsAre(Optional(0u), Optional(2u)));
  EXPECT_THAT(r.matrix[1].cells, ElementsAre(Optional(2u), std::nullopt));
  EXPECT_EQ(r.Cell(r.matrix[2], 1)->status, kFail);
  EXPECT_EQ(r.Cell(r.matrix[3], 0), nullptr);
}

TEST(ReportModelTest, RowsDifferWhenOutcomesOrPresenceDiffer) {
  std::vector<DeviceRun> runs;
  runs.push_back(RunOf("rxe0", {Result("pd", "PdTest.Same", kPass), Result("pd", "PdTest.Other", kPass),
                                Result("pd", "PdTest.OnlyHere", kPass)}));
  runs.push_back(RunOf("siw0", {Result("pd", "PdTest.Same", kPass), Result("pd", "PdTest.Other", kSkip)}));
  Report r = BuildReport(std::move(runs));
  ASSERT_THAT(r.matrix, SizeIs(3));
  EXPECT_FALSE(r.matrix[0].differs);
  EXPECT_TRUE(r.matrix[1].differs);
  EXPECT_TRUE(r.matrix[2].differs);  // not run counts as an outcome
  EXPECT_EQ(r.DifferingTests(), 2);
}

TEST(ReportModelTest, OneDeviceHasNoDifferences) {
  std::vector<DeviceRun> runs;
  runs.push_back(
      RunOf("rxe0", {Result("pd", "PdTest.A", kPass), Result("pd", "PdTest.B", kFail)}, {{"atomics", "broken"}}));
  Report r = BuildReport(std::move(runs));
  EXPECT_EQ(r.DifferingTests(), 0);
  EXPECT_EQ(r.DifferingCapabilities(), 0);
}

TEST(ReportModelTest, CapabilityRowsAreTheUnionOfWhatTheProbesObserved) {
  std::vector<DeviceRun> runs;
  // Names the report has never heard of are shown like any other.
  runs.push_back(RunOf("rxe0", {}, {{"atomics", "supported"}, {"brand_new_cap", "supported"}, {"ud_qp", "supported"}}));
  runs.push_back(RunOf("siw0", {}, {{"atomics", "unsupported"}, {"ud_qp", "supported"}, {"mw_type2", "broken"}}));
  Report r = BuildReport(std::move(runs));
  ASSERT_THAT(
      r.capabilities,
      ElementsAre(Field(&CapabilityRow::capability, "atomics"), Field(&CapabilityRow::capability, "brand_new_cap"),
                  Field(&CapabilityRow::capability, "mw_type2"), Field(&CapabilityRow::capability, "ud_qp")));
  EXPECT_TRUE(r.capabilities[0].differs);
  EXPECT_TRUE(r.capabilities[1].differs);  // not probed on siw0
  EXPECT_EQ(r.capabilities[1].cells[1], std::nullopt);
  EXPECT_TRUE(r.capabilities[2].quirk);  // broken
  EXPECT_FALSE(r.capabilities[3].differs);
  EXPECT_FALSE(r.capabilities[3].quirk);
  EXPECT_EQ(r.DifferingCapabilities(), 3);
}

TEST(ReportModelTest, QuirksTellEveryDeviationInWords) {
  std::vector<DeviceRun> runs;
  runs.push_back(RunOf("rxe0",
                       {Result("mw", "MwTest.Bind", kXfail, "bind failed"), Result("pd", "PdTest.A", kPass),
                        Result("mw", "MwTest.Other", kXpass)},
                       {{"mw_type2", "broken"}, {"srq", "broken"}, {"atomics", "supported"}},
                       {{"srq", "declares SRQ but create fails"}}));
  runs[0].results.tests[0] = Expected(runs[0].results.tests[0], "rxe lacks MW type 2", "rdma-core #1");
  runs[0].results.tests[2] = Expected(runs[0].results.tests[2], "old kernels fail this", "");
  Report r = BuildReport(std::move(runs));
  ASSERT_THAT(r.quirks, SizeIs(4));
  // The probe's own quirk explains srq; broken mw_type2 has none, so the report writes one.
  EXPECT_EQ(r.quirks[0].kind, QuirkKind::kProfile);
  EXPECT_EQ(r.quirks[0].subject, "srq");
  EXPECT_EQ(r.quirks[0].text, "declares SRQ but create fails");
  EXPECT_EQ(r.quirks[1].kind, QuirkKind::kBroken);
  EXPECT_EQ(r.quirks[1].subject, "mw_type2");
  EXPECT_THAT(r.quirks[1].text, HasSubstr("mw_type2 was tried"));
  EXPECT_EQ(r.quirks[2].kind, QuirkKind::kXfail);
  EXPECT_EQ(r.quirks[2].subject, "MwTest.Bind");
  EXPECT_EQ(r.quirks[2].catalogue_id, "MwTest.Bind");
  EXPECT_THAT(r.quirks[2].text, HasSubstr("rxe lacks MW type 2"));
  EXPECT_EQ(r.quirks[2].reference, "rdma-core #1");
  EXPECT_EQ(r.quirks[3].kind, QuirkKind::kXpass);
  EXPECT_THAT(r.quirks[3].text, HasSubstr("stale"));
  EXPECT_TRUE(r.capabilities[2].quirk);  // srq: named by a profile quirk
}

TEST(ReportModelTest, CountsPerDeviceAndPerSuite) {
  std::vector<DeviceRun> runs;
  runs.push_back(
      RunOf("rxe0", {Result("pd", "PdTest.A", kPass), Result("pd", "PdTest.B", kFail),
                     SkippedFor(Result("cq", "CqTest.C", kSkip), "cq_resize"), Result("cq", "CqTest.D", kXfail)}));
  runs[0].results.suites.pop_back();  // cq has results but no timing: still counted
  Report r = BuildReport(std::move(runs));
  const DeviceSection& d = r.devices[0];
  EXPECT_EQ(d.summary.total, 4);
  EXPECT_EQ(d.summary.fail, 1);
  EXPECT_THAT(d.summary.skipped_by_capability, ElementsAre(Pair("cq_resize", 1)));
  ASSERT_THAT(d.suites, SizeIs(2));
  EXPECT_EQ(d.suites[0].suite, "pd");
  EXPECT_EQ(d.suites[0].summary.pass, 1);
  EXPECT_EQ(d.suites[0].summary.fail, 1);
  EXPECT_EQ(d.suites[0].duration_ms, 500);
  EXPECT_EQ(d.suites[1].suite, "cq");
  EXPECT_EQ(d.suites[1].summary.skip, 1);
  EXPECT_EQ(d.suites[1].summary.xfail, 1);
}

TEST(ReportModelTest, CatalogueHasOneEntryPerPattern) {
  std::vector<DeviceRun> runs;
  runs.push_back(RunOf("rxe0", {Result("ops", "Sizes/OpsTest.Send/0", kPass),
                                Result("ops", "Sizes/OpsTest.Send/1", kPass), Result("pd", "PdTest.A", kPass)}));
  runs[0].results.tests[0].needs = {"rdma_write"};
  Report r = BuildReport(std::move(runs));
  ASSERT_THAT(r.catalogue,
              ElementsAre(Field(&CatalogueEntry::id, "OpsTest.Send"), Field(&CatalogueEntry::id, "PdTest.A")));
  EXPECT_EQ(r.catalogue[0].purpose, "checks Sizes/OpsTest.Send/0");
  EXPECT_THAT(r.catalogue[0].needs, ElementsAre("rdma_write"));
  EXPECT_EQ(r.FindCatalogue("PdTest.A")->suite, "pd");
  EXPECT_EQ(r.FindCatalogue("Nope.Nope"), nullptr);
}

TEST(ReportModelTest, TheSameDeviceTwiceGetsDistinctLabels) {
  std::vector<DeviceRun> runs;
  runs.push_back(RunOf("rxe0", {}));
  runs.push_back(RunOf("rxe0", {}));
  runs[1].source = "out/again";
  runs.push_back(RunOf("siw0", {}));
  Report r = BuildReport(std::move(runs));
  EXPECT_EQ(r.devices[0].label, "rxe0 (out/rxe0)");
  EXPECT_EQ(r.devices[1].label, "rxe0 (out/again)");
  EXPECT_EQ(r.devices[2].label, "siw0");
}

TEST(ReportModelTest, LoadsAFixtureRunDirectory) {
  ASSERT_OK_AND_ASSIGN(DeviceRun run, LoadRunDir(fixtures::TestdataDir() + "/siw0"));
  EXPECT_EQ(run.results.device, "siw0");
  EXPECT_THAT(run.results.tests, SizeIs(8));
  EXPECT_EQ(run.observed.at("manual_connect").outcome, "unsupported");
  EXPECT_EQ(run.observed.at("manual_connect").err, 22);
  EXPECT_THAT(run.profile_quirks, ElementsAre(Pair("mw_type2", HasSubstr("does not set MEM_WINDOW_TYPE_2B"))));
  EXPECT_EQ(run.measured["max_inline_data"]["value"], 72);
  EXPECT_EQ(run.declared["atomic_cap"], "NONE");
}

TEST(ReportModelTest, CapabilitiesKeepNamesThisBuildDoesNotKnow) {
  DeviceRun run;
  ASSERT_OK(SetCapabilities({{"observed", {{"quantum_entanglement", {{"outcome", "supported"}}}}}}, run));
  EXPECT_EQ(run.observed.at("quantum_entanglement").outcome, "supported");
}

class LoadErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/report_load_errors";
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  std::string dir_;
};

TEST_F(LoadErrorsTest, NamesTheMissingFile) {
  EXPECT_THAT(LoadRunDir(dir_).status().message(), HasSubstr(dir_ + "/results.json"));
  std::filesystem::copy_file(fixtures::TestdataDir() + "/rxe0/results.json", dir_ + "/results.json");
  EXPECT_THAT(LoadRunDir(dir_).status().message(), HasSubstr(dir_ + "/capabilities.json"));
}

TEST_F(LoadErrorsTest, NamesTheFileThatIsNotJson) {
  std::filesystem::copy_file(fixtures::TestdataDir() + "/rxe0/results.json", dir_ + "/results.json");
  ASSERT_OK(WriteFile(dir_ + "/capabilities.json", "{ not json"));
  EXPECT_THAT(LoadRunDir(dir_).status().message(), HasSubstr(dir_ + "/capabilities.json: not valid JSON"));
}

}  // namespace
}  // namespace rdmacheck
