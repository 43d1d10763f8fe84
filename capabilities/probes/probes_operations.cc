// Probes of RC operations, each on a fresh pair, each result checked: RDMA WRITE and READ,
// immediate data, SEND with Invalidate, atomics, and the ibv_wr_* API.
#include <arpa/inet.h>

#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "capabilities/probes/probe_traffic.h"
#include "capabilities/probes/probes.h"
#include "harness/completion.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

absl::Status ProbeWrite(ProbeScope& s) {
  std::string how;
  absl::StatusOr<ConnectedPair> pair = PairFor(s, {Cap::kRdmaWrite}, how);
  if (!pair.ok()) return absl::OkStatus();
  Endpoint& local = pair->local();
  Fill(local.buffer().subspan(0, kProbeLength), 0x42);
  std::memset(pair->remote().buffer().data() + 256, 0, kProbeLength);
  ibv_sge sge = local.Sge(0, kProbeLength);
  ibv_send_wr wr = RdmaWr(1, &sge, 1, IBV_WR_RDMA_WRITE, local.peer_buffer().At(256, kProbeLength));
  absl::Status attempt = local.PostSend(wr);
  if (attempt.ok()) attempt = Succeeded(local.PollSend(), "RDMA WRITE").status();
  absl::Status check = attempt.ok() ? SameBytes(pair->remote().buffer().subspan(256, kProbeLength),
                                                local.buffer().subspan(0, kProbeLength), "RDMA WRITE")
                                    : attempt;
  Judge(s, Cap::kRdmaWrite, attempt, check, absl::StrCat("64-byte RDMA WRITE landed intact (", how, ")"));
  return absl::OkStatus();
}

absl::Status ProbeRead(ProbeScope& s) {
  std::string how;
  absl::StatusOr<ConnectedPair> pair = PairFor(s, {Cap::kRdmaRead}, how);
  if (!pair.ok()) return absl::OkStatus();
  Endpoint& local = pair->local();
  Fill(pair->remote().buffer().subspan(512, kProbeLength), 0x53);
  std::memset(local.buffer().data(), 0, kProbeLength);
  ibv_sge sge = local.Sge(0, kProbeLength);
  ibv_send_wr wr = RdmaWr(1, &sge, 1, IBV_WR_RDMA_READ, local.peer_buffer().At(512, kProbeLength));
  absl::Status attempt = local.PostSend(wr);
  if (attempt.ok()) attempt = Succeeded(local.PollSend(), "RDMA READ").status();
  absl::Status check = attempt.ok() ? SameBytes(local.buffer().subspan(0, kProbeLength),
                                                pair->remote().buffer().subspan(512, kProbeLength), "RDMA READ")
                                    : attempt;
  Judge(s, Cap::kRdmaRead, attempt, check, absl::StrCat("64-byte RDMA READ returned the remote bytes (", how, ")"));
  return absl::OkStatus();
}

// The receive completion of an operation carrying immediate data (IBTA 9.4.1.1 / 9.4.3).
absl::Status CheckProbeImmediate(const ibv_wc& wc, ibv_wc_opcode opcode, absl::string_view what) {
  if (wc.opcode != opcode) {
    return absl::DataLossError(absl::StrCat(what, ": receive completion opcode ", WcOpcodeName(wc.opcode),
                                            ", expected ", WcOpcodeName(opcode)));
  }
  if (!(wc.wc_flags & IBV_WC_WITH_IMM)) {
    return absl::DataLossError(absl::StrCat(what, ": the receive completion lacks IBV_WC_WITH_IMM"));
  }
  if (ntohl(wc.imm_data) != kProbeImmediate) {
    return absl::DataLossError(absl::StrFormat("%s: immediate data 0x%08x, sent 0x%08x", what, ntohl(wc.imm_data),
                                               kProbeImmediate));
  }
  return absl::OkStatus();
}

