// The interposition: exported libibverbs/librdmacm functions are defined here (the real
// ones found with dlsym(RTLD_NEXT)), and each context opened gets its ops wrapped, because
// the inline verbs (ibv_poll_cq, ibv_post_send, ibv_post_recv, ibv_post_srq_recv,
// ibv_req_notify_cq, ibv_query_device_ex, ibv_create_qp_ex) call through `context->ops` or
// the verbs_context, never through a symbol.
//
// Each wrapper notes when the hook changed the device's answer (Acted(): the driver counts
// the runs a mutant acted in).
//
// Without an active mutant (no RDMACHECK_MUTANT, or not a suite child) every function
// here is the real one; in processes that never use libibverbs (the `rdma` tool, scripts)
// none of it is ever called.
#include <dlfcn.h>
#include <poll.h>

#include <cerrno>
#include <cstring>
#include <mutex>
#include <type_traits>
#include <vector>

#include "selftest/mutants/mutant.h"

namespace rdmacheck::mutants {
namespace {

template <typename F>
F Real(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// The real ops of each wrapped context (contexts are few: the test's, rdma_cm's).
struct Wrapped {
  ibv_context* context = nullptr;
  ibv_context_ops ops{};
  decltype(verbs_context::query_device_ex) query_device_ex = nullptr;
  decltype(verbs_context::create_qp_ex) create_qp_ex = nullptr;
};
constexpr int kMaxContexts = 64;
Wrapped wrapped[kMaxContexts];
std::mutex wrapped_mutex;

// Runs `change` over `*value` and notes it if the value changed (bytewise: the verbs
// structs are plain data).
template <typename T, typename F>
void Noting(T* value, F change) {
  static_assert(std::is_trivially_copyable_v<T>);
  T before;
  memcpy(&before, value, sizeof(T));
  change(value);
  if (memcmp(&before, value, sizeof(T)) != 0) Acted();
}

const Wrapped* Find(ibv_context* context) {
  for (const Wrapped& w : wrapped) {
    if (w.context == context) return &w;
  }
  return nullptr;
}

int PollCq(ibv_cq* cq, int n, ibv_wc* wc) {
  const Mutant* m = Active();
  PollFn real = Find(cq->context)->ops.poll_cq;
  if (m->poll) return m->poll(real, cq, n, wc);
  int got = real(cq, n, wc);
  for (int i = 0; m->completion && i < got; ++i) Noting(&wc[i], [m](ibv_wc* w) { m->completion(*w); });
  return got;
}

int PostSend(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  const Mutant* m = Active();
  std::vector<ibv_send_wr> posted;
  for (ibv_send_wr* w = wr; w; w = w->next) {
    RecordSend(qp->qp_num, w);
    if (!m->send_wr) continue;
    posted.push_back(*w);
    m->send_wr(*w);
    if (w->send_flags != posted.back().send_flags || w->opcode != posted.back().opcode) Acted();
  }
  const int ret = Find(qp->context)->ops.post_send(qp, wr, bad_wr);
  size_t i = 0;
  for (ibv_send_wr* w = wr; w && i < posted.size(); w = w->next) *w = posted[i++];
  if (!m->post_send_result) return ret;
  ibv_send_wr* const bad_before = *bad_wr;
  const int mutated = m->post_send_result(wr, ret, bad_wr);
  if (mutated != ret || *bad_wr != bad_before) Acted();
  return mutated;
}

int RecvResult(ibv_recv_wr* wr, int ret, ibv_recv_wr** bad_wr) {
  const Mutant* m = Active();
  if (!m->post_recv_result) return ret;
  ibv_recv_wr* const bad_before = *bad_wr;
  const int mutated = m->post_recv_result(wr, ret, bad_wr);
  if (mutated != ret || *bad_wr != bad_before) Acted();
  return mutated;
}

int PostRecv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  for (ibv_recv_wr* w = wr; w; w = w->next) RecordRecv(qp->qp_num, w);
  return RecvResult(wr, Find(qp->context)->ops.post_recv(qp, wr, bad_wr), bad_wr);
}

int PostSrqRecv(ibv_srq* srq, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  for (ibv_recv_wr* w = wr; w; w = w->next) RecordRecv(0, w);
  return RecvResult(wr, Find(srq->context)->ops.post_srq_recv(srq, wr, bad_wr), bad_wr);
}

int ReqNotifyCq(ibv_cq* cq, int solicited_only) {
  const Mutant* m = Active();
  auto real = Find(cq->context)->ops.req_notify_cq;
  return m->req_notify_cq ? m->req_notify_cq(cq, solicited_only, real) : real(cq, solicited_only);
}

int QueryDeviceEx(ibv_context* context, const ibv_query_device_ex_input* input, ibv_device_attr_ex* attr,
                  size_t size) {
  int ret = Find(context)->query_device_ex(context, input, attr, size);
  if (ret == 0 && Active()->device_attr) Noting(&attr->orig_attr, Active()->device_attr);
  return ret;
}

void Granted(ibv_qp* qp, const ibv_qp_cap& requested, ibv_qp_cap* cap) {
  if (qp && Active()->created_qp) Noting(cap, [&](ibv_qp_cap* c) { Active()->created_qp(qp, requested, c); });
}

// ibv_wr_atomic_write is inline: it calls the QP's own wr_atomic_write, which the provider
// sets at create time (one function for all its QPs).
using WrAtomicWriteFn = void (*)(ibv_qp_ex*, uint32_t, uint64_t, const void*);
WrAtomicWriteFn real_wr_atomic_write = nullptr;

void WrAtomicWrite(ibv_qp_ex* qp, uint32_t rkey, uint64_t remote_addr, const void* atomic_wr) {
  uint8_t bytes[8];
  memcpy(bytes, atomic_wr, sizeof(bytes));
  Active()->atomic_write(qp, bytes);
  if (memcmp(bytes, atomic_wr, sizeof(bytes)) != 0) Acted();
  real_wr_atomic_write(qp, rkey, remote_addr, bytes);
}

ibv_qp* CreateQpEx(ibv_context* context, ibv_qp_init_attr_ex* init) {
  const ibv_qp_cap requested = init->cap;
  ibv_qp* qp = Find(context)->create_qp_ex(context, init);
  Granted(qp, requested, &init->cap);
  if (qp && Active()->atomic_write && (init->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
      (init->send_ops_flags & IBV_QP_EX_WITH_ATOMIC_WRITE)) {
    ibv_qp_ex* qpx = ibv_qp_to_qp_ex(qp);
    if (qpx && qpx->wr_atomic_write && qpx->wr_atomic_write != WrAtomicWrite) {
      real_wr_atomic_write = qpx->wr_atomic_write;
      qpx->wr_atomic_write = WrAtomicWrite;
    }
  }
  return qp;
}

void Wrap(ibv_context* context) {
  std::lock_guard<std::mutex> lock(wrapped_mutex);
  Wrapped* slot = nullptr;
  for (Wrapped& w : wrapped) {
    if (!w.context) { slot = &w; break; }
  }
  if (!slot) return;  // more contexts than any test opens: this one stays unmutated
  slot->ops = context->ops;
  context->ops.poll_cq = PollCq;
  context->ops.post_send = PostSend;
  context->ops.post_recv = PostRecv;
  if (context->ops.post_srq_recv) context->ops.post_srq_recv = PostSrqRecv;
  context->ops.req_notify_cq = ReqNotifyCq;
  if (verbs_context* v = verbs_get_ctx_op(context, query_device_ex); v && v->query_device_ex) {
    slot->query_device_ex = v->query_device_ex;
    v->query_device_ex = QueryDeviceEx;
  }
  if (verbs_context* v = verbs_get_ctx_op(context, create_qp_ex); v && v->create_qp_ex) {
    slot->create_qp_ex = v->create_qp_ex;
    v->create_qp_ex = CreateQpEx;
  }
  slot->context = context;  // last: Find() reads without the lock
}

void Unwrap(ibv_context* context) {
  std::lock_guard<std::mutex> lock(wrapped_mutex);
  for (Wrapped& w : wrapped) {
    if (w.context == context) {
      context->ops = w.ops;
      w.context = nullptr;
    }
  }
}

}  // namespace
}  // namespace rdmacheck::mutants

using rdmacheck::mutants::Active;
using rdmacheck::mutants::Real;

extern "C" {

ibv_context* ibv_open_device(ibv_device* device) {
  static auto real = Real<ibv_context* (*)(ibv_device*)>("ibv_open_device");
  ibv_context* context = real(device);
  if (context && Active()) rdmacheck::mutants::Wrap(context);
  return context;
}

int ibv_close_device(ibv_context* context) {
  static auto real = Real<int (*)(ibv_context*)>("ibv_close_device");
  if (Active()) rdmacheck::mutants::Unwrap(context);
  return real(context);
}

int ibv_destroy_cq(ibv_cq* cq) {
  static auto real = Real<int (*)(ibv_cq*)>("ibv_destroy_cq");
  if (!Active()) return real(cq);
  const int ret = Active()->destroy_cq ? Active()->destroy_cq(real, cq) : real(cq);
  if (ret == 0) rdmacheck::mutants::ForgetCq(cq);
  return ret;
}

int ibv_resize_cq(ibv_cq* cq, int cqe) {
  static auto real = Real<int (*)(ibv_cq*, int)>("ibv_resize_cq");
  return Active() && Active()->resize_cq ? Active()->resize_cq(cq, cqe, real) : real(cq, cqe);
}

int ibv_query_device(ibv_context* context, ibv_device_attr* attr) {
  static auto real = Real<int (*)(ibv_context*, ibv_device_attr*)>("ibv_query_device");
  int ret = real(context, attr);
  if (ret == 0 && Active() && Active()->device_attr) rdmacheck::mutants::Noting(attr, Active()->device_attr);
  return ret;
}

int ibv_query_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask, ibv_qp_init_attr* init) {
  static auto real = Real<int (*)(ibv_qp*, ibv_qp_attr*, int, ibv_qp_init_attr*)>("ibv_query_qp");
  int ret = Active() && Active()->query_qp_call ? Active()->query_qp_call(real, qp, attr, mask, init)
                                                : real(qp, attr, mask, init);
  if (ret != 0 || !Active() || !Active()->query_qp) return ret;
  ibv_qp_init_attr unused{};
  ibv_qp_init_attr* const init_or_copy = init ? init : &unused;
  rdmacheck::mutants::Noting(attr, [&](ibv_qp_attr* a) {
    rdmacheck::mutants::Noting(init_or_copy, [&](ibv_qp_init_attr* i) { Active()->query_qp(qp, a, mask, init ? i : nullptr); });
  });
  return ret;
}

// Which QPs the caller itself moved to the error state (a mutant of the state read back
// after an error completion must tell those apart).
int ibv_modify_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask) {
  static auto real = Real<int (*)(ibv_qp*, ibv_qp_attr*, int)>("ibv_modify_qp");
  int ret = real(qp, attr, mask);
  if (ret == 0 && Active()) rdmacheck::mutants::RecordModify(qp, attr, mask);
  if (!Active() || !Active()->modify_qp_result) return ret;
  const int mutated = Active()->modify_qp_result(qp, attr, mask, ret);
  if (mutated != ret) rdmacheck::mutants::Acted();
  return mutated;
}

