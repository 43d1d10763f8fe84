// One side of a ConnectedPair: a QP with its CQs and a registered buffer.
//
// An endpoint lives either in this process (LocalEndpoint) or, in two-host mode, in an
// `rdmacheck serve` process on the peer host (ProxyEndpoint, driven over a TCP side
// channel). Tests written against the portable part below run unchanged in both:
//
//   ASSERT_OK(pair.local().Fill({0, n}, Pattern::Seeded(1)));
//   ASSERT_OK(pair.remote().PostRecv(/*wr_id=*/2, /*offset=*/0, n));
//   ASSERT_OK(pair.local().Post(SendRequest::Send(1, {{0, n}})));
//   ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.remote().PollRecv());
//   EXPECT_OK(pair.remote().Check({0, n}, Pattern::Seeded(1)));
//
// The verbs objects (qp(), srq(), buffer(), ...) exist only for an endpoint in this
// process; for a proxy they are null/empty, and tests that need them on the remote side
// skip in two-host mode (RDMACHECK_REQUIRE_LOOPBACK).
#ifndef RDMACHECK_HARNESS_CONNECTION_ENDPOINT_H_
#define RDMACHECK_HARNESS_CONNECTION_ENDPOINT_H_

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>
#include <sys/socket.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "harness/connection/guarded_target.h"
#include "harness/connection/pair_options.h"
#include "harness/connection/qp_attr.h"
#include "harness/connection/work_requests.h"
#include "harness/patterns.h"
#include "harness/timeouts.h"

namespace rdmacheck {

// What the other side needs to reach an endpoint.
struct EndpointInfo {
  QpAddress address;
  RemoteBuffer buffer;
};

class Endpoint {
 public:
  Endpoint() = default;
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  virtual ~Endpoint() = default;

  // ---- Portable: the same for an endpoint here and one in a peer process.
  uint32_t qp_num() const { return address_.qp_num; }
  const QpAddress& address() const { return address_; }
  const QpAddress& peer_address() const { return peer_address_; }
  const RemoteBuffer& peer_buffer() const { return peer_buffer_; }  // the peer's addr/rkey/length
  RemoteBuffer remote_buffer() const { return own_buffer_; }        // this buffer, as the peer addresses it
  size_t buffer_size() const { return own_buffer_.length; }
  uint32_t qkey() const { return qkey_; }  // UD
  // The QP capabilities the device granted at creation (max_inline_data, SGEs, depths).
  const ibv_qp_cap& granted_cap() const { return granted_cap_; }
  virtual bool in_this_process() const = 0;

  // The registered buffer's contents.
  virtual absl::Status Fill(Slice where, Pattern pattern) = 0;
  virtual absl::Status Check(Slice where, Pattern pattern) const = 0;  // see CheckPattern()
  virtual absl::StatusOr<std::vector<uint8_t>> Read(Slice where) const = 0;
  virtual absl::Status Write(size_t offset, absl::Span<const uint8_t> bytes) = 0;
  // Check(), repeated until it passes or `timeout` ends: for the target of an RDMA WRITE,
  // whose completion at the writer means the data was acknowledged by the responder on
  // InfiniBand/RoCE RC, but only that it left on iWARP (RFC 5040: placement at the data
  // sink is not tied to the writer's completion) and on UC.
  absl::Status AwaitPattern(Slice where, Pattern pattern, absl::Duration timeout = DefaultWait()) const;
  absl::StatusOr<uint64_t> ReadU64(size_t offset) const;  // host byte order (atomics)
  absl::Status WriteU64(size_t offset, uint64_t value);

  // One receive of `length` bytes at `offset`, or scattering into `sges`; on the SRQ when
  // the endpoint has one.
  absl::Status PostRecv(uint64_t wr_id, size_t offset, uint32_t length) { return DoPostRecv(wr_id, {{offset, length}}); }
  absl::Status PostRecv(uint64_t wr_id, std::vector<Slice> sges) { return DoPostRecv(wr_id, sges); }
  // ibv_post_send of one request, or of all as one linked list; UD addressing filled in.
  absl::Status Post(const SendRequest& request) { return DoPost({&request, 1}); }
  absl::Status Post(absl::Span<const SendRequest> requests) { return DoPost(requests); }

