// Nothing is left over: after a test's expected completions, its CQs are empty.
//
// A completion delivered twice, or one that no work request asked for, is a device defect
// that a test polling for "the next completion" never sees: it takes what it expects and
// stops. So every CQ the harness polled (completion.h remembers them) is polled once more
// before its endpoint destroys it (LocalEndpoint's destructor), after a short drain window,
// and whatever is still there is judged, naming wr_id, opcode and status.
//
// The bound. Every work request completes at most once (IBTA Vol 1 10.8.3), so a queue
// can never deliver more completions than work requests were posted to it. The harness
// counts both: the WRs the post verbs accepted, per QP and per SRQ (verbs/post.h, through
// which every post goes), and the completions it polled, per CQ and qp_num (completion.cc).
// For a queue of the endpoint's own QP the leftovers may number at most
//     posted - polled during the test
// where posted counts every accepted WR, signaled or not: an unsignaled WR completes too
// when it fails (and flushes), and a count too high only weakens the check, while one too
// low would fail a correct device. A receive queue on an SRQ is bounded by the SRQ's posts
// (shared with other QPs: a bound all the looser). Leftovers beyond it are a surplus, and
// a surplus is reported always: it proves a defect even in a test that has already failed
// (an xfail's expected failure no longer hides a duplicated completion), and flushes count
// in it like any completion.
//
// Within the bound, or where there is none (a completion of another QP on the endpoint's
// CQ, a QP posted to where no count reaches: verbs/post.h MarkUncounted), a leftover is
// reported only for a test that has not failed (one that failed stopped short of polling
// what it expected: what it left says nothing more), except the legitimate ones:
//   - flushes (IBV_WC_WR_FLUSH_ERR) while the QP is in ERR or RESET: IBTA Vol 1 10.3.1 flushes
//     every outstanding WR of a QP in Error; a test that ends there owes no poll for them;
//   - whatever a test leaves on purpose: it says so, with the reason, through
//     Endpoint::AllowLeftoverCompletions("why") (a surplus is reported all the same).
//
// The check runs only where a reporter is installed (the device-test fixture installs one
// that fails the running test); the probe, bench and `rdmacheck serve` install none.
#ifndef RDMACHECK_HARNESS_LEFTOVER_COMPLETIONS_H_
#define RDMACHECK_HARNESS_LEFTOVER_COMPLETIONS_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace rdmacheck {

struct LeftoverCheck {
  absl::Duration window;  // how long a CQ is drained before it is judged
  // One call per problem. `surplus`: the counts prove it (more completions than posted
  // WRs), whatever else the test did; otherwise a completion the test left behind.
  std::function<void(const std::string& problem, bool surplus)> report;
};
// Installs the check; a check without `report` turns it off (the default).
void SetLeftoverCheck(LeftoverCheck check);
const LeftoverCheck& CurrentLeftoverCheck();

// Whether a harness poll (completion.h) touched `cq` since it was last forgotten, and how
// many completions of QP `qp_num` it took from there. An endpoint forgets its CQs when it
// creates them and once it has checked them (a new CQ may get a destroyed one's address).
bool WasPolled(const ibv_cq* cq);
uint64_t PolledFrom(const ibv_cq* cq, uint32_t qp_num);
void ForgetPolled(const ibv_cq* cq);
// completion.cc calls these on every poll: before it, and with what it returned.
void MarkPolled(const ibv_cq* cq);
void CountPolled(const ibv_cq* cq, absl::Span<const ibv_wc> polled);

// One work queue of the endpoint's QP, as the harness counted it.
struct CountedQueue {
  uint32_t qp_num = 0;
  uint64_t posted = 0;  // WRs the post verbs accepted (on an SRQ: the SRQ's)
  uint64_t polled = 0;  // completions with qp_num the harness polled from this CQ during the test
};

struct LeftoverVerdict {
  std::vector<std::string> surplus;     // more than `counted` allows: reported always
  std::vector<std::string> unexpected;  // reported only for a test that has not failed
};
// Judges the completions `leftovers` found on one CQ (`where`, e.g. "the send CQ of QP 17")
// after a test. When those of `counted`'s QP, with the ones polled before, outnumber the
// posted WRs, one surplus line names each of them. Otherwise, and for completions of other
// QPs, and for all when `counted` is nullopt (no bound known), each leftover is an
// unexpected line, flushes excepted when `qp_in_error` (the QP is in ERR or RESET).
LeftoverVerdict JudgeLeftovers(absl::Span<const ibv_wc> leftovers, const std::optional<CountedQueue>& counted,
                               bool qp_in_error, absl::string_view where);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_LEFTOVER_COMPLETIONS_H_