int ibv_destroy_qp(ibv_qp* qp) {
  static auto real = Real<int (*)(ibv_qp*)>("ibv_destroy_qp");
  if (!Active()) return real(qp);
  const int ret = Active()->destroy_qp ? Active()->destroy_qp(real, qp) : real(qp);
  if (ret == 0) rdmacheck::mutants::ForgetQp(qp);
  return ret;
}

int ibv_attach_mcast(ibv_qp* qp, const ibv_gid* gid, uint16_t lid) {
  static auto real = Real<int (*)(ibv_qp*, const ibv_gid*, uint16_t)>("ibv_attach_mcast");
  return Active() && Active()->attach_mcast ? Active()->attach_mcast(real, qp, gid, lid) : real(qp, gid, lid);
}

int ibv_detach_mcast(ibv_qp* qp, const ibv_gid* gid, uint16_t lid) {
  static auto real = Real<int (*)(ibv_qp*, const ibv_gid*, uint16_t)>("ibv_detach_mcast");
  return Active() && Active()->detach_mcast ? Active()->detach_mcast(real, qp, gid, lid) : real(qp, gid, lid);
}

ibv_qp* ibv_create_qp(ibv_pd* pd, ibv_qp_init_attr* init) {
  static auto real = Real<ibv_qp* (*)(ibv_pd*, ibv_qp_init_attr*)>("ibv_create_qp");
  const ibv_qp_cap requested = init->cap;
  ibv_qp* qp = real(pd, init);
  if (Active()) rdmacheck::mutants::Granted(qp, requested, &init->cap);
  return qp;
}

