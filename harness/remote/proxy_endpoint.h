// An Endpoint that lives in an `rdmacheck serve` process on the peer host (two-host mode):
// every portable operation and every pair-building step is a request over the PeerLink.
// The verbs objects (qp(), srq(), ...) do not exist here: they stay null.
#ifndef RDMACHECK_HARNESS_REMOTE_PROXY_ENDPOINT_H_
#define RDMACHECK_HARNESS_REMOTE_PROXY_ENDPOINT_H_

#include <cstdint>
#include <vector>

#include "harness/connection/endpoint.h"
#include "harness/remote/peer_link.h"

namespace rdmacheck {

class ProxyEndpoint : public Endpoint {
 public:
  ProxyEndpoint(PeerLink* link, int64_t id) : link_(link), id_(id) {}
  ~ProxyEndpoint() override;  // asks the peer to destroy its endpoint

  bool in_this_process() const override { return false; }
  absl::Status Fill(Slice where, Pattern pattern) override;
  absl::Status Check(Slice where, Pattern pattern) const override;
  absl::StatusOr<std::vector<uint8_t>> Read(Slice where) const override;
  absl::Status Write(size_t offset, absl::Span<const uint8_t> bytes) override;
  absl::StatusOr<std::vector<ibv_wc>> PollSends(int count, absl::Duration timeout = DefaultWait()) override;
  absl::StatusOr<std::vector<ibv_wc>> PollRecvs(int count, absl::Duration timeout = DefaultWait()) override;
  absl::StatusOr<std::vector<ibv_wc>> DrainSends(absl::Duration quiet) override;
  absl::StatusOr<std::vector<ibv_wc>> DrainRecvs(absl::Duration quiet) override;
  absl::StatusOr<std::unique_ptr<GuardedTarget>> Guard(const GuardSpec& spec) override;  // proxy_guarded_target.h
  absl::Status MoveQpTo(ibv_qp_state state) override;
  absl::StatusOr<ibv_qp_state> QpState() const override;
  absl::Status Rewire(const QpAddress& peer, uint32_t sq_psn, const PairOptions& options) override;

  absl::StatusOr<EndpointInfo> Prepare(const PairOptions& options) override;
  absl::Status Wire(const EndpointInfo& peer, const PairOptions& options) override;
  absl::StatusOr<sockaddr_storage> Listen(const PairOptions& options) override;
  absl::Status Accept(const PairOptions& options) override;
  absl::Status AwaitEstablished() override;

  // One request about this endpoint, answered by the peer's `rdmacheck serve`: the ones
  // above, or one a serve extension handles (PeerServer::AddHandler, e.g. bench's echo).
  absl::StatusOr<nlohmann::json> Call(const char* op, nlohmann::json args = nlohmann::json::object(),
                                      absl::Duration work = absl::ZeroDuration()) const;

 protected:
  absl::Status DoPostRecv(uint64_t wr_id, absl::Span<const Slice> sges) override;
  absl::Status DoPost(absl::Span<const SendRequest> requests) override;

 private:
  // The same for a pair-building step: the endpoint state in the answer is taken over.
  absl::StatusOr<nlohmann::json> Step(const char* op, nlohmann::json args, absl::Duration work = absl::ZeroDuration());
  absl::StatusOr<std::vector<ibv_wc>> Poll(const char* queue, int count, absl::Duration timeout, bool drain);

  PeerLink* link_;
  int64_t id_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_REMOTE_PROXY_ENDPOINT_H_
