// The test plan's numbers (plan/test_ids.h) stay with their tests: across a rebuild (the
// same tests, in any order, from the saved file), across an added test, and a removed
// test's number is never given again. Also the plan's status and coverage of a run.
#include <cstdio>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "plan/coverage.h"
#include "plan/test_ids.h"
#include "plan/test_plan.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;

const std::vector<std::string> kTests = {"PdTest.Alloc", "CqTest.Create", "QpTest.Create"};

TEST(TestIdsTest, FirstAssignmentIsInNameOrder) {
  TestIds ids;
  IdChanges changes = AssignIds(ids, kTests);
  EXPECT_THAT(ids.tests, ElementsAre(Pair("CqTest.Create", 1), Pair("PdTest.Alloc", 2), Pair("QpTest.Create", 3)));
  EXPECT_EQ(changes.added.size(), 3u);
  EXPECT_EQ(ids.version, 1);
  EXPECT_EQ(ShowId(7), "T-0007");
}

TEST(TestIdsTest, StableAcrossARebuild) {
  const std::string path = ::testing::TempDir() + "/ids.json";
  TestIds first;
  AssignIds(first, kTests);
  ASSERT_TRUE(SaveTestIds(path, first).ok());
  absl::StatusOr<TestIds> again = LoadTestIds(path);  // the next build reads the committed file
  ASSERT_TRUE(again.ok()) << again.status();
  std::vector<std::string> reordered = {"QpTest.Create", "PdTest.Alloc", "CqTest.Create"};  // another link order
  EXPECT_TRUE(AssignIds(*again, reordered).empty());
  EXPECT_EQ(again->tests, first.tests);
  EXPECT_EQ(again->version, first.version);
}

TEST(TestIdsTest, AnAddedTestTakesTheNextNumberAndNoOtherMoves) {
  TestIds ids;
  AssignIds(ids, kTests);
  const auto before = ids.tests;
  IdChanges changes = AssignIds(ids, {"PdTest.Alloc", "CqTest.Create", "AaTest.First", "QpTest.Create"});
  EXPECT_THAT(changes.added, ElementsAre(Pair("AaTest.First", 4)));  // first by name, last by number
  for (const auto& [test, number] : before) EXPECT_EQ(ids.tests.at(test), number) << test;
  EXPECT_EQ(ids.version, 2);
}

TEST(TestIdsTest, ARemovedTestsNumberIsNeverReused) {
  const std::string path = ::testing::TempDir() + "/ids_removed.json";
  TestIds ids;
  AssignIds(ids, kTests);
  IdChanges removed = AssignIds(ids, {"CqTest.Create", "QpTest.Create"});
  EXPECT_THAT(removed.retired, ElementsAre(Pair("PdTest.Alloc", 2)));
  ASSERT_TRUE(SaveTestIds(path, ids).ok());
  absl::StatusOr<TestIds> loaded = LoadTestIds(path);
  ASSERT_TRUE(loaded.ok());
  AssignIds(*loaded, {"CqTest.Create", "QpTest.Create", "PdTest.New"});
  EXPECT_EQ(loaded->tests.at("PdTest.New"), 4);
  AssignIds(*loaded, {"CqTest.Create", "QpTest.Create", "PdTest.New", "PdTest.Alloc"});
  EXPECT_EQ(loaded->tests.at("PdTest.Alloc"), 2);  // back with its own number
}

TEST(TestIdsTest, ADuplicatedNumberIsRefused) {
  const std::string path = ::testing::TempDir() + "/ids_dup.json";
  std::ofstream(path) << R"({"version": 1, "next": 3, "tests": {"A.B": 1, "C.D": 1}, "retired": {}})";
  EXPECT_FALSE(LoadTestIds(path).ok());
}

TEST(TestIdsTest, TheChangeLogNamesEachChange) {
  const std::string path = ::testing::TempDir() + "/CHANGELOG.md";
  std::remove(path.c_str());
  ASSERT_TRUE(AppendChangeLog(path, 3, "2026-11-28", {{{"A.New", 9}}, {{"B.Old", 2}}}).ok());
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "\n## Plan version 3 (2026-11-28)\n\n- added T-0009 A.New\n- retired T-0002 B.Old\n");
}

