// The table of mutants: the control first, then each family (families.h).
#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {

const std::vector<Mutant>& AllMutants() {
  static const std::vector<Mutant>* all = [] {
    auto* table = new std::vector<Mutant>{
        {.name = "control",
         .what = "nothing: the library is loaded and every verb goes through its wrappers unchanged",
         .suites = "", .filter = "", .devices = "", .survives = "the control: its verdicts must equal a plain run's"},
    };
    for (auto family : {CompletionFieldMutants, DataMutants, CompletionFlowMutants, PostMutants, QueryMutants,
                        AccessMutants, EventMutants, CmMutants, AcceptedFailureMutants,
                        MemoryOpMutants, SendFlagMutants, MulticastMutants, LifetimeMutants}) {
      for (Mutant& m : family()) table->push_back(m);
    }
    return table;
  }();
  return *all;
}

}  // namespace rdmacheck::mutants
