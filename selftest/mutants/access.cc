// Mutants of memory rights: the device grants more than it was asked for.
#include "selftest/mutants/families.h"

namespace rdmacheck::mutants {

std::vector<Mutant> AccessMutants() {
  return {
      {.name = "mr_rights_widened",
       .what = "every MR grants remote read, and remote write where local write is asked for, beyond the "
               "rights asked for",
       .suites = "access",
       .filter = "Connect/RemoteMrAccessTest.IsRefusedAndMemoryIsUntouched/RdmaCm_Read_MissingRight:"
                 "Connect/RemoteMrAccessTest.IsRefusedAndMemoryIsUntouched/RdmaCm_Write_MissingRight",
       .devices = "", .survives = nullptr,
       .mr_access = [](int access) {
         // REMOTE_WRITE without LOCAL_WRITE is refused (ibv_reg_mr(3)): widen only where it is not.
         return access | IBV_ACCESS_REMOTE_READ | ((access & IBV_ACCESS_LOCAL_WRITE) ? IBV_ACCESS_REMOTE_WRITE : 0);
       }},
  };
}

}  // namespace rdmacheck::mutants
