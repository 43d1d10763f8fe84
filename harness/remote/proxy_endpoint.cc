#include "harness/remote/proxy_endpoint.h"

#include "absl/strings/str_cat.h"
#include "harness/remote/proxy_guarded_target.h"
#include "harness/remote/wire.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {
int64_t Millis(absl::Duration d) { return absl::ToInt64Milliseconds(d); }
}  // namespace

ProxyEndpoint::~ProxyEndpoint() { (void)Call("destroy"); }  // best effort: the peer also cleans up when we hang up

absl::StatusOr<nlohmann::json> ProxyEndpoint::Call(const char* op, nlohmann::json args, absl::Duration work) const {
  args["op"] = op;
  args["ep"] = id_;
  return link_->Call(std::move(args), work);
}

absl::StatusOr<nlohmann::json> ProxyEndpoint::Step(const char* op, nlohmann::json args, absl::Duration work) {
  RDMACHECK_ASSIGN_OR_RETURN(nlohmann::json answer, Call(op, std::move(args), work));
  try {
    const nlohmann::json& state = answer.at("state");
    RDMACHECK_ASSIGN_OR_RETURN(EndpointInfo own, InfoFromJson(state.at("own")));
    RDMACHECK_ASSIGN_OR_RETURN(EndpointInfo peer, InfoFromJson(state.at("peer")));
    address_ = own.address;
    own_buffer_ = own.buffer;
    peer_address_ = peer.address;
    peer_buffer_ = peer.buffer;
    qkey_ = state.at("qkey").get<uint32_t>();
    const nlohmann::json& cap = state.at("cap");
    granted_cap_.max_send_wr = cap.at("max_send_wr").get<uint32_t>();
    granted_cap_.max_recv_wr = cap.at("max_recv_wr").get<uint32_t>();
    granted_cap_.max_send_sge = cap.at("max_send_sge").get<uint32_t>();
    granted_cap_.max_recv_sge = cap.at("max_recv_sge").get<uint32_t>();
    granted_cap_.max_inline_data = cap.at("max_inline_data").get<uint32_t>();
  } catch (const nlohmann::json::exception& e) {
    return absl::DataLossError(absl::StrCat("malformed endpoint state from the peer: ", e.what()));
  }
  return answer;
}

absl::Status ProxyEndpoint::Fill(Slice where, Pattern pattern) {
  return Call("fill", {{"offset", where.offset}, {"length", where.length}, {"pattern", ToJson(pattern)}}).status();
}

absl::Status ProxyEndpoint::Check(Slice where, Pattern pattern) const {
  return Call("check", {{"offset", where.offset}, {"length", where.length}, {"pattern", ToJson(pattern)}}).status();
}

absl::StatusOr<std::vector<uint8_t>> ProxyEndpoint::Read(Slice where) const {
  RDMACHECK_ASSIGN_OR_RETURN(nlohmann::json answer, Call("read", {{"offset", where.offset}, {"length", where.length}}));
  return FromHex(answer.value("hex", std::string()));
}

absl::Status ProxyEndpoint::Write(size_t offset, absl::Span<const uint8_t> bytes) {
  return Call("write", {{"offset", offset}, {"hex", ToHex(bytes)}}).status();
}

absl::Status ProxyEndpoint::DoPostRecv(uint64_t wr_id, absl::Span<const Slice> sges) {
  return Call("post_recv", {{"wr_id", wr_id}, {"sges", SlicesToJson(sges)}}).status();
}

absl::Status ProxyEndpoint::DoPost(absl::Span<const SendRequest> requests) {
  nlohmann::json list = nlohmann::json::array();
  for (const SendRequest& r : requests) list.push_back(ToJson(r));
  return Call("post", {{"requests", list}}).status();
}

absl::StatusOr<std::vector<ibv_wc>> ProxyEndpoint::Poll(const char* queue, int count, absl::Duration timeout,
                                                        bool drain) {
  RDMACHECK_ASSIGN_OR_RETURN(
      nlohmann::json answer,
      Call(drain ? "drain" : "poll", {{"queue", queue}, {"count", count}, {"timeout_ms", Millis(timeout)}}, timeout));
  std::vector<ibv_wc> wcs;
  for (const nlohmann::json& j : answer.value("wcs", nlohmann::json::array())) {
    RDMACHECK_ASSIGN_OR_RETURN(ibv_wc wc, WcFromJson(j));
    wcs.push_back(wc);
  }
  return wcs;
}

absl::StatusOr<std::vector<ibv_wc>> ProxyEndpoint::PollSends(int count, absl::Duration timeout) {
  return Poll("send", count, timeout, false);
}
absl::StatusOr<std::vector<ibv_wc>> ProxyEndpoint::PollRecvs(int count, absl::Duration timeout) {
  return Poll("recv", count, timeout, false);
}
absl::StatusOr<std::vector<ibv_wc>> ProxyEndpoint::DrainSends(absl::Duration quiet) {
  return Poll("send", 0, quiet, true);
}
absl::StatusOr<std::vector<ibv_wc>> ProxyEndpoint::DrainRecvs(absl::Duration quiet) {
  return Poll("recv", 0, quiet, true);
}

absl::StatusOr<std::unique_ptr<GuardedTarget>> ProxyEndpoint::Guard(const GuardSpec& spec) {
  return ProxyGuardedTarget::Create(this, spec);
}

absl::Status ProxyEndpoint::MoveQpTo(ibv_qp_state state) {
  return Call("move_qp_to", {{"state", static_cast<int>(state)}}).status();
}

absl::StatusOr<ibv_qp_state> ProxyEndpoint::QpState() const {
  RDMACHECK_ASSIGN_OR_RETURN(nlohmann::json answer, Call("qp_state"));
  return static_cast<ibv_qp_state>(answer.value("state", -1));
}

absl::Status ProxyEndpoint::Rewire(const QpAddress& peer, uint32_t sq_psn, const PairOptions& options) {
  return Step("rewire", {{"peer", ToJson(EndpointInfo{peer, peer_buffer_})}, {"psn", sq_psn}, {"options", ToJson(options)}})
      .status();
}

absl::StatusOr<EndpointInfo> ProxyEndpoint::Prepare(const PairOptions& options) {
  RDMACHECK_RETURN_IF_ERROR(Step("prepare", {{"options", ToJson(options)}}).status());
  return EndpointInfo{address_, own_buffer_};
}

absl::Status ProxyEndpoint::Wire(const EndpointInfo& peer, const PairOptions& options) {
  return Step("wire", {{"options", ToJson(options)}, {"peer", ToJson(peer)}}).status();
}

absl::StatusOr<sockaddr_storage> ProxyEndpoint::Listen(const PairOptions& options) {
  RDMACHECK_ASSIGN_OR_RETURN(nlohmann::json answer, Step("listen", {{"options", ToJson(options)}}));
  return SockaddrFromHex(answer.value("address", std::string()));
}

absl::Status ProxyEndpoint::Accept(const PairOptions& options) {
  return Step("accept", {{"options", ToJson(options)}}, DefaultWait()).status();
}

absl::Status ProxyEndpoint::AwaitEstablished() {
  return Step("established", nlohmann::json::object(), DefaultWait()).status();
}

}  // namespace rdmacheck
