// The interposition: exported libibverbs/librdmacm functions are defined here (the real
// ones found with dlsym(RTLD_NEXT)), and each context opened gets its ops wrapped, because
// the inline verbs (ibv_poll_cq, ibv_post_send, ibv_post_recv, ibv_post_srq_recv,
// ibv_req_notify_cq, ibv_query_device_ex, ibv_create_qp_ex) call through `context->ops` or
// the verbs_context, never through a symbol.
//
// Without an active mutant (no RDMACHECK_MUTANT, or not a suite child) every function
// here is the real one; in processes that never use libibverbs (the `rdma` tool, scripts)
// none of it is ever called.
#include <dlfcn.h>
#include <poll.h>

#include <cerrno>
#include <cstring>
#include <mutex>

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
  for (int i = 0; m->completion && i < got; ++i) m->completion(wc[i]);
  return got;
}

int PostSend(ibv_qp* qp, ibv_send_wr* wr, ibv_send_wr** bad_wr) {
  const Mutant* m = Active();
  for (ibv_send_wr* w = wr; w; w = w->next) RecordSend(qp->qp_num, w);
  int ret = Find(qp->context)->ops.post_send(qp, wr, bad_wr);
  return m->post_send_result ? m->post_send_result(wr, ret, bad_wr) : ret;
}

int PostRecv(ibv_qp* qp, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  const Mutant* m = Active();
  for (ibv_recv_wr* w = wr; w; w = w->next) RecordRecv(qp->qp_num, w);
  int ret = Find(qp->context)->ops.post_recv(qp, wr, bad_wr);
  return m->post_recv_result ? m->post_recv_result(wr, ret, bad_wr) : ret;
}

int PostSrqRecv(ibv_srq* srq, ibv_recv_wr* wr, ibv_recv_wr** bad_wr) {
  const Mutant* m = Active();
  for (ibv_recv_wr* w = wr; w; w = w->next) RecordRecv(0, w);
  int ret = Find(srq->context)->ops.post_srq_recv(srq, wr, bad_wr);
  return m->post_recv_result ? m->post_recv_result(wr, ret, bad_wr) : ret;
}

int ReqNotifyCq(ibv_cq* cq, int solicited_only) {
  const Mutant* m = Active();
  auto real = Find(cq->context)->ops.req_notify_cq;
  return m->req_notify_cq ? m->req_notify_cq(cq, solicited_only, real) : real(cq, solicited_only);
}

int QueryDeviceEx(ibv_context* context, const ibv_query_device_ex_input* input, ibv_device_attr_ex* attr,
                  size_t size) {
  int ret = Find(context)->query_device_ex(context, input, attr, size);
  if (ret == 0 && Active()->device_attr) Active()->device_attr(&attr->orig_attr);
  return ret;
}

void Granted(ibv_qp* qp, ibv_qp_cap* cap) {
  if (qp && Active()->created_qp) Active()->created_qp(cap);
}

ibv_qp* CreateQpEx(ibv_context* context, ibv_qp_init_attr_ex* init) {
  ibv_qp* qp = Find(context)->create_qp_ex(context, init);
  Granted(qp, &init->cap);
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
  if (Active()) rdmacheck::mutants::ForgetCq(cq);
  return real(cq);
}

int ibv_query_device(ibv_context* context, ibv_device_attr* attr) {
  static auto real = Real<int (*)(ibv_context*, ibv_device_attr*)>("ibv_query_device");
  int ret = real(context, attr);
  if (ret == 0 && Active() && Active()->device_attr) Active()->device_attr(attr);
  return ret;
}

int ibv_query_qp(ibv_qp* qp, ibv_qp_attr* attr, int mask, ibv_qp_init_attr* init) {
  static auto real = Real<int (*)(ibv_qp*, ibv_qp_attr*, int, ibv_qp_init_attr*)>("ibv_query_qp");
  int ret = real(qp, attr, mask, init);
  if (ret == 0 && Active() && Active()->query_qp) Active()->query_qp(attr, mask, init);
  return ret;
}

ibv_qp* ibv_create_qp(ibv_pd* pd, ibv_qp_init_attr* init) {
  static auto real = Real<ibv_qp* (*)(ibv_pd*, ibv_qp_init_attr*)>("ibv_create_qp");
  ibv_qp* qp = real(pd, init);
  if (Active()) rdmacheck::mutants::Granted(qp, &init->cap);
  return qp;
}

// verbs.h makes ibv_reg_mr and ibv_reg_mr_iova macros (choosing ibv_reg_mr_iova2 for
// optional access flags): the parenthesized names define the exported functions.
static int MrAccess(int access) {
  return Active() && Active()->mr_access ? Active()->mr_access(access) : access;
}

ibv_mr* (ibv_reg_mr)(ibv_pd* pd, void* addr, size_t length, int access) {
  static auto real = Real<ibv_mr* (*)(ibv_pd*, void*, size_t, int)>("ibv_reg_mr");
  return real(pd, addr, length, MrAccess(access));
}

ibv_mr* (ibv_reg_mr_iova)(ibv_pd* pd, void* addr, size_t length, uint64_t iova, int access) {
  static auto real = Real<ibv_mr* (*)(ibv_pd*, void*, size_t, uint64_t, int)>("ibv_reg_mr_iova");
  return real(pd, addr, length, iova, MrAccess(access));
}

ibv_mr* ibv_reg_mr_iova2(ibv_pd* pd, void* addr, size_t length, uint64_t iova, unsigned access) {
  static auto real = Real<ibv_mr* (*)(ibv_pd*, void*, size_t, uint64_t, unsigned)>("ibv_reg_mr_iova2");
  if (Active() && Active()->mr_iova) iova = Active()->mr_iova(addr, iova);
  return real(pd, addr, length, iova, static_cast<unsigned>(MrAccess(static_cast<int>(access))));
}

int ibv_get_async_event(ibv_context* context, ibv_async_event* event) {
  static auto real = Real<int (*)(ibv_context*, ibv_async_event*)>("ibv_get_async_event");
  static auto ack = Real<void (*)(ibv_async_event*)>("ibv_ack_async_event");
  while (true) {
    int ret = real(context, event);
    if (ret != 0 || !Active() || !Active()->drop_async_event || !Active()->drop_async_event(*event)) return ret;
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
  return real(id, param);
}

int rdma_accept(rdma_cm_id* id, rdma_conn_param* param) {
  static auto real = Real<int (*)(rdma_cm_id*, rdma_conn_param*)>("rdma_accept");
  if (Active() && param) rdmacheck::mutants::RecordSentPrivateData(RDMA_CM_EVENT_ESTABLISHED, param->private_data_len);
  return real(id, param);
}

int rdma_reject(rdma_cm_id* id, const void* private_data, uint8_t length) {
  static auto real = Real<int (*)(rdma_cm_id*, const void*, uint8_t)>("rdma_reject");
  if (Active()) rdmacheck::mutants::RecordSentPrivateData(RDMA_CM_EVENT_REJECTED, private_data ? length : 0);
  return real(id, private_data, length);
}

int rdma_get_cm_event(rdma_event_channel* channel, rdma_cm_event** event) {
  static auto real = Real<int (*)(rdma_event_channel*, rdma_cm_event**)>("rdma_get_cm_event");
  int ret = real(channel, event);
  if (ret == 0 && Active() && Active()->cm_event) Active()->cm_event(*event);
  return ret;
}

}  // extern "C"
