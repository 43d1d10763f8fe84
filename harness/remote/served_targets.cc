#include "harness/remote/served_targets.h"

#include "absl/strings/str_cat.h"
#include "harness/remote/wire.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

nlohmann::json StateOf(const GuardedTarget& t) {
  return {{"remote", ToJson(t.remote())}, {"lkey", t.lkey()}, {"va", t.virtual_address()}};
}

}  // namespace

bool ServedTargets::Handles(const std::string& op) { return op == "guard" || op.rfind("target_", 0) == 0; }

absl::StatusOr<nlohmann::json> ServedTargets::Handle(const std::string& op, int64_t ep, Endpoint& endpoint,
                                                     const nlohmann::json& request) {
  if (op == "guard") {
    RDMACHECK_ASSIGN_OR_RETURN(GuardSpec spec, GuardSpecFromJson(request.at("spec")));
    RDMACHECK_ASSIGN_OR_RETURN(std::unique_ptr<GuardedTarget> target, endpoint.Guard(spec));
    const int64_t id = next_id_++;
    nlohmann::json answer = StateOf(*target);
    answer["target"] = id;
    targets_[id] = {ep, std::move(target)};
    return answer;
  }
  auto it = targets_.find(request.at("target").get<int64_t>());
  if (it == targets_.end() || it->second.ep != ep) return absl::NotFoundError("no such target on this endpoint");
  GuardedTarget& target = *it->second.target;
  if (op == "target_destroy") {
    targets_.erase(it);
    return nlohmann::json::object();
  }
  if (op == "target_read") {
    RDMACHECK_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, target.ReadAll());
    return nlohmann::json{{"hex", ToHex(bytes)}};
  }
  if (op == "target_deregister") {
    RDMACHECK_RETURN_IF_ERROR(target.Deregister());
  } else if (op == "target_rereg") {
    RDMACHECK_RETURN_IF_ERROR(target.Reregister(request.at("access").get<int>()));
  } else if (op == "target_recv") {
    RDMACHECK_RETURN_IF_ERROR(target.PostRecv(request.at("wr_id").get<uint64_t>(), request.at("length").get<uint32_t>(),
                                              request.at("lkey_xor").get<uint32_t>()));
  } else {
    return absl::InvalidArgumentError(absl::StrCat("unknown request '", op, "'"));
  }
  return StateOf(target);
}

void ServedTargets::DropEndpoint(int64_t ep) {
  for (auto it = targets_.begin(); it != targets_.end();) {
    it = it->second.ep == ep ? targets_.erase(it) : std::next(it);
  }
}

}  // namespace rdmacheck
