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
      {.name = "mr_forbidden_rights_accepted",
       .what = "an MR asked for remote write or remote atomic without local write is registered, with local write added",
       .suites = "mr", .filter = "Forbidden/MrForbiddenAccessTest.*", .devices = "", .survives = nullptr,
       .mr_access = [](int access) {
         const bool remote_write = access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
         return remote_write && !(access & IBV_ACCESS_LOCAL_WRITE) ? access | IBV_ACCESS_LOCAL_WRITE : access;
       }},
      // siw deviates this way already (siw.json): on rxe0 only.
      {.name = "mr_iova_ignored",
       .what = "ibv_reg_mr_iova2 registers the MR at its virtual address, whatever iova was asked for",
       .suites = "access", .filter = "Connect/IovaMrTest.*/RdmaCm_Shifted", .devices = "rxe0", .survives = nullptr,
       .mr_iova = [](void* addr, uint64_t) { return reinterpret_cast<uint64_t>(addr); }},
  };
}

}  // namespace rdmacheck::mutants
