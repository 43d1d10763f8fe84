// Posting work requests, counted. Every post of the harness and the suites goes through
// these instead of the verbs (unit/raw_post_lint_test.cc holds suites/, testing/ and
// harness/ to it), so that the end-of-test check (leftover_completions.h) knows how many
// work requests each queue was given: more completions than that is a device defect,
// provable whatever else went wrong in the test.
//
//   ibv_send_wr* bad = nullptr;
//   int rc = PostSend(qp, &wr, &bad);  // not ibv_post_send(qp, &wr, &bad)
//
// Each returns exactly what its verb returns (0, an errno value, or the negative value
// some provider returns instead: a test of the return value sees the same) and leaves
// *bad_wr as the verb set it. What counts as posted: on 0 the whole list; otherwise the
// WRs before *bad_wr, or the whole list when *bad_wr names none of its WRs. A count too
// high only weakens the check; one too low would fail a correct device, so every doubt
// counts a WR in.
//
// Counted per QP (its context and qp_num, as completions name it) and per SRQ, in this
// process only: a post in a forked child or in `rdmacheck serve` is not seen here.
#ifndef RDMACHECK_HARNESS_VERBS_POST_H_
#define RDMACHECK_HARNESS_VERBS_POST_H_

#include <infiniband/verbs.h>

#include <cstdint>

namespace rdmacheck {

int PostSend(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr);         // ibv_post_send
int PostRecv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr);         // ibv_post_recv
int PostSrqRecv(ibv_srq* srq, ibv_recv_wr* wr, ibv_recv_wr** bad_wr);   // ibv_post_srq_recv
// ibv_wr_complete of a batch of `wrs` work requests (ibv_wr_start, `wrs` ibv_wr_<op>
// calls): all of them count, whatever it returns.
int WrComplete(ibv_qp_ex* qp, int wrs);
// ibv_bind_mw (a type 1 window): one bind WR on the send queue; it counts whatever the
// verb returns.
int BindMw(ibv_qp* qp, ibv_mw* mw, ibv_mw_bind* bind);

// Work requests that reached `qp` where no count sees them (a post in a forked child): its
// completions are then judged without a bound.
void MarkUncounted(const ibv_qp* qp);

struct PostCounts {
  uint64_t send = 0;     // WRs accepted on the send queue, signaled or not
  uint64_t recv = 0;     // on the receive queue (not the SRQ's)
  bool counted = true;   // false: MarkUncounted, the counts are no bound
};
PostCounts PostedTo(const ibv_qp* qp);
uint64_t PostedTo(const ibv_srq* srq);
// Forgets the counts: for a new QP or SRQ (a QP number and an address come back).
void ForgetPosts(const ibv_qp* qp);
void ForgetPosts(const ibv_srq* srq);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_VERBS_POST_H_
