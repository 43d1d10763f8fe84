// Verbs newer than the oldest rdma-core the project builds against (Debian 12: v44), in one
// place: ABI values the older headers lack, and whether this build has the newer verbs.
//
//   RDMACHECK_HAVE_IBV_WR_FLUSH  1 when <infiniband/verbs.h> has ibv_wr_flush,
//                                IBV_ACCESS_FLUSH_GLOBAL/_PERSISTENT and IBV_WC_FLUSH
//                                (rdma-core 45 and later; set by harness/CMakeLists.txt)
//
// ATOMIC WRITE (IBV_WR_ATOMIC_WRITE, ibv_wr_atomic_write, IBV_QP_EX_WITH_ATOMIC_WRITE) is in
// v44 already, but not the device flag that declares it: its kernel ABI value is here.
#ifndef RDMACHECK_HARNESS_VERBS_EXTENSIONS_H_
#define RDMACHECK_HARNESS_VERBS_EXTENSIONS_H_

#include <infiniband/verbs.h>

#include <cstdint>

#ifndef RDMACHECK_HAVE_IBV_WR_FLUSH
#define RDMACHECK_HAVE_IBV_WR_FLUSH 0
#endif

namespace rdmacheck {

// device_cap_flags_ex bits (rdma/ib_user_verbs.h, enum ib_uverbs_device_cap_flags).
inline constexpr uint64_t kDeviceFlushGlobal = uint64_t{1} << 38;      // IB_UVERBS_DEVICE_FLUSH_GLOBAL
inline constexpr uint64_t kDeviceFlushPersistent = uint64_t{1} << 39;  // IB_UVERBS_DEVICE_FLUSH_PERSISTENT
inline constexpr uint64_t kDeviceAtomicWrite = uint64_t{1} << 40;      // IB_UVERBS_DEVICE_ATOMIC_WRITE

// odp_caps.per_transport_caps bits (enum ibv_odp_transport_cap_bits, rdma-core 45+).
inline constexpr uint32_t kOdpSupportFlush = 1u << 6;        // IBV_ODP_SUPPORT_FLUSH
inline constexpr uint32_t kOdpSupportAtomicWrite = 1u << 7;  // IBV_ODP_SUPPORT_ATOMIC_WRITE

// Why a build without ibv_wr_flush cannot try FLUSH: the skip's evidence.
inline constexpr char kNoIbvWrFlush[] = "rdma-core <45 has no ibv_wr_flush (this build's verbs.h lacks it)";

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_VERBS_EXTENSIONS_H_