absl::Status ProbeWriteWithImm(ProbeScope& s) {
  std::string how;
  absl::StatusOr<ConnectedPair> pair = PairFor(s, {Cap::kWriteWithImm}, how);
  if (!pair.ok()) return absl::OkStatus();
  Endpoint& local = pair->local();
  Endpoint& remote = pair->remote();
  Fill(local.buffer().subspan(0, kProbeLength), 0x64);
  std::memset(remote.buffer().data() + 256, 0, kProbeLength);
  absl::Status attempt = remote.PostRecv(1, 0, kProbeLength);
  ibv_sge sge = local.Sge(0, kProbeLength);
  ibv_send_wr wr = RdmaWr(2, &sge, 1, IBV_WR_RDMA_WRITE_WITH_IMM, local.peer_buffer().At(256, kProbeLength));
  wr.imm_data = htonl(kProbeImmediate);
  if (attempt.ok()) attempt = local.PostSend(wr);
  if (attempt.ok()) attempt = Succeeded(local.PollSend(), "RDMA WRITE with immediate").status();
  absl::StatusOr<ibv_wc> recv = attempt.ok() ? Succeeded(remote.PollRecv(), "RECV of the immediate") : attempt;
  absl::Status check = recv.ok() ? CheckProbeImmediate(*recv, IBV_WC_RECV_RDMA_WITH_IMM, "RDMA WRITE with immediate")
                                 : recv.status();
  if (check.ok()) {
    check = SameBytes(remote.buffer().subspan(256, kProbeLength), local.buffer().subspan(0, kProbeLength), "RDMA WRITE with immediate");
  }
  Judge(s, Cap::kWriteWithImm, attempt, check,
        absl::StrCat("data landed, the receive completion carried the immediate (", how, ")"));
  return absl::OkStatus();
}

absl::Status ProbeSendWithImm(ProbeScope& s) {
  std::string how;
  absl::StatusOr<ConnectedPair> pair = PairFor(s, {Cap::kSendWithImm}, how);
  if (!pair.ok()) return absl::OkStatus();
  Endpoint& local = pair->local();
  Endpoint& remote = pair->remote();
  Fill(local.buffer().subspan(0, kProbeLength), 0x75);
  absl::Status attempt = remote.PostRecv(1, 256, kProbeLength);
  ibv_sge sge = local.Sge(0, kProbeLength);
  ibv_send_wr wr = SendWr(2, &sge, 1, IBV_WR_SEND_WITH_IMM);
  wr.imm_data = htonl(kProbeImmediate);
  if (attempt.ok()) attempt = local.PostSend(wr);
  if (attempt.ok()) attempt = Succeeded(local.PollSend(), "SEND with immediate").status();
  absl::StatusOr<ibv_wc> recv = attempt.ok() ? Succeeded(remote.PollRecv(), "RECV") : attempt;
  absl::Status check = recv.ok() ? CheckProbeImmediate(*recv, IBV_WC_RECV, "SEND with immediate") : recv.status();
  if (check.ok()) {
    check = SameBytes(remote.buffer().subspan(256, kProbeLength), local.buffer().subspan(0, kProbeLength), "SEND with immediate");
  }
  Judge(s, Cap::kSendWithImm, attempt, check,
        absl::StrCat("data arrived, the receive completion carried the immediate (", how, ")"));
  return absl::OkStatus();
}

