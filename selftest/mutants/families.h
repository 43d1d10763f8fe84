// The mutant families, one file each; mutant_table.cc puts them in one table.
#ifndef RDMACHECK_SELFTEST_MUTANTS_FAMILIES_H_
#define RDMACHECK_SELFTEST_MUTANTS_FAMILIES_H_

#include <vector>

#include "selftest/mutants/mutant.h"

namespace rdmacheck::mutants {

std::vector<Mutant> CompletionFieldMutants();  // completion_fields.cc: one ibv_wc field wrong
std::vector<Mutant> DataMutants();             // data.cc: the bytes a completion describes
std::vector<Mutant> CompletionFlowMutants();   // completion_flow.cc: lost, duplicated, reordered
std::vector<Mutant> PostMutants();             // post_errors.cc: errno and bad_wr of a refused post
std::vector<Mutant> QueryMutants();            // queries.cc: QP state, granted caps and CQ depth, device limits
std::vector<Mutant> AccessMutants();           // access.cc: MR rights
std::vector<Mutant> EventMutants();            // events.cc: CQ and async events
std::vector<Mutant> CmMutants();               // cm_events.cc: rdma_cm events and private data
std::vector<Mutant> AcceptedFailureMutants();  // accepted_failures.cc: accepted, then completed in error
std::vector<Mutant> MemoryOpMutants();         // memory_ops.cc: ATOMIC WRITE's bytes and refusals
std::vector<Mutant> SendFlagMutants();         // send_flags.cc: IBV_SEND_SIGNALED, IBV_SEND_SOLICITED ignored
std::vector<Mutant> MulticastMutants();        // multicast.cc: attach, detach and destroy refusals accepted
std::vector<Mutant> LifetimeMutants();         // lifetimes.cc: a destroy that did not destroy

}  // namespace rdmacheck::mutants

#endif  // RDMACHECK_SELFTEST_MUTANTS_FAMILIES_H_
