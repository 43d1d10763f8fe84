// How `run --jobs=N` cuts a run into shards (runner/shards.h).
#include "runner/shards.h"

#include <set>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::SizeIs;

std::vector<RegisteredTest> Tests(const std::string& suite, int count, std::string fixture = "") {
  if (fixture.empty()) fixture = suite;
  std::vector<RegisteredTest> tests;
  for (int i = 0; i < count; ++i) {
    const std::string name = "Case" + std::to_string(i);
    tests.push_back({suite, fixture + "." + name, fixture, name});
  }
  return tests;
}

std::vector<RegisteredTest> Join(std::vector<RegisteredTest> a, const std::vector<RegisteredTest>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

bool NoneAlone(const RegisteredTest&) { return false; }

TEST(ShardsTest, OneJobIsOneShardPerSuiteInRunOrder) {
  const auto tests = Join(Tests("pd", 3), Tests("qp_state", 100));
  const std::vector<Shard> shards = PlanShards(tests, 1, NoneAlone);
  ASSERT_THAT(shards, SizeIs(2));
  EXPECT_EQ(shards[0].suite, "pd");
  EXPECT_THAT(shards[0].tests, SizeIs(3));
  EXPECT_EQ(shards[1].suite, "qp_state");
  EXPECT_THAT(shards[1].tests, SizeIs(100));
}

TEST(ShardsTest, EveryTestRunsExactlyOnceWhenSharded) {
  const auto tests = Join(Join(Tests("pd", 5), Tests("qp_state", 479)), Tests("datapath", 165));
  std::multiset<std::string> seen;
  for (const Shard& shard : PlanShards(tests, 4, NoneAlone)) seen.insert(shard.tests.begin(), shard.tests.end());
  EXPECT_EQ(seen.size(), tests.size());
  for (const RegisteredTest& t : tests) EXPECT_EQ(seen.count(t.name), 1u) << t.name;
}

TEST(ShardsTest, LargeSuitesAreCutAndTheLargestShardsComeFirst) {
  const auto tests = Join(Tests("pd", 5), Tests("qp_state", 480));
  const std::vector<Shard> shards = PlanShards(tests, 4, NoneAlone);  // ~12 shards of 40
  ASSERT_GT(shards.size(), 4u);
  EXPECT_EQ(shards.back().suite, "pd");  // the smallest last
  for (size_t i = 1; i < shards.size(); ++i) EXPECT_GE(shards[i - 1].tests.size(), shards[i].tests.size());
  for (const Shard& shard : shards) EXPECT_GE(shard.tests.size(), std::min<size_t>(5, kMinShardTests));
}

TEST(ShardsTest, ShardsHoldConsecutiveTestsOfOneSuite) {
  const std::vector<Shard> shards = PlanShards(Tests("qp_state", 100), 2, NoneAlone);
  std::vector<std::string> again;
  std::vector<Shard> by_index = shards;
  std::sort(by_index.begin(), by_index.end(), [](const Shard& a, const Shard& b) { return a.index < b.index; });
  for (const Shard& shard : by_index) again.insert(again.end(), shard.tests.begin(), shard.tests.end());
  std::vector<std::string> planned;
  for (const RegisteredTest& t : Tests("qp_state", 100)) planned.push_back(t.name);
  EXPECT_EQ(again, planned);
}

TEST(ShardsTest, TestsThatRunAloneComeLastInShardsOfTheirOwn) {
  const auto tests = Join(Tests("pd", 20), Tests("qp_state", 60, "Limit"));
  auto alone = [](const RegisteredTest& t) { return t.name == "pd.Case3" || t.name == "Limit.Case7"; };
  const std::vector<Shard> shards = PlanShards(tests, 3, alone);
  ASSERT_GE(shards.size(), 3u);
  const Shard& last = shards.back();
  const Shard& before = shards[shards.size() - 2];
  EXPECT_TRUE(last.alone);
  EXPECT_TRUE(before.alone);
  EXPECT_THAT(before.tests, ElementsAre("pd.Case3"));
  EXPECT_THAT(last.tests, ElementsAre("Limit.Case7"));
  for (size_t i = 0; i + 2 < shards.size(); ++i) {
    EXPECT_FALSE(shards[i].alone);
    for (const std::string& t : shards[i].tests) EXPECT_FALSE(t == "pd.Case3" || t == "Limit.Case7");
  }
}

TEST(ShardsTest, DefaultJobsIsBetweenOneAndEight) {
  EXPECT_GE(DefaultJobs(), 1);
  EXPECT_LE(DefaultJobs(), 8);
}

}  // namespace
}  // namespace rdmacheck
