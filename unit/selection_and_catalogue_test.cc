// Test selection (--suites, --gtest_filter) and catalogue keys.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runner/events.h"
#include "runner/test_selection.h"
#include "testing/catalogue.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::Pair;

TEST(GtestFilterTest, FollowsGoogleTestSyntax) {
  EXPECT_TRUE(MatchesGtestFilter("PdTest.Alloc", "*"));
  EXPECT_TRUE(MatchesGtestFilter("PdTest.Alloc", ""));
  EXPECT_TRUE(MatchesGtestFilter("PdTest.Alloc", "Cq*:Pd*"));
  EXPECT_FALSE(MatchesGtestFilter("PdTest.Alloc", "Pd*-*.Alloc"));
  EXPECT_TRUE(MatchesGtestFilter("PdTest.Alloc", "-Cq*"));
  EXPECT_TRUE(MatchesGtestFilter("Inst/QpTest.Move/3", "*/QpTest.Move/?"));
}

TEST(SelectTestsTest, NarrowsBySuiteAndFilter) {
  std::vector<RegisteredTest> all = {{"pd", "PdTest.A", "PdTest", "A"},
                                     {"pd", "PdTest.B", "PdTest", "B"},
                                     {"cq", "CqTest.A", "CqTest", "A"}};
  ASSERT_OK_AND_ASSIGN(auto pd, SelectTests(all, {"pd"}, "*"));
  EXPECT_THAT(pd, ElementsAre(Field(&RegisteredTest::name, "PdTest.A"), Field(&RegisteredTest::name, "PdTest.B")));
  ASSERT_OK_AND_ASSIGN(auto a, SelectTests(all, {}, "*.A"));
  EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(SuitesOf(all), (std::vector<std::string>{"pd", "cq"}));
}

TEST(SelectTestsTest, UnknownSuiteListsTheKnownOnes) {
  absl::StatusOr<std::vector<RegisteredTest>> r = SelectTests({{"pd", "PdTest.A", "PdTest", "A"}}, {"nosuch"}, "*");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr("unknown suite 'nosuch' (suites: pd)"));
}

TEST(CatalogueTest, KeyStripsInstantiationPrefixAndParameter) {
  EXPECT_THAT(CatalogueKey("Transitions/QpStateTest", "Legal/RC_INIT_RTR"), Pair("QpStateTest", "Legal"));
  EXPECT_THAT(CatalogueKey("PdTest", "AllocAndDealloc"), Pair("PdTest", "AllocAndDealloc"));
}

TEST(CatalogueTest, SuiteIsTheFolderUnderSuites) {
  EXPECT_EQ(SuiteOfFile("/work/main/suites/pd/pd_test.cc"), "pd");
  EXPECT_EQ(SuiteOfFile("suites/datapath/rc_send_test.cc"), "datapath");
  EXPECT_EQ(SuiteOfFile("/elsewhere/x_test.cc"), "other");
}

TEST(EventsTest, RoundTripKeepsFieldsAndSurvivesOddBytes) {
  TestEvent e;
  e.kind = TestEvent::Kind::kEnd;
  e.name = "PdTest.A";
  e.status = TestStatus::kSkip;
  e.message = "requires atomics: \"x\"\n\xff";
  e.capability = "atomics";
  e.duration_ms = 12.5;
  e.start_us = 1000;
  e.end_us = 2000;
  e.traffic = {{"completions", 1}};
  ASSERT_OK_AND_ASSIGN(TestEvent back, DecodeEvent(EncodeEvent(e)));
  EXPECT_EQ(back.kind, TestEvent::Kind::kEnd);
  EXPECT_EQ(back.name, "PdTest.A");
  EXPECT_EQ(back.status, TestStatus::kSkip);
  EXPECT_EQ(back.capability, "atomics");
  EXPECT_DOUBLE_EQ(back.duration_ms, 12.5);
  EXPECT_EQ(back.start_us, 1000);
  EXPECT_EQ(back.end_us, 2000);
  EXPECT_EQ(back.traffic, e.traffic);
  EXPECT_FALSE(DecodeEvent("{\"event\":\"bogus\"}").ok());
  EXPECT_FALSE(DecodeEvent("not json").ok());
}

}  // namespace
}  // namespace rdmacheck
