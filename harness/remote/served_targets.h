// The serving side of guarded targets (harness/connection/guarded_target.h) in
// `rdmacheck serve`: one session's targets, and its requests about them.
//
//   guard           {ep, spec}             -> {target, remote, lkey}   a target on ep's side
//   target_deregister / target_rereg {access} / target_recv {wr_id, length, lkey_xor}
//                   {ep, target, ...}      -> {remote, lkey}           the target's state after
//   target_read     {ep, target}           -> {hex}                    every byte, guards included
//   target_destroy  {ep, target}           -> {}
#ifndef RDMACHECK_HARNESS_REMOTE_SERVED_TARGETS_H_
#define RDMACHECK_HARNESS_REMOTE_SERVED_TARGETS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "harness/connection/endpoint.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

class ServedTargets {
 public:
  // Whether `op` is a request about guarded targets.
  static bool Handles(const std::string& op);
  // Answers `request` (an op Handles()) about endpoint `ep`.
  absl::StatusOr<nlohmann::json> Handle(const std::string& op, int64_t ep, Endpoint& endpoint,
                                        const nlohmann::json& request);
  // Destroys the targets of endpoint `ep`: before the endpoint itself (their MRs are on its PD).
  void DropEndpoint(int64_t ep);

 private:
  struct Served {
    int64_t ep;
    std::unique_ptr<GuardedTarget> target;
  };
  int64_t next_id_ = 1;
  std::map<int64_t, Served> targets_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_REMOTE_SERVED_TARGETS_H_
