// reports/fleet/fault_side.h: which side a fleet's failed pairs point at, on synthetic pair
// matrices (the ambiguous cases: two broken nodes, a broken path, a fleet of two).
#include "reports/fleet/fault_side.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::IsEmpty;

// Every pair of `nodes` once, failed when `broken` says so.
std::vector<FleetPair> Pairs(const std::vector<std::string>& nodes,
                             const std::function<bool(const std::string&, const std::string&)>& broken) {
  std::vector<FleetPair> pairs;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (size_t j = i + 1; j < nodes.size(); ++j) {
      FleetPair p;
      p.server = nodes[i];
      p.client = nodes[j];
      p.device = "rxe0";
      if (broken(nodes[i], nodes[j])) p.summary.fail = 3;
      pairs.push_back(p);
    }
  }
  return pairs;
}

auto Call(FaultCall::Side side, std::vector<std::string> nodes) {
  return ::testing::AllOf(Field(&FaultCall::side, side), Field(&FaultCall::nodes, nodes));
}

TEST(FaultSideTest, NoFailedPairNoCall) {
  EXPECT_THAT(WhichSideIsAtFault(Pairs({"a", "b", "c"}, [](auto&, auto&) { return false; })), IsEmpty());
}

// The Slurm lab's case with three nodes: node-b's NIC is broken, its pairs fail with both
// partners, and node-a and node-c, which pass with each other, are not blamed.
TEST(FaultSideTest, ABrokenNodeFailsWithEveryPartner) {
  const std::vector<FaultCall> calls = WhichSideIsAtFault(
      Pairs({"node-a", "node-b", "node-c"}, [](auto& x, auto& y) { return x == "node-b" || y == "node-b"; }));
  ASSERT_THAT(calls, ElementsAre(Call(FaultCall::Side::kNode, {"node-b"})));
  EXPECT_EQ(calls[0].line, "node-b: its pairs fail with 2 of 2 partners (first: node-a <- node-b rxe0; error counters: none moved)");
}

// The evidence: the first failure of the node's failed pairs, and their error counters summed
// (what the operator reads first: retries exceeded, the link down).
TEST(FaultSideTest, TheCallShowsTheFirstFailureAndTheCountersThatMoved) {
  std::vector<FleetPair> pairs =
      Pairs({"node-a", "node-b", "node-c"}, [](auto& x, auto& y) { return x == "node-b" || y == "node-b"; });
  for (FleetPair& p : pairs) {
    if (!p.Failed()) continue;
    p.first_failure = "Connect/RcSendTest.MessagesArriveInPostingOrder/Manual: status IBV_WC_RETRY_EXC_ERR";
    p.error_counters = {{"retry_exceeded_err", 2}, {"link_downed", 1}};
  }
  pairs[2].error_counters.clear();  // node-b <- node-c: nothing counted
  const std::vector<FaultCall> calls = WhichSideIsAtFault(pairs);
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0].line,
            "node-b: its pairs fail with 2 of 2 partners (first: node-a <- node-b rxe0: "
            "Connect/RcSendTest.MessagesArriveInPostingOrder/Manual: status IBV_WC_RETRY_EXC_ERR; error counters: "
            "link_downed 1, retry_exceeded_err 2)");
}

// Two broken nodes: each is found; the healthy nodes that met both (2 of 3 failed) are not.
TEST(FaultSideTest, TwoBrokenNodesAreBothFoundAndNoHealthyOne) {
  auto broken = [](const std::string& n) { return n == "b" || n == "d"; };
  const std::vector<FaultCall> calls = WhichSideIsAtFault(
      Pairs({"a", "b", "c", "d", "e"}, [&](auto& x, auto& y) { return broken(x) || broken(y); }));
  EXPECT_THAT(calls, ElementsAre(Call(FaultCall::Side::kNode, {"b"}), Call(FaultCall::Side::kNode, {"d"})));
}

// One bad link: only the pair a-b fails, each passes with the others: the path.
TEST(FaultSideTest, AFailureConfinedToOnePairIsThePath) {
  const std::vector<FaultCall> calls = WhichSideIsAtFault(
      Pairs({"a", "b", "c", "d"}, [](auto& x, auto& y) { return x == "a" && y == "b"; }));
  ASSERT_THAT(calls, ElementsAre(Call(FaultCall::Side::kPath, {"a", "b"})));
  EXPECT_EQ(calls[0].line,
            "the path between a and b: only their pair fails, each passes with its other partners (first: a <- b rxe0; "
            "error counters: none moved)");
}

// A fleet of two: one failed pair cannot tell a node from its path.
TEST(FaultSideTest, TwoNodesAloneAreUndecided) {
  const std::vector<FaultCall> calls = WhichSideIsAtFault(Pairs({"a", "b"}, [](auto&, auto&) { return true; }));
  ASSERT_THAT(calls, ElementsAre(Call(FaultCall::Side::kUndecided, {"a", "b"})));
  EXPECT_THAT(calls[0].line, ::testing::HasSubstr("pair them with a third node"));
}

// A broken node and a bad path elsewhere: the node first, then the path it does not explain.
TEST(FaultSideTest, ABrokenNodeAndABadPathElsewhere) {
  const std::vector<FaultCall> calls = WhichSideIsAtFault(Pairs({"a", "b", "c", "d", "e"}, [](auto& x, auto& y) {
    return x == "e" || y == "e" || (x == "a" && y == "b");
  }));
  EXPECT_THAT(calls, ElementsAre(Call(FaultCall::Side::kNode, {"e"}), Call(FaultCall::Side::kPath, {"a", "b"})));
}

// Both directions of a pair and both devices are one pair of nodes: a failure in either
// fails it, a run from a node to itself is no pair.
TEST(FaultSideTest, RunsOfOnePairInEitherDirectionAreOnePair) {
  std::vector<FleetPair> pairs = Pairs({"a", "b", "c"}, [](auto&, auto&) { return false; });
  FleetPair back;
  back.server = "c";
  back.client = "a";
  back.summary.fail = 1;
  pairs.push_back(back);
  FleetPair self;
  self.server = self.client = "b";
  self.summary.fail = 1;
  pairs.push_back(self);
  EXPECT_THAT(WhichSideIsAtFault(pairs), ElementsAre(Call(FaultCall::Side::kPath, {"a", "c"})));
}

}  // namespace
}  // namespace rdmacheck
