// A walk's action list as a standalone C program against libibverbs: what goes into an
// upstream report, where nobody will build rdmacheck to see the bug.
//
//   absl::StatusOr<std::string> c = CReproducer(min.actions, "siw0", "killed by SEGV in poll");
//   // cc -o repro repro.c -libverbs && ./repro siw0
//
// Each action becomes the verbs call the walk made, with the objects created as the walk's
// executor creates them (the same depths, SGEs, MR sizes, QP attributes of each move), and
// the answer the walk's model allows (walk/model.h) checked: a call answered otherwise is
// printed as the finding, and the program exits 1; a crash kills it as it killed the walk.
// It covers object lifetimes and QP state moves (create, destroy, modify_qp, poll); an
// action of the data path (connect, post_send, post_recv) or an address handle is refused
// with the step that has it: replay those with `rdmacheck walk --replay`.
#ifndef RDMACHECK_WALK_C_REPRODUCER_H_
#define RDMACHECK_WALK_C_REPRODUCER_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "walk/action.h"

namespace rdmacheck::walk {

// `device`: the default device name of the program (its first argument overrides it);
// `finding`: one line for its header comment.
absl::StatusOr<std::string> CReproducer(const std::vector<Action>& actions, const std::string& device,
                                        const std::string& finding);

}  // namespace rdmacheck::walk

#endif  // RDMACHECK_WALK_C_REPRODUCER_H_