std::vector<TestAbout> SmallCatalogue() {
  return {{"RcSendSizeTest", "SendArrivesIntact", "a SEND arrives", "ibv_post_send(3); IBTA Vol 1 9.4.1", {Cap::kRcQp},
           "/src/suites/datapath/rc_send_test.cc", 5},
          {"PdTest", "Alloc", "ibv_alloc_pd returns a PD", "ibv_alloc_pd(3); IBTA Vol 1 ch. 11", {},
           "/src/suites/pd/pd_test.cc", 9},
          {"AtomicsTest", "Cas", "CAS returns the old value", "IBTA Vol 1 9.4.5", {Cap::kRcQp, Cap::kAtomics},
           "/src/suites/atomics/atomics_test.cc", 12}};
}

TEST(TestPlanTest, FloorAndCoreAreMandatoryOptionalCapabilitiesInformative) {
  TestIds ids;
  AssignIds(ids, {"RcSendSizeTest.SendArrivesIntact", "PdTest.Alloc", "AtomicsTest.Cas"});
  const std::vector<TestAbout> catalogue = SmallCatalogue();
  std::vector<PlannedTest> plan = BuildTestPlan(ids, catalogue, {{"PdTest.Alloc", {"ibv_alloc_pd/returns/NULL"}}});
  ASSERT_EQ(plan.size(), 3u);
  EXPECT_EQ(plan[0].group, "atomics");
  EXPECT_FALSE(plan[0].mandatory);
  EXPECT_EQ(plan[0].status_why, "optional: needs atomics");
  EXPECT_TRUE(plan[1].mandatory);  // datapath: the floor
  EXPECT_EQ(plan[1].status_why, "the floor (runner/run_floor.h)");
  EXPECT_TRUE(plan[2].mandatory);
  std::string md = TestPlanMarkdown(plan, ids.version);
  EXPECT_THAT(md, HasSubstr("### T-0002 PdTest.Alloc (mandatory)"));
  EXPECT_THAT(md, HasSubstr("- Promises checked: ibv_alloc_pd/returns/NULL"));
}

TEST(CoverageTest, UntestableWhenEveryDeclaringTestLacksItsCapability) {
  PromiseSet set;
  set.source = "pages";
  set.by_verb["ibv_alloc_pd"] = {{"ibv_alloc_pd", PromiseKind::kReturns, "NULL", "ibv_alloc_pd.3", 24, ""},
                                 {"ibv_alloc_pd", PromiseKind::kReturns, "0", "ibv_alloc_pd.3", 24, ""}};
  set.by_verb["ibv_post_send"] = {{"ibv_post_send", PromiseKind::kFlag, "IBV_WR_ATOMIC_CMP_AND_SWP", "ibv_post_send.3", 9, ""}};
  Checks checks = {{"PdTest.Alloc", {"ibv_alloc_pd/returns/NULL"}},
                   {"AtomicsTest.Cas", {"ibv_post_send/flag/IBV_WR_ATOMIC_CMP_AND_SWP", "ibv_bogus/returns/0"}}};
  RunEvidence run;
  run.dir = "out/siw0";
  run.skipped_for["AtomicsTest.Cas"] = "atomics";
  run.ran.insert("PdTest.Alloc");
  const std::vector<TestAbout> catalogue = SmallCatalogue();
  Coverage c = MeasureCoverage(set, checks, catalogue, &run);
  EXPECT_EQ(c.promises, 3);
  EXPECT_EQ(c.tested, 1);
  EXPECT_EQ(c.untestable, 1);
  EXPECT_EQ(c.untested, 1);
  EXPECT_THAT(c.unknown, ElementsAre("AtomicsTest.Cas: ibv_bogus/returns/0"));
  EXPECT_EQ(c.verbs[1].promises[0].why, "AtomicsTest.Cas needs atomics");
  EXPECT_EQ(c.citations["IBTA Vol 1 9.4.5"], 1);
  EXPECT_EQ(MeasureCoverage(set, checks, catalogue, nullptr).tested, 2);  // without a run: declared is tested
}

}  // namespace
}  // namespace rdmacheck
