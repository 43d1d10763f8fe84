// The walk's vocabulary: one Action is one verbs call (or a short fixed sequence of them, for
// `connect`) on objects named by small integers.
//
// Objects are named by the create action that made them (`id`), never by position, so a
// shortened action list (walk/shrink.h) still means the same thing for every action that
// kept its objects; an action whose object was never created is skipped (walk/model.h).
//
//   {"op":"create_qp","id":7,"pd":1,"cq":2,"srq":-1,"type":"RC"}
//   {"op":"destroy","obj":1}          -> ibv_dealloc_pd while QP 7 uses PD 1: EBUSY predicted
//   {"op":"post_send","qp":7,"mr":3,"length":100,"variant":"bad_lkey"}
//
// Pure data: no verbs call is made here. The JSON form is what walk.json records and
// `--replay` reads back.
#ifndef RDMACHECK_WALK_ACTION_H_
#define RDMACHECK_WALK_ACTION_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace rdmacheck::walk {

enum class Op {
  kCreatePd,
  kCreateCq,
  kRegMr,      // pd
  kCreateSrq,  // pd
  kCreateQp,   // pd, cq, srq (-1: none), qp_type
  kCreateAh,   // pd
  kDestroy,    // obj: whichever kind it is
  kModifyQp,   // qp, to
  kConnect,    // qp, peer: both RC in RESET -> RTS, each addressed to the other (loopback)
  kPostSend,   // qp, mr, length, variant
  kPostRecv,   // qp, mr, variant (on the QP's SRQ when it has one)
  kPoll,       // cq
};

// What is wrong with a posted work request on purpose.
enum class Variant {
  kValid,
  kBadLkey,     // the SGE's lkey is not a registered MR's: refused, or a local protection error
  kTooManySge,  // one SGE more than the QP's max_*_sge: refused (EINVAL or ENOMEM)
};

struct Action {
  Op op = Op::kPoll;
  int id = -1;   // creates: the new object's name
  int obj = -1;  // destroy
  int pd = -1;
  int cq = -1;
  int srq = -1;
  int mr = -1;
  int qp = -1;
  int peer = -1;
  ibv_qp_type qp_type = IBV_QPT_RC;
  ibv_qp_state to = IBV_QPS_RESET;
  uint32_t length = 0;
  Variant variant = Variant::kValid;

  bool operator==(const Action& o) const;
  bool operator!=(const Action& o) const { return !(*this == o); }
};

const char* OpName(Op op);  // "create_pd", ...
const char* VariantName(Variant v);
std::string Describe(const Action& a);  // "post_send qp7 mr3 100B bad_lkey"

nlohmann::json ToJson(const Action& a);
absl::StatusOr<Action> ActionFromJson(const nlohmann::json& j);

// How often each kind of action is chosen. Categories, with their defaults:
//   create=3 destroy=2 modify=2 connect=1 send=4 recv=4 poll=3 bad_post=1
// bad_post weighs the two invalid WR variants against kValid (weight 6) inside send/recv.
using Weights = std::map<std::string, int>;
Weights DefaultWeights();
// "create=3,destroy=2": the defaults with these replaced. InvalidArgument for an unknown
// category, a value that is not a non-negative integer, or all weights zero.
absl::StatusOr<Weights> ParseWeights(absl::string_view text);

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_ACTION_H_
