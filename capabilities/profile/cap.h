// The capabilities a test can require. Each is decided from evidence (capabilities/verdict/decide.h):
// what the device declares and what happened when the probe tried it.
#ifndef RDMACHECK_CAPABILITIES_PROFILE_CAP_H_
#define RDMACHECK_CAPABILITIES_PROFILE_CAP_H_

#include <optional>
#include "absl/strings/string_view.h"
#include <vector>

namespace rdmacheck {

enum class Cap {
  // QP types and ways to connect them.
  kRcQp,            // create an RC QP
  kManualConnect,   // RC wired by hand (RESET->INIT->RTR->RTS) carries a send
  kRdmaCm,          // RC connected through rdma_cm carries a send
  kUcQp,            // UC QP create + traffic
  kUdQp,            // UD QP create + loopback send
  kXrc,             // XRC domain and XRC QPs
  kAddressHandle,   // address handles (IB and RoCE; iWARP has none)
  // Objects and extended verbs.
  kSrq,
  kSrqResize,
  kCqResize,
  kCqEx,            // ibv_create_cq_ex
  kQpEx,            // ibv_qp_to_qp_ex / ibv_wr_* work-request API
  kMwType1,
  kMwType2,
  kZeroLengthMr,
  kReregMr,
  kOdp,             // on-demand paging: declared (odp_caps ODP_SUPPORT) and an IBV_ACCESS_ON_DEMAND MR registers
  kMrIova,          // ibv_reg_mr_iova2 at an iova other than the buffer's address
  kZeroBasedMr,     // ibv_reg_mr_iova2 at iova 0 (ibv_reg_mr(3): the same as IBV_ACCESS_ZERO_BASED)
  kInlineData,      // a QP accepts max_inline_data > 0 (the real maximum is measured)
  // Operations.
  kRdmaWrite,
  kRdmaRead,
  kWriteWithImm,
  kSendWithImm,
  kSendWithInv,
  kAtomics,         // compare-and-swap and fetch-and-add, results checked
  kAtomicWrite,     // ATOMIC WRITE (ibv_wr_atomic_write): declared (ATOMIC_WRITE) and the QP accepts the opcode
  kFlush,           // RDMA FLUSH (ibv_wr_flush, rdma-core 45+): declared (FLUSH_GLOBAL/_PERSISTENT), QP and MR accept it
  kMultiSgeRead,    // an RDMA READ scatters into more than one local SGE (max_sge_rd > 1; siw: 1)
  kRnrRetry,        // a SEND that finds no receive is NAKed RNR and retried up to rnr_retry (IB/RoCE RC; iWARP has no RNR)
  // Paths and limits.
  kMtu4096,
  kIpv6Gid,
  kMemlock,         // RLIMIT_MEMLOCK large enough for the suites
  kForkSafe,        // fork() leaves the parent's registered memory its own (ibv_fork_init(3))
  // Multicast and the network under the port.
  kMulticast,       // ibv_attach_mcast / ibv_detach_mcast of a UD QP to a multicast GID
  kCmMulticast,     // rdma_join_multicast / rdma_leave_multicast on a UD rdma_cm id
  kLinkEvents,      // the port sits on a netdev this process may take down and up (CAP_NET_ADMIN)
  kIpGids,          // the GID table follows the netdev's IP addresses (RoCE; iWARP's GID is its MAC)
  // Observation of the device itself.
  kTrafficCounters, // the port counts its packets (rdma statistic, sysfs counters): runner/counters.h
  kQpStateQuery,    // ibv_query_qp reports the QP's state (INIT read back after RESET->INIT)
};

// Every Cap, in declaration order.
const std::vector<Cap>& AllCaps();

// Stable snake_case name used in JSON, reports and skip reasons: "atomics", "manual_connect".
const char* CapName(Cap cap);
std::optional<Cap> CapFromName(absl::string_view name);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROFILE_CAP_H_
