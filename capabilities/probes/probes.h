// The observation probes: each tries one thing (or a few that share a setup) on the device
// and records what happened (probe_runner.h runs each in its own process).
//
//   probes_qp.cc          RC and XRC QP create, MTU 4096, and the real limits a QP create
//                         accepts (inline data, send SGEs)
//   probes_objects.cc     SRQ (+ resize), CQ resize, ibv_create_cq_ex, zero-length MR,
//                         ibv_rereg_mr, ODP, MRs at an iova
//   probes_environment.cc address handles, RLIMIT_MEMLOCK, traffic counters, fork safety
//   probes_connections.cc RC by hand and through rdma_cm, UD/UC loopback, IPv6 GIDs
//   probes_operations.cc  RDMA write/read, immediates, send with invalidate, atomics,
//                         memory windows, ibv_wr_*; every result checked
//   probes_network.cc     multicast (ibv_attach_mcast, rdma_join_multicast), the port's
//                         netdev under our control, GIDs built from IP addresses
//   probes_memory_ops.cc  ATOMIC WRITE and RDMA FLUSH: declared, and accepted by QP and MR
//   (probe_traffic.h holds what the last two share: pairs, checked sends, Judge)
#ifndef RDMACHECK_CAPABILITIES_PROBES_PROBES_H_
#define RDMACHECK_CAPABILITIES_PROBES_PROBES_H_

#include <vector>

#include "absl/status/statusor.h"
#include "capabilities/probes/probe_runner.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

// Every probe, in the order the probe run tries them.
const std::vector<ProbeSpec>& AllProbes();

std::vector<ProbeSpec> QpProbes();
std::vector<ProbeSpec> ObjectProbes();
std::vector<ProbeSpec> EnvironmentProbes();
std::vector<ProbeSpec> ConnectionProbes();
std::vector<ProbeSpec> OperationProbes();
std::vector<ProbeSpec> NetworkProbes();
std::vector<ProbeSpec> MemoryOpProbes();

// What most probes start from. Members are destroyed in reverse order: CQ, then PD.
struct PdAndCq {
  PdPtr pd;
  CqPtr cq;
};
absl::StatusOr<PdAndCq> MakePdAndCq(ibv_context* context);

// An RC QP of ibv_create_qp_ex on `base` (16 WRs, 1 SGE each way) with `send_ops_flags`
// for the ibv_wr_* API; `what` names the flags in the error (EOPNOTSUPP: a refusal).
absl::StatusOr<QpPtr> CreateRcQpEx(ibv_context* context, const PdAndCq& base, uint64_t send_ops_flags,
                                   const char* what);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROBES_PROBES_H_
