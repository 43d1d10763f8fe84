// A GuardedTarget that lives in an `rdmacheck serve` process on the peer host, made by a
// ProxyEndpoint's Guard(): every operation is a "target_*" request about it (served by
// harness/remote/served_targets.h), and ReadAll() brings back all its bytes, guard page to
// guard page, so that CheckCanary() is the same byte-for-byte check as in loopback.
#ifndef RDMACHECK_HARNESS_REMOTE_PROXY_GUARDED_TARGET_H_
#define RDMACHECK_HARNESS_REMOTE_PROXY_GUARDED_TARGET_H_

#include <cstdint>
#include <vector>

#include "harness/connection/guarded_target.h"
#include "harness/remote/proxy_endpoint.h"

namespace rdmacheck {

class ProxyGuardedTarget : public GuardedTarget {
 public:
  // Asks the peer to make the target on `endpoint`'s side.
  static absl::StatusOr<std::unique_ptr<GuardedTarget>> Create(const ProxyEndpoint* endpoint, const GuardSpec& spec);
  ~ProxyGuardedTarget() override;  // asks the peer to destroy it

  RemoteBuffer remote() const override { return remote_; }
  uint64_t virtual_address() const override { return virtual_address_; }
  uint32_t lkey() const override { return lkey_; }
  absl::Status Deregister() override;
  absl::Status Reregister(int access) override;
  absl::Status PostRecv(uint64_t wr_id, uint32_t length, uint32_t lkey_xor = 0) override;
  absl::StatusOr<std::vector<uint8_t>> ReadAll() const override;

 private:
  ProxyGuardedTarget(const ProxyEndpoint* endpoint, int64_t id) : endpoint_(endpoint), id_(id) {}
  // One request about this target; an answer with its state ("remote", "lkey") updates it.
  absl::StatusOr<nlohmann::json> Call(const char* op, nlohmann::json args = nlohmann::json::object());

  const ProxyEndpoint* endpoint_;
  int64_t id_;
  RemoteBuffer remote_;
  uint64_t virtual_address_ = 0;
  uint32_t lkey_ = 0;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_REMOTE_PROXY_GUARDED_TARGET_H_
