#include "capabilities/probes/probe_traffic.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "harness/completion.h"
#include "harness/status.h"

namespace rdmacheck {

void Fill(absl::Span<uint8_t> bytes, uint8_t seed) {
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<uint8_t>(seed + 7 * i);
}

absl::Status SameBytes(absl::Span<const uint8_t> got, absl::Span<const uint8_t> want, absl::string_view what) {
  if (got.size() == want.size() && std::memcmp(got.data(), want.data(), got.size()) == 0) return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(what, ": the data that arrived differs from what was sent"));
}

absl::Status InContext(const absl::Status& status, absl::string_view what) {
  absl::Status out(status.code(), absl::StrCat(what, ": ", status.message()));
  status.ForEachPayload([&](absl::string_view url, const absl::Cord& payload) { out.SetPayload(url, payload); });
  return out;
}

absl::StatusOr<ibv_wc> Succeeded(absl::StatusOr<ibv_wc> wc, absl::string_view what) {
  if (!wc.ok()) return InContext(wc.status(), what);
  if (wc->status != IBV_WC_SUCCESS) {
    return absl::AbortedError(absl::StrCat(what, " completed with ", DescribeWc(*wc)));
  }
  return wc;
}

void Judge(ProbeScope& s, Cap cap, const absl::Status& attempt, const absl::Status& check, absl::string_view detail) {
  if (!attempt.ok()) {
    s.Tried(cap, attempt, "");
  } else if (!check.ok()) {
    s.Record(cap, Outcome::kBroken, ErrnoOf(check).value_or(0), std::string(check.message()));
  } else {
    s.Record(cap, Outcome::kSupported, 0, std::string(detail));
  }
}

PairOptions RcOptions() {
  PairOptions options;
  options.mr_access |= IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND;
  options.path.access |= IBV_ACCESS_REMOTE_ATOMIC;
  return options;
}

namespace {

// An RC pair by whichever method the device accepts; `how` says which.
absl::StatusOr<ConnectedPair> AnyRcPair(const ProbeScope& s, PairOptions options, std::string& how) {
  const ConnectMethod first = s.IsIwarp() ? ConnectMethod::kRdmaCm : ConnectMethod::kManual;
  const ConnectMethod second = s.IsIwarp() ? ConnectMethod::kManual : ConnectMethod::kRdmaCm;
  options.method = first;
  absl::StatusOr<ConnectedPair> pair = ConnectedPair::Create(s.context(), s.selection(), options);
  if (pair.ok()) {
    how = ConnectMethodName(first);
    return pair;
  }
  options.method = second;
  absl::StatusOr<ConnectedPair> other = ConnectedPair::Create(s.context(), s.selection(), options);
  if (other.ok()) {
    how = ConnectMethodName(second);
    return other;
  }
  return absl::FailedPreconditionError(absl::StrCat("no RC connection to try it on (", ConnectMethodName(first), ": ",
                                                    pair.status().message(), "; ", ConnectMethodName(second), ": ",
                                                    other.status().message(), ")"));
}

}  // namespace

absl::StatusOr<ConnectedPair> PairFor(ProbeScope& s, std::initializer_list<Cap> caps, std::string& how,
                                      PairOptions options) {
  absl::StatusOr<ConnectedPair> pair = AnyRcPair(s, options, how);
  if (!pair.ok()) {
    // Every transport rdmacheck knows carries RC (IBTA 9.8, RFC 5040): a device that cannot
    // connect one is broken, not without these operations.
    for (Cap cap : caps) s.Record(cap, Outcome::kBroken, ErrnoOf(pair.status()).value_or(0), std::string(pair.status().message()));
  }
  return pair;
}

absl::Status SendAndCheck(ConnectedPair& pair, bool ud) {
  const uint32_t grh = ud ? 40 : 0;
  Endpoint& local = pair.local();
  Endpoint& remote = pair.remote();
  Fill(local.buffer().subspan(1024, kProbeLength), 0x31);
  std::memset(remote.buffer().data(), 0, grh + kProbeLength);
  RDMACHECK_RETURN_IF_ERROR(remote.PostRecv(1, 0, grh + kProbeLength));
  ibv_sge sge = local.Sge(1024, kProbeLength);
  ibv_send_wr wr = SendWr(2, &sge, 1);
  RDMACHECK_RETURN_IF_ERROR(local.PostSend(wr));
  RDMACHECK_RETURN_IF_ERROR(Succeeded(local.PollSend(), "SEND").status());
  RDMACHECK_ASSIGN_OR_RETURN(ibv_wc recv, Succeeded(remote.PollRecv(), "RECV"));
  if (recv.byte_len != grh + kProbeLength) {
    return absl::DataLossError(absl::StrCat("RECV byte_len ", recv.byte_len, ", expected ", grh + kProbeLength));
  }
  return SameBytes(remote.buffer().subspan(grh, kProbeLength), local.buffer().subspan(1024, kProbeLength), "SEND");
}


absl::StatusOr<uint32_t> BindType2(Endpoint& e, ibv_mw* mw, size_t offset, uint32_t length) {
  ibv_send_wr wr{};
  wr.wr_id = 9;
  wr.opcode = IBV_WR_BIND_MW;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.bind_mw.mw = mw;
  wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
  wr.bind_mw.bind_info.mr = e.mr();
  wr.bind_mw.bind_info.addr = reinterpret_cast<uint64_t>(e.buffer().data() + offset);
  wr.bind_mw.bind_info.length = length;
  wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
  RDMACHECK_RETURN_IF_ERROR(e.PostSend(wr));
  RDMACHECK_RETURN_IF_ERROR(Succeeded(e.PollSend(), "BIND_MW (type 2)").status());
  return wr.bind_mw.rkey;
}


}  // namespace rdmacheck
