// RAII owners for every verbs and rdma_cm object.
//
// Each owner is a std::unique_ptr whose deleter calls the matching destroy verb, so an
// object is released on every path, failures included. Declare owners in creation order
// (context, PD, CQ, MR, QP, ...): C++ destroys members and locals in reverse order,
// which is the order the verbs require (a QP before its CQ, an MR before its PD).
//
// A destroy that fails (EBUSY: something still uses the object) is reported through
// OnReleaseFailure(); the test base turns it into a test failure, since it means a leak.
// Tests of the destroy verbs themselves call ibv_destroy_* directly and then release()
// the owner.
#ifndef RDMACHECK_HARNESS_VERBS_OWNERS_H_
#define RDMACHECK_HARNESS_VERBS_OWNERS_H_

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <functional>
#include <memory>

namespace rdmacheck {

// Called when a destroy verb fails inside an owner's deleter. `verb` is e.g. "ibv_destroy_qp".
using ReleaseFailureHandler = std::function<void(const char* verb, int err)>;
// Installs `handler` (nullptr: the default, which prints one line to stderr).
void SetReleaseFailureHandler(ReleaseFailureHandler handler);
void OnReleaseFailure(const char* verb, int err);

namespace internal {
// Deleter for destroy verbs that return 0 or an errno (directly or via -1 + errno).
template <typename T, int (*Destroy)(T*)>
struct VerbsDeleter {
  static const char* Name();
  void operator()(T* object) const;
};
}  // namespace internal

#define RDMACHECK_OWNER(Alias, Type, DestroyFn)                                      \
  namespace internal {                                                             \
  template <>                                                                      \
  inline const char* VerbsDeleter<Type, DestroyFn>::Name() { return #DestroyFn; }  \
  }                                                                                \
  using Alias = std::unique_ptr<Type, internal::VerbsDeleter<Type, DestroyFn>>;

namespace internal {
inline int FreeDeviceList(ibv_device** list) { ibv_free_device_list(list); return 0; }
inline int AckAsyncEvent(ibv_async_event* e) { ibv_ack_async_event(e); delete e; return 0; }
inline int DestroyEventChannel(rdma_event_channel* c) { rdma_destroy_event_channel(c); return 0; }
inline int FreeAddrinfo(rdma_addrinfo* a) { rdma_freeaddrinfo(a); return 0; }
// verbs.h defines these two `static inline`; an owner type must not have internal linkage.
inline int DeallocMw(ibv_mw* mw) { return ibv_dealloc_mw(mw); }
inline int CloseXrcd(ibv_xrcd* xrcd) { return ibv_close_xrcd(xrcd); }
}  // namespace internal

RDMACHECK_OWNER(DeviceListPtr, ibv_device*, internal::FreeDeviceList)
RDMACHECK_OWNER(ContextPtr, ibv_context, ibv_close_device)
RDMACHECK_OWNER(PdPtr, ibv_pd, ibv_dealloc_pd)
RDMACHECK_OWNER(CompChannelPtr, ibv_comp_channel, ibv_destroy_comp_channel)
RDMACHECK_OWNER(CqPtr, ibv_cq, ibv_destroy_cq)
RDMACHECK_OWNER(MrPtr, ibv_mr, ibv_dereg_mr)
RDMACHECK_OWNER(MwPtr, ibv_mw, internal::DeallocMw)
RDMACHECK_OWNER(QpPtr, ibv_qp, ibv_destroy_qp)
RDMACHECK_OWNER(SrqPtr, ibv_srq, ibv_destroy_srq)
RDMACHECK_OWNER(AhPtr, ibv_ah, ibv_destroy_ah)
RDMACHECK_OWNER(XrcdPtr, ibv_xrcd, internal::CloseXrcd)
RDMACHECK_OWNER(AsyncEventPtr, ibv_async_event, internal::AckAsyncEvent)
RDMACHECK_OWNER(CmChannelPtr, rdma_event_channel, internal::DestroyEventChannel)
RDMACHECK_OWNER(CmIdPtr, rdma_cm_id, rdma_destroy_id)
RDMACHECK_OWNER(CmEventPtr, rdma_cm_event, rdma_ack_cm_event)
RDMACHECK_OWNER(AddrinfoPtr, rdma_addrinfo, internal::FreeAddrinfo)

#undef RDMACHECK_OWNER

namespace internal {
template <typename T, int (*Destroy)(T*)>
void VerbsDeleter<T, Destroy>::operator()(T* object) const {
  if (object == nullptr) return;
  errno = 0;
  int rc = Destroy(object);
  if (rc != 0) OnReleaseFailure(Name(), rc > 0 ? rc : errno);
}
}  // namespace internal

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_VERBS_OWNERS_H_