// verbs.h makes ibv_reg_mr and ibv_reg_mr_iova macros (choosing ibv_reg_mr_iova2 for
// optional access flags): the parenthesized names define the exported functions. Each MR
// is remembered (registered_memory.cc) for the mutants that reach a READ's target.
static int MrAccess(int access) {
  if (!Active() || !Active()->mr_access) return access;
  const int mutated = Active()->mr_access(access);
  if (mutated != access) rdmacheck::mutants::Acted();
  return mutated;
}

static ibv_mr* Registered(ibv_mr* mr, uint64_t iova) {
  if (mr && Active()) rdmacheck::mutants::RecordMr(mr, iova);
  return mr;
}

ibv_mr* (ibv_reg_mr)(ibv_pd* pd, void* addr, size_t length, int access) {
  static auto real = Real<ibv_mr* (*)(ibv_pd*, void*, size_t, int)>("ibv_reg_mr");
  return Registered(real(pd, addr, length, MrAccess(access)), reinterpret_cast<uintptr_t>(addr));
}

ibv_mr* (ibv_reg_mr_iova)(ibv_pd* pd, void* addr, size_t length, uint64_t iova, int access) {
  static auto real = Real<ibv_mr* (*)(ibv_pd*, void*, size_t, uint64_t, int)>("ibv_reg_mr_iova");
  return Registered(real(pd, addr, length, iova, MrAccess(access)), iova);
}