// SEND with Invalidate: a minimal round trip proves the path exists (the send completes, the
// receive completes, the bytes arrive). What the receive completion says about the
// invalidation (IBV_WC_WITH_INV, invalidated_rkey) and whether the rkey is revoked is graded
// by ImmediateTest, not here. The target is a bound type 2 window of the receiver where the
// device has them (what IBTA allows to invalidate remotely), else the receiver's MR.
absl::Status ProbeSendWithInv(ProbeScope& s) {
  std::string how;
  absl::StatusOr<ConnectedPair> pair = PairFor(s, {Cap::kSendWithInv}, how);
  if (!pair.ok()) return absl::OkStatus();
  Endpoint& local = pair->local();
  Endpoint& remote = pair->remote();
  absl::StatusOr<MwPtr> mw = AllocMw(remote.pd(), IBV_MW_TYPE_2);
  uint32_t rkey = remote.mr()->rkey;
  std::string target = "the receiver's MR";
  if (mw.ok()) {
    absl::StatusOr<uint32_t> bound = BindType2(remote, mw->get(), 2048, kProbeLength);
    if (!bound.ok()) return bound.status();  // MW type 2 is probed on its own; here it is setup
    rkey = *bound;
    target = "a bound type 2 window of the receiver";
  }
  Fill(local.buffer().subspan(0, kProbeLength), 0x86);
  absl::Status attempt = remote.PostRecv(1, 256, kProbeLength);
  ibv_sge sge = local.Sge(0, kProbeLength);
  ibv_send_wr wr = SendWr(2, &sge, 1, IBV_WR_SEND_WITH_INV);
  wr.invalidate_rkey = rkey;
  if (attempt.ok()) attempt = local.PostSend(wr);
  if (attempt.ok()) attempt = Succeeded(local.PollSend(), "SEND with invalidate").status();
  absl::StatusOr<ibv_wc> recv = attempt.ok() ? Succeeded(remote.PollRecv(), "RECV") : attempt;
  absl::Status check = recv.status();
  if (check.ok()) {
    check = SameBytes(remote.buffer().subspan(256, kProbeLength), local.buffer().subspan(0, kProbeLength), "SEND with invalidate");
  }
  Judge(s, Cap::kSendWithInv, attempt, check,
        absl::StrCat("a SEND with invalidate of ", target, " was delivered (", how, ")"));
  return absl::OkStatus();
}

// Compare-and-swap, then fetch-and-add, on one 8-byte word of the remote buffer; both
// the returned original values and the remote memory are checked (IBTA 9.4.5).
absl::Status ProbeAtomics(ProbeScope& s) {
  std::string how;
  absl::StatusOr<ConnectedPair> pair = PairFor(s, {Cap::kAtomics}, how);
  if (!pair.ok()) return absl::OkStatus();
  Endpoint& local = pair->local();
  uint8_t* remote_word = pair->remote().buffer().data();  // page-aligned, so 8-byte aligned
  const uint64_t initial = 0x1111222233334444, swap = 0x5555666677778888, add = 5;
  std::memcpy(remote_word, &initial, 8);
  auto run = [&](ibv_wr_opcode op, uint64_t compare_add, uint64_t swap_value, const char* name,
                 uint64_t expect_returned, uint64_t expect_after) -> std::pair<absl::Status, absl::Status> {
    std::memset(local.buffer().data(), 0, 8);
    ibv_sge sge = local.Sge(0, 8);
    ibv_send_wr wr = AtomicWr(1, &sge, op, local.peer_buffer().At(0, 8), compare_add, swap_value);
    absl::Status attempt = local.PostSend(wr);
    if (attempt.ok()) attempt = Succeeded(local.PollSend(), name).status();  // a refused post keeps its verb first
    if (!attempt.ok()) return {attempt, attempt};
    uint64_t returned = 0, after = 0;
    std::memcpy(&returned, local.buffer().data(), 8);
    std::memcpy(&after, remote_word, 8);
    if (returned != expect_returned || after != expect_after) {
      return {attempt, absl::DataLossError(absl::StrFormat(
                           "%s returned 0x%016x (expected 0x%016x), left 0x%016x (expected 0x%016x)", name, returned,
                           expect_returned, after, expect_after))};
    }
    return {attempt, absl::OkStatus()};
  };
  auto [cas_attempt, cas_check] = run(IBV_WR_ATOMIC_CMP_AND_SWP, initial, swap, "CAS", initial, swap);
  if (!cas_attempt.ok() || !cas_check.ok()) {
    Judge(s, Cap::kAtomics, cas_attempt, cas_check, "");
    return absl::OkStatus();
  }
  auto [faa_attempt, faa_check] = run(IBV_WR_ATOMIC_FETCH_AND_ADD, add, 0, "FAA", swap, swap + add);
  Judge(s, Cap::kAtomics, faa_attempt, faa_check,
        absl::StrCat("CAS and FAA returned the original values and left the right ones (", how, ")"));
  return absl::OkStatus();
}


