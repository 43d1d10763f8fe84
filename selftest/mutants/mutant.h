// A mutant: a real device made to deviate in exactly one way, to prove that the conformance
// suites can fail (the mutation suite, `ctest -L mutation`; README "Mutation score").
//
// libmutants.so is LD_PRELOADed into `rdmacheck run`; RDMACHECK_MUTANT=<name> picks the
// mutant. It interposes the exported libibverbs/librdmacm entry points and, after
// ibv_open_device, wraps the context's ops (the inline ibv_poll_cq, ibv_post_send, ... call
// through them): interpose.cc. A mutant is a row of the table (mutant_table.cc) with the
// hooks it needs; every hook it leaves null passes the device's answer through unchanged.
//
// Each row names the tests that concern it (suites and a --gtest_filter: the driver,
// run_mutants.py, runs only those) and, for a mutant no conformance test can see,
// `survives`: why not. A mutant the device cannot express (siw has no immediate data, no
// UD, no atomics) lists the devices it applies to.
//
// Every mutant has a probe-visible variant, RDMACHECK_MUTANT=<name>@probe (kProbeVariant):
// it acts in `rdmacheck probe` as well as in the suite children, as a real device would,
// so a deviation the probe meets decides what the tests see (absent, broken, supported).
// The plain <name> acts in the suite children only, behind a probe of the real device.
//
// A hook that changes an answer makes the run count as one the mutant acted in (Acted():
// RDMACHECK_MUTANT_ACTED names a file that gets a line per process it acted in). The
// wrappers see most changes themselves; a hook that changes what they cannot compare
// (memory, a completion held back or dropped) calls Acted().
#ifndef RDMACHECK_SELFTEST_MUTANTS_MUTANT_H_
#define RDMACHECK_SELFTEST_MUTANTS_MUTANT_H_

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cstdint>
#include <vector>

namespace rdmacheck::mutants {

using PollFn = int (*)(ibv_cq*, int, ibv_wc*);
using PostSendFn = int (*)(ibv_qp*, ibv_send_wr*, ibv_send_wr**);
using PostRecvFn = int (*)(ibv_qp*, ibv_recv_wr*, ibv_recv_wr**);
using QueryQpFn = int (*)(ibv_qp*, ibv_qp_attr*, int, ibv_qp_init_attr*);
using McastFn = int (*)(ibv_qp*, const ibv_gid*, uint16_t);

struct Mutant {
  const char* name;
  const char* what;     // one line: the one way the device deviates
  const char* suites;   // --suites of the runs that concern it
  const char* filter;   // --gtest_filter of those runs ("" = the whole suites)
  const char* devices;  // "" = every device; else the devices it applies to ("rxe0")
  const char* survives; // nullptr, or why no conformance test can see it

  // Hooks (null: unchanged). A completion as the device reported it, edited in place.
  void (*completion)(ibv_wc& wc) = nullptr;
  // The whole poll (for completions lost, duplicated, reordered); calls Acted().
  int (*poll)(PollFn real, ibv_cq* cq, int n, ibv_wc* wc) = nullptr;
  // The result of a post: `ret` what the device returned, `*bad_wr` as it set it.
  // A send WR as the caller posted it, edited before the device gets it (the caller's WR is
  // restored when the post returns).
  void (*send_wr)(ibv_send_wr& wr) = nullptr;
  int (*post_send_result)(ibv_send_wr* wr, int ret, ibv_send_wr** bad_wr) = nullptr;
  int (*post_recv_result)(ibv_recv_wr* wr, int ret, ibv_recv_wr** bad_wr) = nullptr;
  int (*req_notify_cq)(ibv_cq* cq, int solicited_only, int (*real)(ibv_cq*, int)) = nullptr;
  int (*resize_cq)(ibv_cq* cq, int cqe, int (*real)(ibv_cq*, int)) = nullptr;  // calls Acted()
  // The result of ibv_modify_qp: `ret` what the device returned.
  int (*modify_qp_result)(ibv_qp* qp, const ibv_qp_attr* attr, int mask, int ret) = nullptr;
  void (*query_qp)(ibv_qp* qp, ibv_qp_attr* attr, int mask, ibv_qp_init_attr* init) = nullptr;
  // The caps create_qp writes back (`granted`), and what the caller asked for.
  void (*created_qp)(ibv_qp* qp, const ibv_qp_cap& requested, ibv_qp_cap* granted) = nullptr;
  void (*device_attr)(ibv_device_attr* attr) = nullptr;
  int (*mr_access)(int access) = nullptr;  // the rights reg_mr is asked for
  // The iova ibv_reg_mr_iova2 registers `addr` at, given the one asked for.
  uint64_t (*mr_iova)(void* addr, uint64_t iova) = nullptr;
  // The 8 bytes of an ATOMIC WRITE (ibv_wr_atomic_write on `qp`, whose wr_id is set), edited in place
  // before the device gets them.
  void (*atomic_write)(ibv_qp_ex* qp, uint8_t* bytes) = nullptr;
  bool (*drop_async_event)(const ibv_async_event& event) = nullptr;
  void (*cm_event)(rdma_cm_event* event) = nullptr;
  // Whole calls, for a refusal turned into a success (each calls Acted() when it does).
  int (*query_qp_call)(QueryQpFn real, ibv_qp* qp, ibv_qp_attr* attr, int mask, ibv_qp_init_attr* init) = nullptr;
  int (*attach_mcast)(McastFn real, ibv_qp* qp, const ibv_gid* gid, uint16_t lid) = nullptr;
  int (*detach_mcast)(McastFn real, ibv_qp* qp, const ibv_gid* gid, uint16_t lid) = nullptr;
  int (*destroy_qp)(int (*real)(ibv_qp*), ibv_qp* qp) = nullptr;
  int (*destroy_cq)(int (*real)(ibv_cq*), ibv_cq* cq) = nullptr;  // calls Acted()
};

// Every mutant (mutant_table.cc), control first.
const std::vector<Mutant>& AllMutants();

// The suffix of a probe-visible variant's name: RDMACHECK_MUTANT=wc_status@probe.
inline constexpr char kProbeVariant[] = "@probe";

// The mutant this process runs (RDMACHECK_MUTANT), or null: none selected, or this is not
// a process it acts in. The suite children (`rdmacheck __child`, or forked by `run`) are
// mutated, and `rdmacheck probe` by a probe-visible variant; the doctor and the counters
// of `run` itself always see the real device.
const Mutant* Active();

// The active mutant changed an answer: noted once per process in RDMACHECK_MUTANT_ACTED
// ("<mutant> probe|tests <pid>"), so the driver tells a mutant that acted from one whose
// deviation never came up.
void Acted();

// What a mutant needs from the work requests posted: the SGEs of each (the first
// kMaxSges), so a data mutant can reach the bytes a completion describes, and for a send
// its opcode and remote range (posted_buffers.cc).
struct Buffer {
  static constexpr int kMaxSges = 4;
  ibv_sge sges[kMaxSges] = {};
  int num_sge = 0;  // of sges[]
  bool found = false;
  ibv_wr_opcode opcode = IBV_WR_SEND;  // a send's
  uint64_t remote_addr = 0;            // an RDMA READ/WRITE's or an atomic's
  uint32_t rkey = 0;

