#include "reports/fleet/rounds.h"

#include <algorithm>
#include <random>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rdmacheck {

std::vector<Round> PairRounds(int n) {
  if (n < 2) return {};
  // The circle method: seat the nodes (plus a "bye" seat when n is odd) around a table of
  // m seats, seat 0 fixed; in each round seat i faces seat m-1-i, then the others rotate
  // one step. Over m-1 rounds every seat faces every other seat exactly once.
  const int m = n % 2 == 0 ? n : n + 1;
  std::vector<int> seats(m);
  for (int i = 0; i < m; ++i) seats[i] = i < n ? i : -1;  // -1: the bye seat
  std::vector<Round> rounds;
  for (int r = 0; r < m - 1; ++r) {
    Round round;
    round.pairs.reserve(m / 2);
    for (int i = 0; i < m / 2; ++i) {
      const int a = seats[i], b = seats[m - 1 - i];
      if (a < 0 || b < 0) {
        round.bye = a < 0 ? b : a;
      } else {
        // Alternate who serves, so no node serves in every round.
        round.pairs.push_back((r + i) % 2 == 0 ? NodePair{a, b} : NodePair{b, a});
      }
    }
    rounds.push_back(std::move(round));
    // Rotate seats 1..m-1 one step: the last moves to seat 1.
    std::rotate(seats.begin() + 1, seats.end() - 1, seats.end());
  }
  return rounds;
}

std::vector<Round> SampledRounds(int n, int max_rounds, uint64_t seed) {
  std::vector<Round> rounds = PairRounds(n);
  if (max_rounds <= 0 || max_rounds >= static_cast<int>(rounds.size())) return rounds;
  // A Fisher-Yates shuffle of its own with mt19937_64 (whose output the standard fixes), so
  // that the schedule does not depend on the standard library's std::shuffle.
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  std::mt19937_64 random(seed);
  for (int i = n - 1; i > 0; --i) std::swap(order[i], order[random() % (i + 1)]);
  rounds.resize(max_rounds);
  for (Round& round : rounds) {
    for (NodePair& p : round.pairs) p = {order[p.first], order[p.second]};
    if (round.bye >= 0) round.bye = order[round.bye];
  }
  return rounds;
}

std::string RoundsText(const std::vector<Round>& rounds, const std::vector<std::string>& nodes) {
  std::string out;
  for (size_t r = 0; r < rounds.size(); ++r) {
    for (const NodePair& p : rounds[r].pairs) absl::StrAppend(&out, r + 1, " ", nodes[p.first], " ", nodes[p.second], "\n");
    if (rounds[r].bye >= 0) absl::StrAppend(&out, r + 1, " - ", nodes[rounds[r].bye], "\n");
  }
  return out;
}

absl::StatusOr<std::vector<std::string>> ParseNodeList(const std::string& text) {
  std::vector<std::string> nodes;
  std::set<std::string> seen;
  for (absl::string_view part : absl::StrSplit(text, absl::ByAnyChar(",\n"), absl::SkipWhitespace())) {
    std::string name(absl::StripAsciiWhitespace(part));
    if (name.find_first_of(" \t") != std::string::npos)
      return absl::InvalidArgumentError(absl::StrCat("node name with a blank: '", name, "'"));
    if (!seen.insert(name).second) return absl::InvalidArgumentError(absl::StrCat("node ", name, " listed twice"));
    nodes.push_back(std::move(name));
  }
  if (nodes.empty()) return absl::InvalidArgumentError("no node names");
  return nodes;
}

}  // namespace rdmacheck
