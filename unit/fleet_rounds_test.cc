// The pairwise schedule (fleet/rounds.h): every pair of nodes meets exactly once, and no
// node is in two pairs of one round — for every fleet size from 2 to 1024 — and the
// sampled schedule keeps those properties over a seeded subset of rounds.
#include "reports/fleet/rounds.h"

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Checks one schedule over n nodes: the number of distinct pairs it covers, or the first
// rule it breaks — a pair seen twice, a node in two pairs of a round, a bye that also
// plays, a node left out of a round, a node index out of range, a node paired with itself.
// (Plain checks, not an EXPECT per pair: 2..1024 nodes make 180 million of them.)
absl::StatusOr<int> CheckRounds(int n, const std::vector<Round>& rounds) {
  std::vector<char> met(static_cast<size_t>(n) * n, 0);
  std::vector<int> busy_in(n, -1);  // the last round each node was seen in
  int pairs = 0;
  for (int r = 0; r < static_cast<int>(rounds.size()); ++r) {
    auto take = [&](int node) -> absl::Status {
      if (node < 0 || node >= n) return absl::OutOfRangeError(absl::StrCat("round ", r, ": node ", node));
      if (busy_in[node] == r) return absl::AlreadyExistsError(absl::StrCat("round ", r, ": node ", node, " twice"));
      busy_in[node] = r;
      return absl::OkStatus();
    };
    for (const NodePair& p : rounds[r].pairs) {
      if (absl::Status s = take(p.first); !s.ok()) return s;
      if (absl::Status s = take(p.second); !s.ok()) return s;
      const size_t key = static_cast<size_t>(std::min(p.first, p.second)) * n + std::max(p.first, p.second);
      if (met[key]) return absl::AlreadyExistsError(absl::StrCat("pair ", p.first, "-", p.second, " again in round ", r));
      met[key] = true;
      ++pairs;
    }
    if (rounds[r].bye >= 0) {
      if (absl::Status s = take(rounds[r].bye); !s.ok()) return s;
    }
    // No node twice and every one in range: n taken means none left out.
    const int taken = 2 * static_cast<int>(rounds[r].pairs.size()) + (rounds[r].bye >= 0 ? 1 : 0);
    if (taken != n) return absl::NotFoundError(absl::StrCat("round ", r, ": ", n - taken, " nodes left out"));
  }
  return pairs;
}

// Circle method, n = 2..1024: n-1 rounds of n/2 pairs (n even) or n rounds of (n-1)/2
// pairs with one bye (n odd); all n(n-1)/2 pairs, each once.
TEST(FleetRoundsTest, EveryPairOnceAndNoNodeTwiceInARound) {
  for (int n = 2; n <= 1024; ++n) {
    SCOPED_TRACE(::testing::Message() << n << " nodes");
    const std::vector<Round> rounds = PairRounds(n);
    ASSERT_EQ(rounds.size(), static_cast<size_t>(n % 2 == 0 ? n - 1 : n));
    for (const Round& round : rounds) {
      ASSERT_EQ(round.pairs.size(), static_cast<size_t>(n / 2));
      ASSERT_EQ(round.bye >= 0, n % 2 == 1);
    }
    absl::StatusOr<int> pairs = CheckRounds(n, rounds);
    ASSERT_TRUE(pairs.ok()) << pairs.status();
    ASSERT_EQ(*pairs, n * (n - 1) / 2);
  }
}

TEST(FleetRoundsTest, NoScheduleBelowTwoNodes) {
  EXPECT_TRUE(PairRounds(0).empty());
  EXPECT_TRUE(PairRounds(1).empty());
}

// No node serves in every round (the server side alternates).
TEST(FleetRoundsTest, ServingAlternates) {
  const std::vector<Round> rounds = PairRounds(8);
  std::vector<int> served(8, 0);
  for (const Round& round : rounds) {
    for (const NodePair& p : round.pairs) ++served[p.first];
  }
  for (int node = 0; node < 8; ++node) EXPECT_LT(served[node], 7) << "node " << node;
}

// Sampled, 1000 nodes and 10 rounds: still disjoint rounds and distinct pairs, every node
// in every round; the same seed gives the same schedule, another seed another.
TEST(FleetRoundsTest, SampledScheduleKeepsTheRulesAndFollowsTheSeed) {
  const std::vector<Round> rounds = SampledRounds(1000, 10, 7);
  ASSERT_EQ(rounds.size(), 10u);
  EXPECT_EQ(CheckRounds(1000, rounds).value_or(-1), 10 * 500);
  const std::vector<Round> again = SampledRounds(1000, 10, 7), other = SampledRounds(1000, 10, 8);
  auto first_pair = [](const std::vector<Round>& r) { return std::make_pair(r[0].pairs[0].first, r[0].pairs[0].second); };
  EXPECT_EQ(first_pair(rounds), first_pair(again));
  EXPECT_NE(first_pair(rounds), first_pair(other));
  EXPECT_EQ(SampledRounds(6, 0, 1).size(), 5u) << "max_rounds 0: the whole schedule";
  EXPECT_EQ(SampledRounds(6, 99, 1).size(), 5u);
}

TEST(FleetRoundsTest, TextIsOneLinePerPairAndBye) {
  EXPECT_EQ(RoundsText(PairRounds(3), {"a", "b", "c"}), "1 c b\n1 - a\n2 c a\n2 - b\n3 a b\n3 - c\n");
}

TEST(FleetRoundsTest, NodeListsAreCheckedNames) {
  EXPECT_THAT(*ParseNodeList("a, b,c\nd\n"), ElementsAre("a", "b", "c", "d"));
  EXPECT_THAT(ParseNodeList("a,b,a").status().message(), HasSubstr("node a listed twice"));
  EXPECT_THAT(ParseNodeList(" , ").status().message(), HasSubstr("no node names"));
  EXPECT_THAT(ParseNodeList("a b").status().message(), HasSubstr("blank"));
}

}  // namespace
}  // namespace rdmacheck