ibv_mr* ibv_reg_mr_iova2(ibv_pd* pd, void* addr, size_t length, uint64_t iova, unsigned access) {
  static auto real = Real<ibv_mr* (*)(ibv_pd*, void*, size_t, uint64_t, unsigned)>("ibv_reg_mr_iova2");
  if (Active() && Active()->mr_iova) {
    const uint64_t asked = iova;
    iova = Active()->mr_iova(addr, iova);
    if (iova != asked) rdmacheck::mutants::Acted();
  }
  return Registered(real(pd, addr, length, iova, static_cast<unsigned>(MrAccess(static_cast<int>(access)))), iova);
}

int ibv_dereg_mr(ibv_mr* mr) {
  static auto real = Real<int (*)(ibv_mr*)>("ibv_dereg_mr");
  if (Active()) rdmacheck::mutants::ForgetMr(mr);
  return real(mr);
}

int ibv_get_async_event(ibv_context* context, ibv_async_event* event) {
  static auto real = Real<int (*)(ibv_context*, ibv_async_event*)>("ibv_get_async_event");
  static auto ack = Real<void (*)(ibv_async_event*)>("ibv_ack_async_event");
  while (true) {
    int ret = real(context, event);
    if (ret != 0 || !Active() || !Active()->drop_async_event || !Active()->drop_async_event(*event)) return ret;
    rdmacheck::mutants::Acted();
    ack(event);
    // Lost: the caller waited for the fd to be readable and now expects an event. Give it
    // the next one if it comes within 2 s, else a failure, rather than blocking forever.
    pollfd p{context->async_fd, POLLIN, 0};
    if (poll(&p, 1, 2000) != 1) {
      errno = EAGAIN;
      return -1;
    }
  }
}

// What each side sends, for a mutant that cuts the data the peer receives.
int rdma_connect(rdma_cm_id* id, rdma_conn_param* param) {
  static auto real = Real<int (*)(rdma_cm_id*, rdma_conn_param*)>("rdma_connect");
  if (Active() && param) rdmacheck::mutants::RecordSentPrivateData(RDMA_CM_EVENT_CONNECT_REQUEST, param->private_data_len);
  rdmacheck::mutants::InRdmaCm inside;
  return real(id, param);
}

int rdma_accept(rdma_cm_id* id, rdma_conn_param* param) {
  static auto real = Real<int (*)(rdma_cm_id*, rdma_conn_param*)>("rdma_accept");
  if (Active() && param) rdmacheck::mutants::RecordSentPrivateData(RDMA_CM_EVENT_ESTABLISHED, param->private_data_len);
  rdmacheck::mutants::InRdmaCm inside;
  return real(id, param);
}

int rdma_reject(rdma_cm_id* id, const void* private_data, uint8_t length) {
  static auto real = Real<int (*)(rdma_cm_id*, const void*, uint8_t)>("rdma_reject");
  if (Active()) rdmacheck::mutants::RecordSentPrivateData(RDMA_CM_EVENT_REJECTED, private_data ? length : 0);
  return real(id, private_data, length);
}

int rdma_get_cm_event(rdma_event_channel* channel, rdma_cm_event** event) {
  static auto real = Real<int (*)(rdma_event_channel*, rdma_cm_event**)>("rdma_get_cm_event");
  int ret;
  {
    rdmacheck::mutants::InRdmaCm inside;  // the active side's RTR and RTS happen here (the connect response)
    ret = real(channel, event);
  }
  if (ret == 0 && Active() && Active()->cm_event) rdmacheck::mutants::Noting(*event, Active()->cm_event);
  return ret;
}

}  // extern "C"
