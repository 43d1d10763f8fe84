// Nothing is left over: after a test's expected completions, its CQs are empty.
//
// A completion delivered twice, or one that no work request asked for, is a device defect
// that a test polling for "the next completion" never sees: it takes what it expects and
// stops. So every CQ the harness polled (completion.h remembers them) is polled once more
// before its endpoint destroys it (LocalEndpoint's destructor), after a short drain window,
// and whatever is still there is reported, naming wr_id, opcode and status.
//
// Legitimate leftovers:
//   - flushes (IBV_WC_WR_FLUSH_ERR) while the QP is in ERR or RESET: IBTA Vol 1 10.3.1 flushes
//     every outstanding WR of a QP in Error; a test that ends there owes no poll for them;
//   - whatever a test leaves on purpose: it says so, with the reason, through
//     Endpoint::AllowLeftoverCompletions("why").
//
// The check runs only where a reporter is installed (the device-test fixture installs one
// that fails the running test); the probe, bench and `rdmacheck serve` install none.
#ifndef RDMACHECK_HARNESS_LEFTOVER_COMPLETIONS_H_
#define RDMACHECK_HARNESS_LEFTOVER_COMPLETIONS_H_

#include <infiniband/verbs.h>

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace rdmacheck {

struct LeftoverCheck {
  absl::Duration window;                           // how long a CQ is drained before it is judged
  std::function<void(const std::string&)> report;  // one call per leftover completion
};
// Installs the check; a check without `report` turns it off (the default).
void SetLeftoverCheck(LeftoverCheck check);
const LeftoverCheck& CurrentLeftoverCheck();

// Whether a harness poll (completion.h) touched `cq` since it was last forgotten. An
// endpoint forgets its CQs when it creates them and once it has checked them (a new CQ may
// get a destroyed one's address).
bool WasPolled(const ibv_cq* cq);
void ForgetPolled(const ibv_cq* cq);
void MarkPolled(const ibv_cq* cq);  // completion.cc calls it on every poll

// One line per completion in `leftovers` that should not be there, naming the CQ (`where`,
// e.g. "the send CQ of QP 0x11"); flushes are accepted when `qp_in_error` (the QP is in ERR
// or RESET). Empty: nothing wrong.
std::vector<std::string> JudgeLeftovers(absl::Span<const ibv_wc> leftovers, bool qp_in_error, absl::string_view where);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_LEFTOVER_COMPLETIONS_H_
