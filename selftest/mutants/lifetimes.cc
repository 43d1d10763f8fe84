// Mutants of object lifetimes: a destroy that says it destroyed and did not. Caught by the
// suites' leak check (runner/leak_check.h: the kernel still counts the object) and by the
// walk's (cli/walk_command.cc), not by any return value.
#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {

std::vector<Mutant> LifetimeMutants() {
  return {
      {.name = "cq_destroy_leaks",
       .what = "ibv_destroy_cq returns 0 and leaves the CQ (it stays in the kernel until the process exits)",
       // The leak check is the verdict that kills it (run_mutants.py: a filter naming it).
       .suites = "cq", .filter = "CqCreateTest.WithoutCompletionChannel:LeakCheck.VerbsObjectsReleased", .devices = "",
       .survives = nullptr,
       .destroy_cq = [](int (*)(ibv_cq*), ibv_cq*) {
         Acted();
         return 0;
       }},
  };
}

}  // namespace rdmacheck::mutants
