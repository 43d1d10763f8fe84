#include "walk/c_reproducer.h"

#include <infiniband/verbs.h>

#include <cerrno>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "harness/connection/qp_attr.h"
#include "harness/connection/qp_transitions.h"
#include "harness/status.h"
#include "walk/executor_objects.h"
#include "walk/model.h"

namespace rdmacheck::walk {
namespace {

// The C name of an object: "cq12".
std::string Var(const Model& model, int id) {
  const Object* o = model.Find(id);
  return absl::StrCat(o != nullptr ? KindName(o->kind) : "obj", id);
}

// "(rc == EBUSY)", "(rc == 0 || rc == EINVAL)": the answers the model allows, as C.
std::string AllowedC(const Prediction& p) {
  std::vector<std::string> terms;
  if (p.success) terms.push_back("rc == 0");
  for (int err : p.errnos) terms.push_back(absl::StrCat("rc == ", ErrnoName(err)));
  return absl::StrCat("(", absl::StrJoin(terms, " || "), ")");
}

std::string AllowedText(const Prediction& p) {
  std::vector<std::string> answers;
  if (p.success) answers.push_back("success");
  for (int err : p.errnos) answers.push_back(ErrnoName(err));
  return absl::StrJoin(answers, " or ");
}

// The attributes of a move as the executor passes them (Executor::Modify): the table's
// required attributes with the walk's values; the address is the QP's own (an unconnected
// RC QP is addressed to itself), filled in at run time from port 1's GID 0.
std::string ModifyC(const std::string& qp, ibv_qp_type type, ibv_qp_state from, ibv_qp_state to) {
  AttrValues values;
  values.type = type;
  values.path.port = 1;
  values.path.sgid_index = 0;
  const QpAttr attr = TransitionAttr(from, to, values);
  const ibv_qp_attr& a = attr.attr();
  const int mask = attr.mask();
  std::string c = absl::StrCat("    struct ibv_qp_attr attr = {0};\n    attr.qp_state = ", static_cast<int>(a.qp_state),
                               ";  /* ", QpStateName(to), " */\n");
  const std::pair<int, std::string> fields[] = {
      {IBV_QP_CUR_STATE, absl::StrCat("attr.cur_qp_state = ", static_cast<int>(a.cur_qp_state), ";")},
      {IBV_QP_PKEY_INDEX, absl::StrCat("attr.pkey_index = ", a.pkey_index, ";")},
      {IBV_QP_PORT, absl::StrCat("attr.port_num = ", static_cast<int>(a.port_num), ";")},
      {IBV_QP_QKEY, absl::StrCat("attr.qkey = ", a.qkey, ";")},
      {IBV_QP_ACCESS_FLAGS, absl::StrCat("attr.qp_access_flags = ", a.qp_access_flags, ";")},
      {IBV_QP_AV, "attr.ah_attr = own_address(ctx);"},
      {IBV_QP_PATH_MTU, absl::StrCat("attr.path_mtu = ", static_cast<int>(a.path_mtu), ";")},
      {IBV_QP_DEST_QPN, absl::StrCat("attr.dest_qp_num = ", qp, "->qp_num;")},
      {IBV_QP_RQ_PSN, absl::StrCat("attr.rq_psn = ", a.rq_psn, ";")},
      {IBV_QP_MAX_DEST_RD_ATOMIC, absl::StrCat("attr.max_dest_rd_atomic = ", static_cast<int>(a.max_dest_rd_atomic), ";")},
      {IBV_QP_MIN_RNR_TIMER, absl::StrCat("attr.min_rnr_timer = ", static_cast<int>(a.min_rnr_timer), ";")},
      {IBV_QP_SQ_PSN, absl::StrCat("attr.sq_psn = ", a.sq_psn, ";")},
      {IBV_QP_TIMEOUT, absl::StrCat("attr.timeout = ", static_cast<int>(a.timeout), ";")},
      {IBV_QP_RETRY_CNT, absl::StrCat("attr.retry_cnt = ", static_cast<int>(a.retry_cnt), ";")},
      {IBV_QP_RNR_RETRY, absl::StrCat("attr.rnr_retry = ", static_cast<int>(a.rnr_retry), ";")},
      {IBV_QP_MAX_QP_RD_ATOMIC, absl::StrCat("attr.max_rd_atomic = ", static_cast<int>(a.max_rd_atomic), ";")},
  };
  for (const auto& [bit, line] : fields) {
    if (mask & bit) absl::StrAppend(&c, "    ", line, "\n");
  }
  absl::StrAppend(&c, "    int rc = ibv_modify_qp(", qp, ", &attr, 0x", absl::Hex(mask), ");\n");
  return c;
}

constexpr char kPrologue[] = R"(#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int findings;

/* A call answered otherwise than the walk's model allows. */
static void check(int step, const char* call, int rc, int allowed, const char* want) {
  printf("step %d: %s = %d (%s)%s\n", step, call, rc, rc ? strerror(rc) : "success", allowed ? "" : "  <-- FINDING");
  if (!allowed) {
    printf("    the walk's model allows: %s\n", want);
    ++findings;
  }
  fflush(stdout);
}

/* The QP's own address: port 1, GID 0 (an unconnected RC QP is addressed to itself). */
static struct ibv_ah_attr own_address(struct ibv_context* ctx) {
  struct ibv_ah_attr ah = {0};
  struct ibv_port_attr port;
  union ibv_gid gid;
  memset(&port, 0, sizeof port);
  ibv_query_port(ctx, 1, &port);
  ibv_query_gid(ctx, 1, 0, &gid);
  ah.port_num = 1;
  ah.dlid = port.lid;
  ah.is_global = 1;
  ah.grh.dgid = gid;
  ah.grh.sgid_index = 0;
  ah.grh.hop_limit = 64;
  return ah;
}

int main(int argc, char** argv) {
)";

}  // namespace

absl::StatusOr<std::string> CReproducer(const std::vector<Action>& actions, const std::string& device,
                                        const std::string& finding) {
  Model model;
  std::string body;
  int step = 0;
  for (const Action& a : actions) {
    ++step;
    const Prediction p = model.Predict(a);
    if (!p.runnable) continue;  // the walk skipped it too
    Outcome outcome;
    std::string c;
    const std::string what = absl::StrCat("/* step ", step, ": ", Describe(a), " */\n");
    switch (a.op) {
      case Op::kCreatePd:
        c = absl::StrCat("  struct ibv_pd* pd", a.id, " = ibv_alloc_pd(ctx);\n");
        break;
      case Op::kCreateCq:
        c = absl::StrCat("  struct ibv_cq* cq", a.id, " = ibv_create_cq(ctx, ", kCqDepth, ", NULL, NULL, 0);\n");
        break;
      case Op::kRegMr:
        c = absl::StrCat("  struct ibv_mr* mr", a.id, " = ibv_reg_mr(pd", a.pd, ", calloc(1, ", kSlotsPerMr * kSlotBytes,
                         "), ", kSlotsPerMr * kSlotBytes, ", IBV_ACCESS_LOCAL_WRITE);\n");
        break;
      case Op::kCreateSrq:
        c = absl::StrCat("  struct ibv_srq_init_attr srq_attr", a.id, " = {.attr = {.max_wr = ", kSrqDepth,
                         ", .max_sge = ", kMaxSge, "}};\n  struct ibv_srq* srq", a.id, " = ibv_create_srq(pd", a.pd,
                         ", &srq_attr", a.id, ");\n");
        break;
      case Op::kCreateQp: {
        const bool srq = a.srq >= 0;
        c = absl::StrCat("  struct ibv_qp_init_attr qp_attr", a.id, " = {.send_cq = cq", a.cq, ", .recv_cq = cq", a.cq,
                         ", .srq = ", srq ? absl::StrCat("srq", a.srq) : "NULL", ", .qp_type = IBV_QPT_",
                         QpTypeName(a.qp_type), ",\n      .cap = {.max_send_wr = ", kQueueDepth,
                         ", .max_recv_wr = ", srq ? 0 : kQueueDepth, ", .max_send_sge = ",
                         kMaxSge, ", .max_recv_sge = ", srq ? 0 : static_cast<int>(kMaxSge), "}};\n  struct ibv_qp* qp", a.id,
                         " = ibv_create_qp(pd", a.pd, ", &qp_attr", a.id, ");\n");
        break;
      }
      case Op::kDestroy: {
        const Object* o = model.Find(a.obj);
        const std::string v = Var(model, a.obj);
        const char* verb = o->kind == Kind::kPd    ? "ibv_dealloc_pd"
                           : o->kind == Kind::kCq  ? "ibv_destroy_cq"
                           : o->kind == Kind::kMr  ? "ibv_dereg_mr"
                           : o->kind == Kind::kSrq ? "ibv_destroy_srq"
                           : o->kind == Kind::kQp  ? "ibv_destroy_qp"
                                                   : "ibv_destroy_ah";
        c = absl::StrCat("  {\n    int rc = ", verb, "(", v, ");\n    check(", step, ", \"", verb, "(", v, ")\", rc, ",
                         AllowedC(p), ", \"", AllowedText(p), "\");\n  }\n");
        break;
      }
      case Op::kModifyQp: {
        const Object* o = model.Find(a.qp);
        const std::string v = Var(model, a.qp);
        c = absl::StrCat("  {\n", ModifyC(v, o->type, o->state, a.to), "    check(", step, ", \"ibv_modify_qp(", v, ", ",
                         QpStateName(o->state), "->", QpStateName(a.to), ")\", rc, ", AllowedC(p), ", \"",
                         AllowedText(p), "\");\n  }\n");
        break;
      }
      case Op::kPoll:
        c = absl::StrCat("  {\n    struct ibv_wc wc[16];\n    int n = ibv_poll_cq(cq", a.cq,
                         ", 16, wc);\n    printf(\"step ", step, ": ibv_poll_cq(cq", a.cq,
                         ") = %d\\n\", n);\n    fflush(stdout);\n  }\n");
        break;
      case Op::kCreateAh:
      case Op::kConnect:
      case Op::kPostSend:
      case Op::kPostRecv:
        return absl::UnimplementedError(absl::StrCat(
            "step ", step, " (", Describe(a),
            "): the C reproducer covers object lifetimes and QP moves only; replay the list with rdmacheck walk --replay"));
    }
    if (KindCreatedBy(a.op)) {
      // A create the device refused leaves the object NULL, as in the walk.
      absl::StrAppend(&c, "  printf(\"step ", step, ": ", Describe(a), ": %s\\n\", ", KindName(*KindCreatedBy(a.op)), a.id,
                      " ? \"created\" : strerror(errno));\n");
    }
    absl::StrAppend(&body, what, c);
    // The model follows what the model allows first (success where allowed): the reproducer
    // checks each answer; what the device really did is printed.
    outcome.err = p.Canonical();
    model.Apply(a, outcome);
  }
  std::string program = absl::StrCat(
      "/* A reproducer written by `rdmacheck walk` (walk/c_reproducer.h) from a shrunk walk.\n * Finding: ", finding,
      "\n * Build: cc -o repro repro.c -libverbs\n * Run:   ./repro [DEVICE]   (default ", device,
      ")\n * Each call prints its answer; one the walk's model does not allow is marked FINDING\n"
      " * (exit 1). A provider that crashes kills the program at the call that crashed. */\n",
      kPrologue, "  const char* name = argc > 1 ? argv[1] : \"", device, "\";\n",
      "  int n = 0;\n  struct ibv_device** list = ibv_get_device_list(&n);\n  struct ibv_context* ctx = NULL;\n"
      "  for (int i = 0; list && i < n && !ctx; ++i) {\n"
      "    if (strcmp(ibv_get_device_name(list[i]), name) == 0) ctx = ibv_open_device(list[i]);\n  }\n"
      "  if (!ctx) {\n    fprintf(stderr, \"no device %s\\n\", name);\n    return 2;\n  }\n",
      body, "  printf(findings ? \"%d finding(s)\\n\" : \"no finding\\n\", findings);\n",
      "  return findings ? 1 : 0;\n}\n");
  return program;
}

}  // namespace rdmacheck::walk