// A memory window, bound over the local buffer, must let the peer write through its rkey.
absl::Status ProbeMemoryWindow(ProbeScope& s, Cap cap, ibv_mw_type type) {
  const char* name = type == IBV_MW_TYPE_1 ? "type 1" : "type 2";
  std::string how;
  absl::StatusOr<ConnectedPair> pair = PairFor(s, {cap}, how);
  if (!pair.ok()) return absl::OkStatus();
  Endpoint& local = pair->local();
  Endpoint& remote = pair->remote();
  absl::StatusOr<MwPtr> mw = AllocMw(local.pd(), type);
  if (!mw.ok()) {
    s.Tried(cap, mw.status(), "");
    return absl::OkStatus();
  }
  constexpr size_t kOffset = 2048;
  absl::StatusOr<uint32_t> rkey;
  if (type == IBV_MW_TYPE_1) {
    ibv_mw_bind bind{};
    bind.wr_id = 8;
    bind.send_flags = IBV_SEND_SIGNALED;
    bind.bind_info.mr = local.mr();
    bind.bind_info.addr = reinterpret_cast<uint64_t>(local.buffer().data() + kOffset);
    bind.bind_info.length = kProbeLength;
    bind.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
    if (int rc = ibv_bind_mw(local.qp(), mw->get(), &bind); rc != 0) {
      rkey = ErrnoStatus(rc, "ibv_bind_mw(type 1)");
    } else {
      absl::Status done = Succeeded(local.PollSend(), "ibv_bind_mw (type 1)").status();
      rkey = done.ok() ? absl::StatusOr<uint32_t>((*mw)->rkey) : done;
    }
  } else {
    rkey = BindType2(local, mw->get(), kOffset, kProbeLength);
  }
  if (!rkey.ok()) {
    s.Tried(cap, rkey.status(), "");
    return absl::OkStatus();
  }
  // The peer writes through the window.
  std::memset(local.buffer().data() + kOffset, 0, kProbeLength);
  Fill(remote.buffer().subspan(0, kProbeLength), 0x97);
  ibv_sge sge = remote.Sge(0, kProbeLength);
  RemoteBuffer window{reinterpret_cast<uint64_t>(local.buffer().data() + kOffset), *rkey, kProbeLength};
  ibv_send_wr wr = RdmaWr(3, &sge, 1, IBV_WR_RDMA_WRITE, window);
  absl::Status wrote = remote.PostSend(wr);
  if (wrote.ok()) wrote = Succeeded(remote.PollSend(), absl::StrCat("RDMA WRITE through the ", name, " window")).status();
  if (wrote.ok()) {
    wrote = SameBytes(local.buffer().subspan(kOffset, kProbeLength), remote.buffer().subspan(0, kProbeLength),
                      absl::StrCat("RDMA WRITE through the ", name, " window"));
  }
  Judge(s, cap, absl::OkStatus(), wrote,
        absl::StrCat("allocated, bound, and the peer's RDMA WRITE through it landed (", how, ")"));
  return absl::OkStatus();
}

absl::Status ProbeMwType1(ProbeScope& s) { return ProbeMemoryWindow(s, Cap::kMwType1, IBV_MW_TYPE_1); }
absl::Status ProbeMwType2(ProbeScope& s) { return ProbeMemoryWindow(s, Cap::kMwType2, IBV_MW_TYPE_2); }


