// A promise: one thing the man pages of rdma-core say a verb does, in a form a test can
// declare it checks. Its id reads "verb/kind/what":
//
//   ibv_dealloc_pd/returns/errno        RETURN VALUE: "returns ... the value of errno on failure"
//   ibv_reg_mr/flag/IBV_ACCESS_MW_BIND  a constant the verb's page lists (a flag, a mask bit, an enum value)
//   ibv_advise_mr/errno/EOPNOTSUPP      an errno the page names for the verb
//   ibv_destroy_qp/behaviour/busy-when-attached-to-multicast   a behaviour stated in prose
//                                       (plan/prose_promises.json: reviewed, with page and line)
//
// The first three are read from the pages by the parser (promise_parser.h); the fourth
// kind is what a parser cannot read, kept by hand in a small reviewed file (prose.h).
#ifndef RDMACHECK_PLAN_PROMISE_H_
#define RDMACHECK_PLAN_PROMISE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace rdmacheck {

enum class PromiseKind { kReturns, kErrno, kFlag, kBehaviour };

const char* PromiseKindName(PromiseKind kind);  // "returns", "errno", "flag", "behaviour"
std::optional<PromiseKind> PromiseKindFromName(absl::string_view name);

struct Promise {
  std::string verb;  // "ibv_reg_mr"
  PromiseKind kind = PromiseKind::kFlag;
  std::string what;  // "0", "NULL", "errno", "EINVAL", "IBV_ACCESS_MW_BIND", "busy-when-..."
  std::string page;  // "ibv_reg_mr.3": where it is stated
  int line = 0;      // the source line of the page
  std::string text;  // that line's text (a behaviour: the statement, as reviewed)

  std::string Id() const;  // "ibv_reg_mr/flag/IBV_ACCESS_MW_BIND"
};

// What `returns` promises say, one word each (promise_parser.cc reads them).
//   0 "returns 0 on success"        NULL "or NULL if the request fails"
//   errno "the value of errno"      -1 "-1 on error"          sets-errno "errno is set"
//   negative "a negative value"     -errno "negative errno"   none "returns no value"

// Every verb of one rdma-core version with its promises, verbs and promises sorted.
struct PromiseSet {
  std::string source;                           // the man page directory read
  int pages = 0;                                // pages with text (not .so links)
  std::map<std::string, std::string> verb_page;  // verb -> the page that documents it first
  std::map<std::string, std::vector<Promise>> by_verb;

  const Promise* Find(absl::string_view id) const;
  size_t PromiseCount() const;
  size_t CountOf(PromiseKind kind) const;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_PROMISE_H_
