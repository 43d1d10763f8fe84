// Which side is at fault when pairs fail: this node, that node, or the path between them
// ("retry exceeded" names neither). Read from the pair matrix of the rounds alone.
//
// A node's partners are the nodes it ran a pair with, on either side; a pair failed when its
// cross-node run failed or xpassed (FleetPair::Failed). Then, repeatedly, worst first:
//   - node: the node whose pairs fail with the largest share of its partners, more than half
//     and at least two, is at fault (its NIC, port or cable: whatever it touches fails); its
//     pairs are then explained, and the others are judged on the pairs left (a second
//     broken node is still found; a healthy node that met both is not blamed);
//   - path: a failed pair not explained by a node, whose two nodes each pass with another
//     partner and fail with no one else, is the path between them (a link, a switch port,
//     a route);
//   - undecided: any other failed pair, with why: one pair of two nodes cannot tell a node
//     from its path (pair it with a third), or its nodes fail with exactly half their partners.
#ifndef RDMACHECK_REPORTS_FLEET_FAULT_SIDE_H_
#define RDMACHECK_REPORTS_FLEET_FAULT_SIDE_H_

#include <string>
#include <vector>

#include "reports/fleet/fleet_model.h"

namespace rdmacheck {

struct FaultCall {
  enum class Side { kNode, kPath, kUndecided };
  Side side = Side::kUndecided;
  std::vector<std::string> nodes;  // the node; or the pair's two nodes
  int failed_partners = 0;         // node: partners its unexplained pairs failed with
  int partners = 0;                // node: partners judged (those not already at fault)
  // "node-b: its pairs fail with 2 of 2 partners (first: node-a <- node-b rxe0: <the first
  // failed test and its failure>; error counters: retry_exceeded_err 4)": the evidence is the
  // first of the pairs the call explains, and the error counters moved over all of them.
  std::string line;
};

// Worst first: nodes, then paths, then undecided pairs. Empty when no pair failed.
std::vector<FaultCall> WhichSideIsAtFault(const std::vector<FleetPair>& pairs);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_FLEET_FAULT_SIDE_H_