// The extended QP API (ibv_wr_post(3)): a QP created with send_ops_flags gives an
// ibv_qp_ex, and an RDMA WRITE posted with ibv_wr_* lands. The two QPs are wired by hand
// (BringUp); where that is impossible the API is judged by its creation alone.
absl::Status ProbeQpEx(ProbeScope& s) {
  RDMACHECK_ASSIGN_OR_RETURN(PdAndCq base, MakePdAndCq(s.context()));
  auto create = [&]() {
    return CreateRcQpEx(s.context(), base, IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ,
                        "SEND|RDMA_WRITE|RDMA_READ");
  };
  absl::StatusOr<QpPtr> a = create();
  if (!a.ok()) {
    s.Tried(Cap::kQpEx, a.status(), "");
    return absl::OkStatus();
  }
  ibv_qp_ex* qpx = ibv_qp_to_qp_ex(a->get());
  if (qpx == nullptr || qpx->wr_start == nullptr || qpx->wr_rdma_write == nullptr || qpx->wr_complete == nullptr) {
    s.Record(Cap::kQpEx, Outcome::kBroken, 0,
             qpx == nullptr ? "ibv_create_qp_ex accepted send_ops_flags, but ibv_qp_to_qp_ex returned NULL"
                            : "ibv_qp_to_qp_ex gave a QP without ibv_wr_start/ibv_wr_rdma_write/ibv_wr_complete");
    return absl::OkStatus();
  }
  RDMACHECK_ASSIGN_OR_RETURN(QpPtr b, create());
  std::vector<uint8_t> buffer(4096);
  RDMACHECK_ASSIGN_OR_RETURN(MrPtr mr, RegMr(base.pd.get(), buffer.data(), buffer.size(),
                                             IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  const PathOptions path = PathFor(s.selection(), PathOptions{});
  const QpAddress to_a{(*a)->qp_num, s.selection().port_attr.lid, s.selection().gid.gid, 0x100};
  const QpAddress to_b{b->qp_num, s.selection().port_attr.lid, s.selection().gid.gid, 0x200};
  absl::Status wired = BringUp(a->get(), to_b, to_a.psn, path);
  if (wired.ok()) wired = BringUp(b.get(), to_a, to_b.psn, path);
  if (!wired.ok()) {
    s.Record(Cap::kQpEx, Outcome::kSupported, 0,
             absl::StrCat("ibv_create_qp_ex gave an ibv_qp_ex with ibv_wr_*; no ibv_wr_* traffic tried (the QPs "
                          "cannot be wired by hand: ",
                          wired.message(), ")"));
    return absl::OkStatus();
  }
  Fill(absl::MakeSpan(buffer).subspan(0, kProbeLength), 0xa8);
  ibv_wr_start(qpx);
  qpx->wr_id = 1;
  qpx->wr_flags = IBV_SEND_SIGNALED;
  ibv_wr_rdma_write(qpx, mr->rkey, reinterpret_cast<uint64_t>(buffer.data() + 256));
  ibv_wr_set_sge(qpx, mr->lkey, reinterpret_cast<uint64_t>(buffer.data()), kProbeLength);
  absl::Status attempt;
  if (int rc = ibv_wr_complete(qpx); rc != 0) attempt = ErrnoStatus(rc, "ibv_wr_complete(RDMA WRITE)");
  if (attempt.ok()) attempt = Succeeded(PollCompletion(base.cq.get()), "ibv_wr_rdma_write").status();
  absl::Status check = attempt.ok() ? SameBytes(absl::MakeSpan(buffer).subspan(256, kProbeLength),
                                                absl::MakeSpan(buffer).subspan(0, kProbeLength), "ibv_wr_rdma_write")
                                    : attempt;
  Judge(s, Cap::kQpEx, attempt, check, "ibv_qp_ex from ibv_create_qp_ex; an RDMA WRITE by ibv_wr_* landed intact");
  return absl::OkStatus();
}

// An RDMA READ scattered into two local SGEs: the first bytes fill the first SGE, the
// rest the second (IBTA 9.4.4). max_sge_rd says how many a READ may have; siw says 1.
absl::Status ProbeMultiSgeRead(ProbeScope& s) {
  const int max_sge_rd = s.attr().orig_attr.max_sge_rd;
  if (max_sge_rd < 2) {
    s.Record(Cap::kMultiSgeRead, Outcome::kUnsupported, 0,
             absl::StrCat("max_sge_rd=", max_sge_rd, ": an RDMA READ may scatter into one SGE only"));
    return absl::OkStatus();
  }
  PairOptions options = RcOptions();
  options.max_send_sge = 2;
  std::string how;
  absl::StatusOr<ConnectedPair> pair = PairFor(s, {Cap::kMultiSgeRead}, how, options);
  if (!pair.ok()) return absl::OkStatus();
  Endpoint& local = pair->local();
  Fill(pair->remote().buffer().subspan(512, kProbeLength), 0x97);
  std::memset(local.buffer().data(), 0, 2 * kProbeLength);
  constexpr uint32_t kHalf = kProbeLength / 2;
  ibv_sge sges[2] = {local.Sge(0, kHalf), local.Sge(kProbeLength, kHalf)};  // a gap between the halves
  ibv_send_wr wr = RdmaWr(1, sges, 2, IBV_WR_RDMA_READ, local.peer_buffer().At(512, kProbeLength));
  absl::Status attempt = local.PostSend(wr);
  if (attempt.ok()) attempt = Succeeded(local.PollSend(), "RDMA READ into 2 SGEs").status();
  absl::Status check = attempt;
  if (check.ok()) {
    check = SameBytes(local.buffer().subspan(0, kHalf), pair->remote().buffer().subspan(512, kHalf),
                      "RDMA READ into 2 SGEs, first SGE");
  }
  if (check.ok()) {
    check = SameBytes(local.buffer().subspan(kProbeLength, kHalf), pair->remote().buffer().subspan(512 + kHalf, kHalf),
                      "RDMA READ into 2 SGEs, second SGE");
  }
  Judge(s, Cap::kMultiSgeRead, attempt, check,
        absl::StrCat("max_sge_rd=", max_sge_rd, "; an RDMA READ into 2 SGEs filled both in order (", how, ")"));
  return absl::OkStatus();
}

// Receiver Not Ready (IBTA 9.7.5.2.8): decided from what the device declares, not tried,
// because trying it is what RnrTest grades. iWARP has no RNR NAK (RFC 5040 7.1: a SEND
// without a receive is a fatal error for the responder); an IB-transport device says it
// generates RNR NAKs with IBV_DEVICE_RC_RNR_NAK_GEN.
absl::Status ProbeRnrRetry(ProbeScope& s) {
  if (s.IsIwarp()) {
    s.Record(Cap::kRnrRetry, Outcome::kUnsupported, 0, "transport iWARP: RFC 5040 has no RNR NAK");
  } else if (s.attr().orig_attr.device_cap_flags & IBV_DEVICE_RC_RNR_NAK_GEN) {
    s.Record(Cap::kRnrRetry, Outcome::kSupported, 0, "device_cap_flags declares IBV_DEVICE_RC_RNR_NAK_GEN");
  } else {
    s.Record(Cap::kRnrRetry, Outcome::kUnsupported, 0,
             "device_cap_flags lacks IBV_DEVICE_RC_RNR_NAK_GEN: the device does not generate RNR NAKs");
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<ProbeSpec> OperationProbes() {
  return {
      {"qp_ex", {Cap::kQpEx}, ProbeQpEx, kTrafficBudget},
      {"rdma_write", {Cap::kRdmaWrite}, ProbeWrite, kTrafficBudget},
      {"rdma_read", {Cap::kRdmaRead}, ProbeRead, kTrafficBudget},
      {"multi_sge_read", {Cap::kMultiSgeRead}, ProbeMultiSgeRead, kTrafficBudget},
      {"rnr_retry", {Cap::kRnrRetry}, ProbeRnrRetry},
      {"write_with_imm", {Cap::kWriteWithImm}, ProbeWriteWithImm, kTrafficBudget},
      {"send_with_imm", {Cap::kSendWithImm}, ProbeSendWithImm, kTrafficBudget},
      {"send_with_inv", {Cap::kSendWithInv}, ProbeSendWithInv, kTrafficBudget},
      {"atomics", {Cap::kAtomics}, ProbeAtomics, kTrafficBudget},
      {"mw_type1", {Cap::kMwType1}, ProbeMwType1, kTrafficBudget},
      {"mw_type2", {Cap::kMwType2}, ProbeMwType2, kTrafficBudget},
  };
}

}  // namespace rdmacheck
