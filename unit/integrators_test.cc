// The hand-over rows (reports/integrators.h): one row per device for an integrators' list,
// from the fixture runs in unit/testdata/report (lab-rxe0 and lab-siw0 are real lab runs:
// the floor added to a slice, xfails, the verbs vendor IDs in capabilities.json).
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/integrators.h"
#include "testing/status_matchers.h"
#include "unit/report_fixtures.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;
using ::testing::StartsWith;

Report FromFixtures(const std::vector<std::string>& names) {
  std::vector<DeviceRun> runs;
  for (const std::string& name : names) {
    absl::StatusOr<DeviceRun> run = LoadRunDir(fixtures::TestdataDir() + "/" + name);
    EXPECT_TRUE(run.ok()) << run.status();
    if (run.ok()) runs.push_back(*std::move(run));
  }
  return BuildReport(std::move(runs));
}

TEST(IntegratorsTest, ALabRunGivesItsFloorVersionsAndDeviations) {
  std::vector<IntegratorRow> rows = IntegratorRows(FromFixtures({"lab-rxe0", "lab-siw0"}));
  ASSERT_THAT(rows, SizeIs(2));
  const IntegratorRow& rxe = rows[0];
  EXPECT_EQ(rxe.device, "rxe0");
  EXPECT_EQ(rxe.vendor, "oui:0xffffff");  // no PCI IDs recorded: the verbs vendor_id
  EXPECT_EQ(rxe.model, "part:0");
  EXPECT_EQ(rxe.driver, "rxe");
  EXPECT_EQ(rxe.transport, "RoCE");
  EXPECT_EQ(rxe.firmware, "0.0.0");
  EXPECT_EQ(rxe.kernel, "6.1.0-56-amd64");
  EXPECT_EQ(rxe.rdma_core, "44.0-2");
  EXPECT_EQ(rxe.plan_version, "unversioned");
  EXPECT_EQ(rxe.mandatory_passed, 3);  // RunFloor.RcSend, RdmaWrite, RdmaRead
  EXPECT_EQ(rxe.mandatory_total, 3);
  EXPECT_THAT(rxe.floor, StartsWith("added 6 tests"));
  EXPECT_EQ(rxe.tests_passed, 44);
  EXPECT_EQ(rxe.tests_total, 47);
  EXPECT_THAT(rxe.deviation_tests, ElementsAre("SrqTest.CreateReportsActualSize",
                                               "SrqTrafficTest.RejectedPostRecvSetsBadWr",
                                               "SrqTrafficTest.LastWqeReachedOnError"));
  EXPECT_TRUE(rxe.complete);

  const IntegratorRow& siw = rows[1];
  EXPECT_EQ(siw.vendor, "oui:0x626d74");  // "bmt", siw's vendor_id
  EXPECT_EQ(siw.model, "part:1");
  EXPECT_EQ(siw.transport, "iWARP");
  EXPECT_EQ(siw.mandatory_passed, 3);
  EXPECT_EQ(siw.tests_passed, 17);
  EXPECT_EQ(siw.tests_total, 49);
  EXPECT_THAT(siw.deviation_tests, SizeIs(12));
}

TEST(IntegratorsTest, RecordedPciIdsAndPlanVersionWin) {
  DeviceRun run = fixtures::RunOf("mlx5_0", {fixtures::Result("run", "RunFloor.RcSend", TestStatus::kFail, "none ran"),
                                             fixtures::Result("run", "RunFloor.RdmaRead", TestStatus::kPass)});
  run.results.environment["pci_vendor"] = "0x15b3";
  run.results.environment["pci_device"] = "0x1017";
  run.results.environment["plan_version"] = "2026.1";
  run.results.complete = false;
  std::vector<DeviceRun> runs;
  runs.push_back(std::move(run));
  std::vector<IntegratorRow> rows = IntegratorRows(BuildReport(std::move(runs)));
  ASSERT_THAT(rows, SizeIs(1));
  EXPECT_EQ(rows[0].vendor, "pci:0x15b3");
  EXPECT_EQ(rows[0].model, "pci:0x1017");
  EXPECT_EQ(rows[0].plan_version, "2026.1");
  EXPECT_EQ(rows[0].mandatory_passed, 1);
  EXPECT_EQ(rows[0].mandatory_total, 2);
  EXPECT_FALSE(rows[0].complete);
}

TEST(IntegratorsTest, CsvHasTheStableHeaderAndOneQuotedLinePerDevice) {
  const std::string csv = IntegratorsCsv(FromFixtures({"lab-rxe0", "rxe0"}));
  std::vector<std::string> lines = absl::StrSplit(csv, "\r\n", absl::SkipEmpty());
  ASSERT_THAT(lines, SizeIs(3));
  EXPECT_EQ(lines[0],
            "device,vendor,model,driver,transport,firmware,kernel,rdma_core,plan_version,mandatory_passed,"
            "mandatory_total,floor,tests_passed,tests_total,deviations,deviation_tests,complete,started");
  // The floor note holds commas: quoted. The deviations are "; "-separated.
  EXPECT_THAT(lines[1], StartsWith("rxe0 ("));
  EXPECT_THAT(lines[1], HasSubstr(",unversioned,3,3,\"added 6 tests ("));
  EXPECT_THAT(lines[1], HasSubstr(",44,47,3,SrqTest.CreateReportsActualSize; SrqTrafficTest.RejectedPostRecvSetsBadWr; "
                                  "SrqTrafficTest.LastWqeReachedOnError,yes,"));
  // The old fixture run: no floor recorded, no vendor IDs (capabilities.json without them).
  EXPECT_THAT(lines[2], HasSubstr("/rxe0),,,rxe,RoCE,0.0.0,6.1.0-56-amd64,44.0-2,unversioned,0,0,,8,9,1,"
                                  "OpsTest.BindType2MemoryWindow,yes,2025-01-15T10:00:00+00:00"));
}

TEST(IntegratorsTest, MarkdownShowsPassedOverTotalAndListsTheDeviations) {
  const std::string md = IntegratorsMarkdown(FromFixtures({"lab-rxe0"}));
  EXPECT_THAT(md, HasSubstr("| rxe0 | oui:0xffffff | part:0 | rxe | RoCE | 0.0.0 | 6.1.0-56-amd64 | 44.0-2 | "
                            "unversioned | 3/3 | 44/47 | 3 | yes |"));
  EXPECT_THAT(md, HasSubstr("- deviations (3):\n  - `SrqTest.CreateReportsActualSize`\n"));
}

}  // namespace
}  // namespace rdmacheck
