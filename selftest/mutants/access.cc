// Mutants of memory rights: the device grants more than it was asked for.
#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {

std::vector<Mutant> AccessMutants() {
  return {
      {.name = "mr_rights_widened",
       .what = "every MR is registered with IBV_ACCESS_REMOTE_READ added to the rights asked for",
       .suites = "access", .filter = "*RemoteMrAccessTest.IsRefusedAndMemoryIsUntouched/*Read*Right*",
       .devices = "", .survives = nullptr,
       .mr_access = [](int access) { return access | IBV_ACCESS_REMOTE_READ; }},
  };
}

}  // namespace rdmacheck::mutants