  // Bounded waits for `count` completions of the send / receive CQ.
  virtual absl::StatusOr<std::vector<ibv_wc>> PollSends(int count, absl::Duration timeout = DefaultWait()) = 0;
  virtual absl::StatusOr<std::vector<ibv_wc>> PollRecvs(int count, absl::Duration timeout = DefaultWait()) = 0;
  absl::StatusOr<ibv_wc> PollSend(absl::Duration timeout = DefaultWait());
  absl::StatusOr<ibv_wc> PollRecv(absl::Duration timeout = DefaultWait());
  // Whatever completes within `quiet` (to show that nothing does).
  virtual absl::StatusOr<std::vector<ibv_wc>> DrainSends(absl::Duration quiet) = 0;
  virtual absl::StatusOr<std::vector<ibv_wc>> DrainRecvs(absl::Duration quiet) = 0;

  // The end-of-test check (harness/leftover_completions.h) polls this endpoint's CQs once
  // more before they are destroyed and fails the test on any completion left there. A test
  // that leaves completions on purpose says so here, with the reason (reported nowhere
  // else: the reader of the test sees it); more completions than posted work requests are
  // reported all the same. No check runs for an endpoint on a peer host.
  void AllowLeftoverCompletions(std::string why) { leftovers_allowed_because_ = std::move(why); }

  // Target memory for an access test on this endpoint's side (guarded_target.h), on its PD
  // or a PD of its own; destroy it before the endpoint.
  virtual absl::StatusOr<std::unique_ptr<GuardedTarget>> Guard(const GuardSpec& spec) = 0;
  // ibv_modify_qp of the QP's state alone (e.g. to ERR or RESET: a responder that cannot
  // answer), and ibv_query_qp of it.
  virtual absl::Status MoveQpTo(ibv_qp_state state) = 0;
  virtual absl::StatusOr<ibv_qp_state> QpState() const = 0;
  // Manual wiring again, of a QP moved back to RESET: RESET->INIT->RTR->RTS towards `peer`
  // with `sq_psn` as this side's first PSN.
  virtual absl::Status Rewire(const QpAddress& peer, uint32_t sq_psn, const PairOptions& options) = 0;

  // ---- In this process only (null / empty for an endpoint in a peer process).
  virtual ibv_context* context() const { return nullptr; }
  virtual ibv_pd* pd() const { return nullptr; }
  virtual ibv_qp* qp() const { return nullptr; }
  virtual ibv_qp_ex* qp_ex() const { return nullptr; }  // PairOptions::send_ops_flags pairs
  virtual ibv_cq* send_cq() const { return nullptr; }
  virtual ibv_cq* recv_cq() const { return nullptr; }
  virtual ibv_srq* srq() const { return nullptr; }
  virtual ibv_comp_channel* channel() const { return nullptr; }
  virtual ibv_mr* mr() const { return nullptr; }
  virtual rdma_cm_id* cm_id() const { return nullptr; }  // rdma_cm pairs
  virtual ibv_ah* peer_ah() const { return nullptr; }    // UD
  virtual absl::Span<uint8_t> buffer() const { return {}; }
  ibv_sge Sge(size_t offset, uint32_t length) const;
  // Raw ibv_post_send (UD addressing filled in). Unimplemented for a proxy.
  virtual absl::Status PostSend(ibv_send_wr& wr, ibv_send_wr** bad_wr = nullptr);

  // ---- Building a pair: ConnectedPair and `rdmacheck serve` call these, tests do not.
  // Manual wiring (and UD): resources and a QP in RESET, then RESET->RTS towards `peer`.
  virtual absl::StatusOr<EndpointInfo> Prepare(const PairOptions& options) = 0;
  virtual absl::Status Wire(const EndpointInfo& peer, const PairOptions& options) = 0;
  // rdma_cm, passive side: listen (returns the address to connect to), take the connect
  // request and accept it (the peer's EndpointInfo arrives in its private data), and wait
  // for ESTABLISHED (RC; nothing to wait for on UD).
  virtual absl::StatusOr<sockaddr_storage> Listen(const PairOptions& options) = 0;
  virtual absl::Status Accept(const PairOptions& options) = 0;
  virtual absl::Status AwaitEstablished() = 0;

 protected:
  virtual absl::Status DoPostRecv(uint64_t wr_id, absl::Span<const Slice> sges) = 0;
  virtual absl::Status DoPost(absl::Span<const SendRequest> requests) = 0;

  QpAddress address_;
  QpAddress peer_address_;
  RemoteBuffer own_buffer_;
  RemoteBuffer peer_buffer_;
  uint32_t qkey_ = 0;
  ibv_qp_cap granted_cap_{};
  std::string leftovers_allowed_because_;  // empty: leftovers fail the test
};

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_ENDPOINT_H_