  uint64_t Length() const {
    uint64_t total = 0;
    for (int i = 0; i < num_sge; ++i) total += sges[i].length;
    return total;
  }

  // The address of byte `offset` of the scatter/gather list, or 0 past its end.
  uint64_t At(uint64_t offset) const {
    for (int i = 0; i < num_sge; offset -= sges[i].length, ++i) {
      if (offset < sges[i].length) return sges[i].addr + offset;
    }
    return 0;
  }
};
void RecordRecv(uint32_t qp_num, const ibv_recv_wr* wr);  // qp_num 0: an SRQ
void RecordSend(uint32_t qp_num, const ibv_send_wr* wr);
Buffer TakeRecv(uint32_t qp_num, uint64_t wr_id);
Buffer TakeSend(uint32_t qp_num, uint64_t wr_id);
bool SentWithInvalidate(uint32_t rkey);  // an IBV_WR_SEND_WITH_INV carried this rkey

// The private data length last given to rdma_connect / rdma_accept / rdma_reject, by the
// event that carries it to the peer (CONNECT_REQUEST, ESTABLISHED, REJECTED); -1: none yet.
void RecordSentPrivateData(rdma_cm_event_type arrives_as, int length);
int SentPrivateDataLength(rdma_cm_event_type arrives_as);

// A destroyed CQ's per-CQ state goes (completion_flow.cc): its address may be reused.
void ForgetCq(ibv_cq* cq);

// The memory regions this process registered (registered_memory.cc), so a mutant can
// reach the target of an RDMA READ in a loopback pair: the address in this process of
// `length` bytes at `iova` of the MR with `rkey`, or 0 when they are not all inside one.
void RecordMr(const ibv_mr* mr, uint64_t iova);
void ForgetMr(const ibv_mr* mr);
uint64_t LocalAddress(uint32_t rkey, uint64_t iova, uint64_t length);

// The QPs the caller moved to the error state itself (ibv_modify_qp to IBV_QPS_ERR; moving
// to RESET or destroying forgets it): any other QP in ERR got there by an error
// (qp_errors.cc).
void RecordModify(ibv_qp* qp, const ibv_qp_attr* attr, int mask);
void ForgetQp(ibv_qp* qp);
bool MovedToErrByCaller(ibv_qp* qp);

// Whether this thread is inside librdmacm (rdma_connect, rdma_accept, rdma_get_cm_event:
// where it moves a connection's QP to RTR and RTS), so a mutant can tell a QP wired by hand
// from one rdma_cm wires (interpose.cc).
bool InsideRdmaCm();
struct InRdmaCm {  // the interposer holds one over each of those calls
  InRdmaCm();
  ~InRdmaCm();
};

}  // namespace rdmacheck::mutants

#endif  // RDMACHECK_SELFTEST_MUTANTS_MUTANT_H_
