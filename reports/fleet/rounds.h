// The pairwise schedule of a fleet: which nodes test each other, in rounds.
//
// Every node meets every other node once, and no node is in two pairs of one round, so a
// round's pairs run side by side without sharing a NIC (the circle method of round-robin
// tournaments; ClusterKit-style fabric sweeps use the same): n nodes, n even, make n-1
// rounds of n/2 pairs; n odd, n rounds of (n-1)/2 pairs, each node sitting one round out
// (a bye). For large fleets, `max_rounds` keeps K of those rounds: every node still meets
// K peers (K-1 in the round of its bye), chosen through a seeded shuffle of the nodes, so
// a rerun with another seed covers other pairs.
//
//   rdmacheck fleet rounds --nodes=a,b,c,d      1 a d / 1 b c / 2 a c / ... (cli/fleet_command.cc)
#ifndef RDMACHECK_REPORTS_FLEET_ROUNDS_H_
#define RDMACHECK_REPORTS_FLEET_ROUNDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rdmacheck {

// Two nodes (indices into the node list); `first` serves, `second` runs --peer against it.
struct NodePair {
  int first = 0, second = 0;
};

struct Round {
  std::vector<NodePair> pairs;
  int bye = -1;  // the node that sits this round out (odd fleets), -1 if none
};

// The full schedule over nodes 0..n-1: n-1 rounds (n even) or n rounds (n odd); none for
// n < 2.
std::vector<Round> PairRounds(int n);

// `max_rounds` rounds of the schedule over a seeded shuffle of the nodes (all rounds when
// max_rounds <= 0 or not smaller). The same n, max_rounds and seed give the same schedule
// on every machine.
std::vector<Round> SampledRounds(int n, int max_rounds, uint64_t seed);

// The rounds as lines a batch script reads: "ROUND FIRST SECOND" per pair (1-based round,
// node names), and "ROUND - NODE" for a bye.
std::string RoundsText(const std::vector<Round>& rounds, const std::vector<std::string>& nodes);

// "a,b,c" (or one name per line) -> names; errors on an empty name or a duplicate.
absl::StatusOr<std::vector<std::string>> ParseNodeList(const std::string& text);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_FLEET_ROUNDS_H_
