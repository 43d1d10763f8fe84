// The walk's model of one device's verbs objects: which exist, who uses whom, what state
// each QP is in, and what every next call must answer.
//
//   Model model(traits);
//   Prediction p = model.Predict(action);   // before the call
//   ...the executor makes the call...
//   model.Apply(action, outcome);           // after it, with what really happened
//
// Predictions, and where they come from:
//   destroying a PD that an MR, SRQ, QP or AH uses, a CQ that a QP uses, or an SRQ that a
//     QP uses fails with EBUSY and leaves the object (ibv_alloc_pd(3), ibv_create_cq(3),
//     ibv_create_srq(3) NOTES: "fails if ... still associated"; the errno is the kernel's,
//     ib_destroy_usecnt() in drivers/infiniband/core/rdma_core.c); any other destroy succeeds;
//   ibv_modify_qp to a state the QP type lacks or along a move IBTA's table does not list
//     fails with EINVAL and leaves the state (IBTA Vol 1 10.3.1, 11.2.5.2; ibv_modify_qp(3)
//     NOTES: "none of the attributes will be modified"); a listed move with its required
//     attributes succeeds (harness/connection/qp_transitions.h is the table);
//   a valid WR posted to a connected pair in RTS is accepted; one with more SGEs than the
//     queue's max_sge is refused with EINVAL or ENOMEM; one with an lkey no MR has is either
//     refused (EINVAL) or accepted and completes with IBV_WC_LOC_PROT_ERR (a provider may check
//     a WR when it is posted or when it is executed; IBTA names an invalid L_Key a local
//     protection error).
//
// The model follows what really happened (Apply takes the outcome, not the prediction), so
// after a finding it still describes the device and the walk goes on. It never makes a
// verbs call; GenerateDryRun (walk/generator.h) runs it alone.
#ifndef RDMACHECK_WALK_MODEL_H_
#define RDMACHECK_WALK_MODEL_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "walk/action.h"

namespace rdmacheck::walk {

// What the device offers at all: a walk never creates what the device lacks (iWARP has
// neither UD nor address handles).
struct Traits {
  bool ud = true;
  bool ah = true;
  bool srq = true;
  // RC QPs wired by hand (ibv_modify_qp to RTR and RTS with the peer's QPN); iWARP connects
  // only through rdma_cm, so there the walk keeps RC QPs at or below INIT and has no data path.
  bool manual_connect = true;
};
nlohmann::json ToJson(const Traits& t);
Traits TraitsFromJson(const nlohmann::json& j);  // missing fields: true

// The largest message the walk sends: each posted WR owns one slot of this size in its MR.
inline constexpr uint32_t kSlotBytes = 512;
inline constexpr int kSlotsPerMr = 8;
// Queue depths the executor creates; a CQ serves at most kMaxQpsPerCq QPs, so it never
// overflows (kCqDepth >= kMaxQpsPerCq * 2 * kQueueDepth).
inline constexpr int kQueueDepth = 8;
inline constexpr int kMaxQpsPerCq = 3;
inline constexpr int kCqDepth = 64;

enum class Kind { kPd, kCq, kMr, kSrq, kQp, kAh };
const char* KindName(Kind kind);  // "pd", ...
// The kind a create makes (create_cq: kCq); nullopt for an op that creates nothing.
std::optional<Kind> KindCreatedBy(Op op);

struct Object {
  Kind kind = Kind::kPd;
  int id = -1;
  bool alive = true;
  int pd = -1;   // MR, SRQ, QP, AH
  int cq = -1;   // QP (send and receive)
  int srq = -1;  // QP, or -1
  ibv_qp_type type = IBV_QPT_RC;
  ibv_qp_state state = IBV_QPS_RESET;
  int peer = -1;  // a connected RC QP (both in RTS)
};

// What a call must answer.
struct Prediction {
  bool runnable = true;    // false: an object it names is missing; the action is skipped
  std::string skip_reason;
  bool success = true;     // success is an allowed answer
  std::vector<int> errnos; // allowed failures
  std::string rule;        // where the answer comes from, for a finding's line
  bool Allows(int err) const;
  int Canonical() const { return success ? 0 : errnos.front(); }  // the dry run's answer
};

// What the executor observed.
struct Outcome {
  bool skipped = false;
  std::string skip_reason;
  int err = 0;                    // 0: the call succeeded
  std::vector<int> errored_qps;   // QPs the step left in ERR (an error completion, a broken pair)
};

class Model {
 public:
  explicit Model(Traits traits = {}) : traits_(traits) {}

  Prediction Predict(const Action& action) const;
  void Apply(const Action& action, const Outcome& outcome);

  const Traits& traits() const { return traits_; }
  // nullptr for a name never created.
  const Object* Find(int id) const;
  // Alive objects of `kind`, by id.
  std::vector<const Object*> Alive(Kind kind) const;
  // Alive objects that use `id` (its children), by id.
  std::vector<const Object*> UsersOf(int id) const;
  int next_id() const { return next_id_; }

 private:
  const Object* AliveOf(int id, Kind kind) const;
  void Unpair(int qp);

  Traits traits_;
  std::map<int, Object> objects_;
  int next_id_ = 1;
};

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_MODEL_H_
