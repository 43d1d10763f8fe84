// What a ConnectedPair is made of: QP type, queue sizes, buffers, and how it is wired.
#ifndef RDMACHECK_HARNESS_CONNECTION_PAIR_OPTIONS_H_
#define RDMACHECK_HARNESS_CONNECTION_PAIR_OPTIONS_H_

#include <infiniband/verbs.h>

#include <cstddef>
#include <cstdint>

#include "absl/types/optional.h"
#include "harness/connection/connect_method.h"
#include "harness/connection/qp_attr.h"

namespace rdmacheck {

// Objects an endpoint uses instead of creating its own, so that several pairs share them
// (e.g. one SRQ behind many QPs), or so that a test owns the object it checks (a CQ). They
// must be created on PairContext() of the pair's connect method, outlive the pairs, and
// cannot cross to another process: the active endpoint (local(), always in this process)
// takes them in every mode; the passive one only in loopback (two-host mode refuses them).
struct SharedObjects {
  ibv_pd* pd = nullptr;       // required when any other field is set
  ibv_srq* srq = nullptr;     // receives go here
  ibv_cq* recv_cq = nullptr;  // receive completions go here
  ibv_cq* send_cq = nullptr;  // send completions go here (several QPs' posts on one CQ)
};

struct PairOptions {
  ibv_qp_type qp_type = IBV_QPT_RC;
  // Unset: manual on InfiniBand/RoCE, rdma_cm on iWARP. DeviceTest::CreatePair() fills in
  // what the capability profile observed.
  absl::optional<ConnectMethod> method;
  uint32_t max_send_wr = 16;
  uint32_t max_recv_wr = 16;
  uint32_t max_send_sge = 1;
  uint32_t max_recv_sge = 1;
  uint32_t max_inline_data = 0;
  bool sq_sig_all = false;
  bool use_srq = false;           // receives go to an SRQ of each endpoint
  bool use_comp_channel = false;  // both CQs of an endpoint report to one completion channel
  size_t buffer_size = 4096;      // each endpoint's registered buffer
  int mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  absl::optional<ibv_mtu> path_mtu;  // unset: the port's active MTU (both ports' in two-host mode)
  // Non-zero: the QPs are created with ibv_create_qp_ex / rdma_create_qp_ex with these
  // IBV_QP_EX_WITH_* flags, for the ibv_wr_* API (Endpoint::qp_ex()).
  uint64_t send_ops_flags = 0;
  SharedObjects passive_shared;  // loopback only
  SharedObjects active_shared;   // in two-host mode too
  // Timeouts, retries, RD atomic depth, QKey, QP access flags; port and sgid_index are
  // taken from each endpoint's own selection.
  PathOptions path;

  // Remote atomics need the access right on the MR and on the QP.
  PairOptions& EnableAtomics() {
    mr_access |= IBV_ACCESS_REMOTE_ATOMIC;
    path.access |= IBV_ACCESS_REMOTE_ATOMIC;
    return *this;
  }
};

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_PAIR_OPTIONS_H_
