#include "harness/remote/proxy_guarded_target.h"

#include "absl/strings/str_cat.h"
#include "harness/remote/wire.h"
#include "harness/status.h"

namespace rdmacheck {

absl::StatusOr<std::unique_ptr<GuardedTarget>> ProxyGuardedTarget::Create(const ProxyEndpoint* endpoint,
                                                                         const GuardSpec& spec) {
  RDMACHECK_ASSIGN_OR_RETURN(nlohmann::json answer, endpoint->Call("guard", {{"spec", ToJson(spec)}}));
  std::unique_ptr<ProxyGuardedTarget> target(new ProxyGuardedTarget(endpoint, answer.value("target", int64_t{-1})));
  RDMACHECK_ASSIGN_OR_RETURN(target->remote_, RemoteBufferFromJson(answer.value("remote", nlohmann::json())));
  target->lkey_ = answer.value("lkey", uint32_t{0});
  target->virtual_address_ = answer.value("va", target->remote_.addr);
  return std::unique_ptr<GuardedTarget>(std::move(target));
}

ProxyGuardedTarget::~ProxyGuardedTarget() { (void)Call("target_destroy"); }  // best effort, like ProxyEndpoint's

absl::StatusOr<nlohmann::json> ProxyGuardedTarget::Call(const char* op, nlohmann::json args) {
  args["target"] = id_;
  RDMACHECK_ASSIGN_OR_RETURN(nlohmann::json answer, endpoint_->Call(op, std::move(args)));
  if (answer.contains("remote")) {
    RDMACHECK_ASSIGN_OR_RETURN(remote_, RemoteBufferFromJson(answer.at("remote")));
    lkey_ = answer.value("lkey", lkey_);
  }
  return answer;
}

absl::Status ProxyGuardedTarget::Deregister() { return Call("target_deregister").status(); }

absl::Status ProxyGuardedTarget::Reregister(int access) { return Call("target_rereg", {{"access", access}}).status(); }

absl::Status ProxyGuardedTarget::PostRecv(uint64_t wr_id, uint32_t length, uint32_t lkey_xor) {
  return Call("target_recv", {{"wr_id", wr_id}, {"length", length}, {"lkey_xor", lkey_xor}}).status();
}

absl::StatusOr<std::vector<uint8_t>> ProxyGuardedTarget::ReadAll() const {
  RDMACHECK_ASSIGN_OR_RETURN(nlohmann::json answer, endpoint_->Call("target_read", {{"target", id_}}));
  return FromHex(answer.value("hex", std::string()));
}

}  // namespace rdmacheck
