// The walk's account of posted work requests: which are outstanding, which completed, what
// each QP's next receive must hold, and which completion statuses a WR may end with.
//
// A WR enters at a successful post and leaves at its one completion; a second completion of
// it is a duplicate, one the ledger never saw is unknown. The statuses a WR may complete
// with follow from what happened to its QP since the post:
//   - nothing: IBV_WC_SUCCESS only (a bad-lkey send: IBV_WC_LOC_PROT_ERR only);
//   - its QP was moved to ERR (flushing): also IBV_WC_WR_FLUSH_ERR (IBTA 10.3.1, ERR state);
//   - its pair was broken by an error (doomed) or lost memory under a WR (relaxed), or its
//     own MR was deregistered under it (lost): any status, since what the peer sees then
//     depends on timing (retries, NAKs, flushes).
// Pure bookkeeping: no verbs calls.
#ifndef RDMACHECK_WALK_LEDGER_H_
#define RDMACHECK_WALK_LEDGER_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "walk/action.h"

namespace rdmacheck::walk {

struct Pending {
  uint64_t wr_id = 0;
  int qp = -1;
  bool send = true;
  int srq = -1;  // a receive posted to an SRQ
  int mr = -1;
  int slot = -1;
  uint32_t length = 0;
  Variant variant = Variant::kValid;
  // Posted while its QP may already have been in ERR (an error completion not yet polled,
  // an MR deregistered under a WR): nothing may have flushed it since.
  bool after_fault = false;
};

// A send on its way to a QP's receive queue, in posting order.
struct Message {
  uint64_t wr_id = 0;
  uint32_t length = 0;
  bool checkable = true;  // false: posted with more SGEs than allowed and accepted
};

class Ledger {
 public:
  enum class Match { kPending, kLate, kDuplicate, kUnknown };

  void Posted(const Pending& p) { pending_[p.wr_id] = p; }
  // Takes the WR `wr_id` completes: kPending (into *out), kLate (its QP was destroyed: once),
  // kDuplicate (it completed before), kUnknown.
  Match Complete(uint64_t wr_id, Pending* out);

  // Empty when `status` is one `p` may complete with; else why not.
  std::string CheckStatus(const Pending& p, ibv_wc_status status) const;

  // WRs on `qp`'s own queues (not its SRQ's), and on `srq`.
  std::vector<Pending> OutstandingOn(int qp) const;
  int CountOn(int qp, bool send) const;
  int CountOnSrq(int srq) const;
  std::vector<Pending> OnMr(int mr) const;

  // The QP's own WRs leave the ledger, returned: dropped (RESET) or allowed one late
  // completion (destroyed).
  std::vector<Pending> Discard(int qp, bool late_allowed);
  // The receives of a destroyed SRQ: gone with it, no completion (ibv_destroy_srq(3)).
  std::vector<Pending> DiscardSrq(int srq);
  // A fresh connection: flags and expected messages cleared.
  void Connected(int qp);

  void SetFlushing(int qp) { flushing_.insert(qp); }
  void SetDoomed(int qp) { doomed_.insert(qp); }
  void SetRelaxed(int qp) { relaxed_.insert(qp); }
  // A WR whose MR was deregistered while it was outstanding: it may end in any status, on
  // whichever QP takes it (an SRQ receive outlives the QP it was posted through).
  void SetLost(uint64_t wr_id) { lost_.insert(wr_id); }
  bool SrqHasLost(int srq) const;
  bool doomed(int qp) const { return doomed_.count(qp) > 0; }
  bool relaxed(int qp) const { return relaxed_.count(qp) > 0; }
  bool flushing(int qp) const { return flushing_.count(qp) > 0; }
  std::deque<Message>& incoming(int qp) { return incoming_[qp]; }

 private:
  std::map<uint64_t, Pending> pending_;
  std::set<uint64_t> completed_, late_, lost_;
  std::set<int> flushing_, doomed_, relaxed_;
  std::map<int, std::deque<Message>> incoming_;
};

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_LEDGER_H_
