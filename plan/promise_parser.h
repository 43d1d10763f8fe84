// Reads the promises of rdma-core's man pages (promise.h) from their groff source.
//
// What the parser reads, per page:
//   verbs    the names before " - " in NAME, and every function SYNOPSIS declares
//   returns  in RETURN VALUE, each verb's sentence: 0 on success, NULL, the value of errno,
//            -1, errno set, a negative value (the words are listed in promise.h)
//   errno    every errno name (EINVAL, EOPNOTSUPP, ...) the page states
//   flag     every IBV_* / RDMA_* constant the page lists (IBV_ACCESS_*, IBV_QP_* masks,
//            IBV_SEND_* flags, IBV_WC_* statuses, RDMA_CM_EVENT_* events, ...)
// An errno or flag belongs to the verb last named before it in its section (the page's
// first verb until one is named); only the page's own verbs count as names. NAME, SEE
// ALSO, AUTHORS and EXAMPLES are not read for promises.
//
//   absl::StatusOr<PromiseSet> set = ReadPromiseDir("/usr/share/man/man3");
#ifndef RDMACHECK_PLAN_PROMISE_PARSER_H_
#define RDMACHECK_PLAN_PROMISE_PARSER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "plan/man_source.h"
#include "plan/promise.h"

namespace rdmacheck {

struct PagePromises {
  std::vector<std::string> verbs;  // in the order the page names them
  std::vector<Promise> promises;   // one per (verb, kind, what), at its first line
};

PagePromises ReadPagePromises(const ManPage& page);

// Every ibv_*.3 and rdma_*.3 page (plain or .gz) of `dir`, merged by verb: a promise
// stated on two pages is kept once, at the first page in name order. NotFound when the
// directory cannot be read or holds no such page.
absl::StatusOr<PromiseSet> ReadPromiseDir(const std::string& dir);

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_PROMISE_PARSER_H_
