// Makes the walk's verbs calls on one device and checks what the model leaves to it: each
// posted WR completes exactly once (or is flushed when its QP enters ERR), with the right
// opcode, length and bytes; the canary bytes around every MR stay untouched; teardown.
//
//   Executor exec(context, selection);
//   Outcome o = exec.Run(action, model, problems);   // model: the state before the action
//   ...
//   exec.Finish(model, problems);                     // ERR, drain, destroy children first
//
// Datapath bookkeeping (walk/ledger.h has the per-WR rules):
//   - a valid SEND carries Pattern::Seeded(wr_id) and is expected, in order, at the peer's
//     next receive completion (RC delivers in order), which is checked byte for byte, and
//     the rest of the receive slot must still hold the canary;
//   - an error completion on a connected pair moves both QPs to ERR (the walk keeps a pair
//     whole) and waits, bounded (LocalEventWait), for every WR of both to be flushed;
//   - moving a QP to RESET discards its WRs without completions (IBTA 10.3.1), destroying a
//     QP leaves its late completions allowed once; receives on an SRQ are not flushed with
//     a QP and go with the SRQ.
// A post the executor cannot place (queue or MR slots full, a pair waiting for its error
// completion) is skipped and recorded as such, never guessed.
#ifndef RDMACHECK_WALK_EXECUTOR_H_
#define RDMACHECK_WALK_EXECUTOR_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "harness/device.h"
#include "harness/verbs/owners.h"
#include "walk/action.h"
#include "walk/fault_injection.h"
#include "walk/ledger.h"
#include "walk/model.h"

namespace rdmacheck::walk {

// Something wrong that is not a call's return value. `signature` leaves out step numbers
// and object names, so the shrinker can tell the same finding in a shorter walk.
struct Problem {
  std::string message;
  std::string signature;
};

struct WalkHandle;  // walk/executor_objects.h
struct WalkBuffer;

// What the device offers (transport, SRQ limits).
Traits TraitsOf(ibv_context* context, const Selection& selection);

class Executor {
 public:
  // fail_allocations: the control verbs (create, destroy, modify_qp) run with the kernel's
  // allocation failures on (walk/fault_injection.h); the data path never does.
  Executor(ibv_context* context, Selection selection, bool fail_allocations = false);
  ~Executor();  // whatever is left, children first

  // Runs `action` (runnable on `model`, which is the state before it).
  Outcome Run(const Action& action, const Model& model, std::vector<Problem>& problems);
  // Every QP to ERR, every WR accounted for, every object destroyed children first.
  void Finish(const Model& model, std::vector<Problem>& problems);

 private:
  int Create(const Action& a);
  int Destroy(const Action& a, const Model& model, Outcome& outcome, std::vector<Problem>& problems,
              bool break_pair = true);
  int Modify(const Action& a, const Model& model, Outcome& outcome, std::vector<Problem>& problems);
  int Connect(const Action& a, Outcome& outcome);
  int PostSend(const Action& a, const Model& model, Outcome& outcome);
  int PostRecv(const Action& a, const Model& model, Outcome& outcome);
  // Polls `cq` empty; error completions of connected pairs break them (into outcome).
  void Poll(int cq, const Model& model, Outcome& outcome, std::vector<Problem>& problems);
  // Checks one completion against the ledger; an error completion marks its QP broken_.
  void HandleCompletion(const ibv_wc& wc, std::vector<Problem>& problems);
  // Breaks the pairs of broken_ QPs (ERR both, drain), until no new error completion shows up.
  void BreakBroken(const Model& model, Outcome& outcome, std::vector<Problem>& problems);
  void FreeSlots(const std::vector<Pending>& gone);
  // Both QPs of a pair (or one QP) to ERR, then wait for their WRs to be flushed.
  void BreakPair(int qp, const Model& model, Outcome& outcome, std::vector<Problem>& problems);
  void Drain(const std::set<int>& qps, absl::Duration timeout, const Model& model, std::vector<Problem>& problems);
  int ModifyTo(int qp, ibv_qp_state to);
  void CheckCanaries(std::vector<Problem>& problems);
  void Forget(int qp);  // its WRs: discarded (RESET) or late completions allowed (destroyed)

  // Runs one control verb under FailingScope, when the walk asked for allocation failures.
  template <typename Call>
  auto Failing(Call call) const {
    FailingScope failing(fail_allocations_);
    return call();
  }

  ibv_context* context_;
  Selection selection_;
  bool fail_allocations_ = false;
  std::map<int, std::unique_ptr<WalkHandle>> objects_;  // by name; names grow with creation
  std::vector<std::unique_ptr<WalkBuffer>> buffers_;     // kept to the end: a late DMA lands in memory we own
  std::map<uint32_t, int> qp_by_num_;
  Ledger ledger_;
  std::set<int> broken_;  // QPs with an error completion whose pair is not broken yet
  uint64_t next_wr_id_ = 1;
  uint32_t connections_ = 0;  // each connection starts its PSNs elsewhere (Connect)
};

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_EXECUTOR_H_
