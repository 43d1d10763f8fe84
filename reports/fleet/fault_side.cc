#include "reports/fleet/fault_side.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {
namespace {

using NodePair = std::pair<std::string, std::string>;  // ordered: first < second

NodePair Ordered(const std::string& a, const std::string& b) { return a < b ? NodePair{a, b} : NodePair{b, a}; }

// Each pair of nodes once: failed when any of its runs (either direction, any device) failed.
std::map<NodePair, bool> PairMatrix(const std::vector<FleetPair>& pairs) {
  std::map<NodePair, bool> matrix;
  for (const FleetPair& p : pairs) {
    if (p.server == p.client) continue;
    bool& failed = matrix[Ordered(p.server, p.client)];
    failed = failed || p.Failed();
  }
  return matrix;
}

// What the failed pairs among `pairs` that `explains` picks show: the first failure, and
// the error counters summed over them. "" when none failed.
template <typename Pred>
std::string Evidence(const std::vector<FleetPair>& pairs, Pred explains) {
  std::string first;
  std::map<std::string, int64_t> counters;
  for (const FleetPair& p : pairs) {
    if (!p.Failed() || !explains(p)) continue;
    if (first.empty()) {
      first = absl::StrCat(p.server, " <- ", p.client, " ", p.device, p.first_failure.empty() ? "" : ": ", p.first_failure);
    }
    for (const auto& [name, n] : p.error_counters) counters[name] += n;
  }
  if (first.empty()) return "";
  std::vector<std::string> moved;
  for (const auto& [name, n] : counters) moved.push_back(absl::StrCat(name, " ", n));
  return absl::StrCat(" (first: ", first, "; error counters: ", moved.empty() ? "none moved" : absl::StrJoin(moved, ", "),
                      ")");
}

}  // namespace

std::vector<FaultCall> WhichSideIsAtFault(const std::vector<FleetPair>& pairs) {
  const std::map<NodePair, bool> matrix = PairMatrix(pairs);
  std::set<std::string> at_fault;
  std::vector<FaultCall> calls;
  // A pair is judged for a node only when its other node is not already at fault.
  auto judged = [&](const NodePair& p) { return !at_fault.count(p.first) && !at_fault.count(p.second); };
  while (true) {
    std::map<std::string, std::pair<int, int>> tally;  // node -> (failed partners, partners)
    for (const auto& [p, failed] : matrix) {
      if (!judged(p)) continue;
      for (const std::string& n : {p.first, p.second}) {
        tally[n].second += 1;
        tally[n].first += failed ? 1 : 0;
      }
    }
    const std::string* worst = nullptr;
    std::pair<int, int> worst_tally;
    for (const auto& [node, t] : tally) {
      if (t.first < 2 || 2 * t.first <= t.second) continue;
      // The largest share first; ties by name (map order).
      if (worst == nullptr || t.first * worst_tally.second > worst_tally.first * t.second) {
        worst = &node;
        worst_tally = t;
      }
    }
    if (worst == nullptr) break;
    FaultCall call;
    call.side = FaultCall::Side::kNode;
    call.nodes = {*worst};
    call.failed_partners = worst_tally.first;
    call.partners = worst_tally.second;
    const std::string node = *worst;
    call.line = absl::StrCat(node, ": its pairs fail with ", worst_tally.first, " of ", worst_tally.second, " partners",
                             Evidence(pairs, [&](const FleetPair& p) {
                               return (p.server == node || p.client == node) && !at_fault.count(p.server == node ? p.client : p.server);
                             }));
    at_fault.insert(*worst);
    calls.push_back(std::move(call));
  }
  // The failed pairs no node explains.
  std::map<std::string, std::pair<int, int>> left;  // node -> (failed, passed) among judged pairs
  for (const auto& [p, failed] : matrix) {
    if (!judged(p)) continue;
    for (const std::string& n : {p.first, p.second}) ++(failed ? left[n].first : left[n].second);
  }
  std::vector<FaultCall> undecided;
  for (const auto& [p, failed] : matrix) {
    if (!failed || !judged(p)) continue;
    FaultCall call;
    call.nodes = {p.first, p.second};
    const auto& a = left[p.first];
    const auto& b = left[p.second];
    if (a.first == 1 && b.first == 1 && a.second > 0 && b.second > 0) {
      call.side = FaultCall::Side::kPath;
      call.line = absl::StrCat("the path between ", p.first, " and ", p.second,
                               ": only their pair fails, each passes with its other partners", Evidence(pairs, [&](const FleetPair& f) {
                                 return Ordered(f.server, f.client) == p;
                               }));
      calls.push_back(std::move(call));
    } else {
      call.line = a.second == 0 && b.second == 0 && a.first == 1 && b.first == 1
                      ? absl::StrCat(p.first, " and ", p.second, ": one pair and no other partner, a node cannot be "
                                                                 "told from its path (pair them with a third node)")
                      : absl::StrCat(p.first, " and ", p.second, ": undecided (", p.first, " fails with ", a.first,
                                     " of ", a.first + a.second, " partners, ", p.second, " with ", b.first, " of ",
                                     b.first + b.second, ")");
      undecided.push_back(std::move(call));
    }
  }
  for (FaultCall& c : undecided) calls.push_back(std::move(c));
  return calls;
}

}  // namespace rdmacheck
