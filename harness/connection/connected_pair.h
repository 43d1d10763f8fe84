// A connected pair of QP endpoints for a test, built in one call.
//
//   ASSERT_OK_AND_ASSIGN(ConnectedPair pair, ConnectedPair::Create(context(), selection(), options));
//   // or, in a DeviceTest, CreatePair(options): the connect method the device needs.
//
// Each Endpoint owns its PD, CQs (send and receive apart), optional SRQ and completion
// channel, QP, and a page-aligned buffer registered as one MR; it knows the peer's QP
// address and buffer (addr + rkey). Both endpoints live in this process on one device
// (loopback).
//
// How the pair is connected:
//   manual:  RESET->INIT->RTR->RTS by ibv_modify_qp with the selected GID, the port's
//            active MTU and the PathOptions below (InfiniBand and RoCE).
//   rdma_cm: listen / resolve / connect / accept on the selected GID's IP address; each
//            side's buffer address and rkey travel in the connection's private data
//            (iWARP needs this: its MPA handshake exists only inside rdma_cm).
// UD pairs are always wired by hand (no connection); each side gets an address handle to
// the other.
#ifndef RDMACHECK_HARNESS_CONNECTION_CONNECTED_PAIR_H_
#define RDMACHECK_HARNESS_CONNECTION_CONNECTED_PAIR_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <memory>

#include "absl/status/statusor.h"
#include "absl/types/optional.h"
#include "absl/types/span.h"
#include "harness/connection/connect_method.h"
#include "harness/connection/qp_attr.h"
#include "harness/connection/work_requests.h"
#include "harness/device.h"
#include "harness/timeouts.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

struct PairOptions {
  ibv_qp_type qp_type = IBV_QPT_RC;
  // Unset: manual on InfiniBand/RoCE, rdma_cm on iWARP. DeviceTest::CreatePair() fills in
  // what the capability profile observed.
  absl::optional<ConnectMethod> method;
  uint32_t max_send_wr = 16;
  uint32_t max_recv_wr = 16;
  uint32_t max_send_sge = 1;
  uint32_t max_recv_sge = 1;
  uint32_t max_inline_data = 0;
  bool sq_sig_all = false;
  bool use_srq = false;           // receives go to an SRQ of each endpoint
  bool use_comp_channel = false;  // both CQs of an endpoint report to one completion channel
  size_t buffer_size = 4096;      // each endpoint's registered buffer
  int mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
  absl::optional<ibv_mtu> path_mtu;  // unset: the port's active MTU
  // Timeouts, retries, RD atomic depth, QKey, QP access flags; port and sgid_index are
  // taken from the selection.
  PathOptions path;
};

class Endpoint {
 public:
  Endpoint() = default;
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;
  ~Endpoint();

  ibv_context* context() const { return pd_->context; }
  ibv_pd* pd() const { return pd_.get(); }
  ibv_qp* qp() const { return qp_; }
  ibv_cq* send_cq() const { return send_cq_.get(); }
  ibv_cq* recv_cq() const { return recv_cq_.get(); }
  ibv_srq* srq() const { return srq_.get(); }
  ibv_comp_channel* channel() const { return channel_.get(); }
  ibv_mr* mr() const { return mr_.get(); }
  rdma_cm_id* cm_id() const { return cm_id_.get(); }  // rdma_cm pairs only

  absl::Span<uint8_t> buffer() const { return {buffer_.get(), buffer_size_}; }
  ibv_sge Sge(size_t offset, uint32_t length) const { return MakeSge(mr(), offset, length); }
  RemoteBuffer remote_buffer() const;  // this endpoint's buffer, as the peer addresses it

  const QpAddress& address() const { return address_; }
  const QpAddress& peer_address() const { return peer_address_; }
  const RemoteBuffer& peer_buffer() const { return peer_buffer_; }
  ibv_ah* peer_ah() const { return peer_ah_.get(); }  // UD only
  uint32_t qkey() const { return qkey_; }

  // One receive of `length` bytes at `offset` of the buffer, on the SRQ when there is one.
  absl::Status PostRecv(uint64_t wr_id, size_t offset, uint32_t length);
  // ibv_post_send; for UD the peer's AH, QPN and QKey are filled in.
  absl::Status PostSend(ibv_send_wr& wr, ibv_send_wr** bad_wr = nullptr);

  absl::StatusOr<ibv_wc> PollSend(absl::Duration timeout = DefaultWait()) const;
  absl::StatusOr<ibv_wc> PollRecv(absl::Duration timeout = DefaultWait()) const;

 private:
  friend class ConnectedPair;

  // Declaration order is release order reversed: the QP goes first, the rdma_cm ids last.
  CmChannelPtr cm_channel_;
  CmIdPtr listen_id_;  // the server side of an rdma_cm pair keeps its listener
  CmIdPtr cm_id_;
  PdPtr pd_;
  std::unique_ptr<uint8_t, void (*)(void*)> buffer_{nullptr, free};
  size_t buffer_size_ = 0;
  MrPtr mr_;
  CompChannelPtr channel_;
  CqPtr send_cq_;
  CqPtr recv_cq_;
  SrqPtr srq_;
  AhPtr peer_ah_;
  QpPtr owned_qp_;  // manual wiring; rdma_cm QPs are destroyed with rdma_destroy_qp
  ibv_qp* qp_ = nullptr;

  QpAddress address_;
  QpAddress peer_address_;
  RemoteBuffer peer_buffer_;
  uint32_t qkey_ = 0;
};

class ConnectedPair {
 public:
  static absl::StatusOr<ConnectedPair> Create(ibv_context* context, const Selection& selection,
                                              const PairOptions& options);

  Endpoint& local() { return *local_; }
  Endpoint& remote() { return *remote_; }
  ConnectMethod method() const { return method_; }

 private:
  static absl::Status AddResources(Endpoint& e, ibv_context* context, const PairOptions& options);
  static absl::Status AddQp(Endpoint& e, const PairOptions& options);
  static ibv_qp_init_attr QpInitAttrFor(const Endpoint& e, const PairOptions& options);
  static absl::StatusOr<ConnectedPair> ConnectManually(ibv_context* context, const Selection& selection,
                                                       const PairOptions& options);
  static absl::StatusOr<ConnectedPair> ConnectWithCm(const Selection& selection, const PairOptions& options);

  std::unique_ptr<Endpoint> local_ = std::make_unique<Endpoint>();   // the active side (client)
  std::unique_ptr<Endpoint> remote_ = std::make_unique<Endpoint>();  // the passive side (server)
  ConnectMethod method_ = ConnectMethod::kManual;
};

// PathOptions for `selection`: its port, GID index, and MTU (active MTU unless `mtu` set).
PathOptions PathFor(const Selection& selection, PathOptions base, absl::optional<ibv_mtu> mtu = absl::nullopt);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_CONNECTED_PAIR_H_
