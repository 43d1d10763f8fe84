// The promises a parser cannot read: behaviours the man pages state in prose, kept by
// hand in plan/prose_promises.json, each with the page and line that states it and the
// words quoted from that line (a unit test holds every quote to its line, so a promise
// cannot drift from the page it cites).
//
//   {"verb": "ibv_destroy_qp", "what": "busy-when-attached-to-multicast",
//    "page": "ibv_create_qp.3", "line": 79, "quote": "fails if the QP is attached to a multicast group",
//    "statement": "ibv_destroy_qp fails while the QP is attached to a multicast group"}
#ifndef RDMACHECK_PLAN_PROSE_H_
#define RDMACHECK_PLAN_PROSE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plan/promise.h"

namespace rdmacheck {

struct ProsePromise {
  Promise promise;    // kind kBehaviour; text = the statement
  std::string quote;  // words of the cited line (without markup)
};

absl::StatusOr<std::vector<ProsePromise>> LoadProsePromises(const std::string& path);

// Adds each prose promise whose verb the set has; returns the ids of those it has not
// (a verb this rdma-core version does not document).
std::vector<std::string> AddProsePromises(const std::vector<ProsePromise>& prose, PromiseSet& set);

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_PROSE_H_
