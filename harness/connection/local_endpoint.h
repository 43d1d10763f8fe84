// An endpoint in this process: it owns its PD, CQs (send and receive apart), optional SRQ
// and completion channel, QP, and a page-aligned buffer registered as one MR (or uses the
// SharedObjects it was given).
//
// Wiring:
//   manual:  Prepare() creates everything with the QP in RESET; Wire() takes it
//            RESET->INIT->RTR->RTS with the selected GID, the path MTU and PathOptions
//            (InfiniBand and RoCE), and for UD makes an address handle to the peer.
//   rdma_cm: the passive side Listen()s on the selected GID's IP address and Accept()s;
//            the active side Connect()s. Each side's EndpointInfo (buffer addr/rkey/length,
//            QPN, LID, GID) travels in the private data of CONNECT and ACCEPT (iWARP needs
//            rdma_cm: its MPA handshake exists only there). RC uses RDMA_PS_TCP, UD
//            RDMA_PS_UDP (SIDR).
#ifndef RDMACHECK_HARNESS_CONNECTION_LOCAL_ENDPOINT_H_
#define RDMACHECK_HARNESS_CONNECTION_LOCAL_ENDPOINT_H_

#include <memory>

#include "harness/connection/endpoint.h"
#include "harness/device.h"
#include "harness/verbs/owners.h"

namespace rdmacheck {

class LocalEndpoint : public Endpoint {
 public:
  // `context` is used for manual wiring; rdma_cm endpoints live on the context rdma_cm
  // picks for the address. `selection` gives port, GID and MTU.
  LocalEndpoint(ibv_context* context, const Selection& selection) : device_context_(context), selection_(selection) {}
  ~LocalEndpoint() override;

  bool in_this_process() const override { return true; }
  absl::Status Fill(Slice where, Pattern pattern) override;
  absl::Status Check(Slice where, Pattern pattern) const override;
  absl::StatusOr<std::vector<uint8_t>> Read(Slice where) const override;
  absl::Status Write(size_t offset, absl::Span<const uint8_t> bytes) override;
  absl::StatusOr<std::vector<ibv_wc>> PollSends(int count, absl::Duration timeout = DefaultWait()) override;
  absl::StatusOr<std::vector<ibv_wc>> PollRecvs(int count, absl::Duration timeout = DefaultWait()) override;
  absl::StatusOr<std::vector<ibv_wc>> DrainSends(absl::Duration quiet) override;
  absl::StatusOr<std::vector<ibv_wc>> DrainRecvs(absl::Duration quiet) override;
  absl::StatusOr<std::unique_ptr<GuardedTarget>> Guard(const GuardSpec& spec) override;
  absl::Status MoveQpTo(ibv_qp_state state) override;
  absl::StatusOr<ibv_qp_state> QpState() const override;
  absl::Status Rewire(const QpAddress& peer, uint32_t sq_psn, const PairOptions& options) override;

  ibv_context* context() const override { return pd_ != nullptr ? pd_->context : device_context_; }
  ibv_pd* pd() const override { return pd_; }
  ibv_qp* qp() const override { return qp_; }
  ibv_qp_ex* qp_ex() const override { return qp_ex_; }
  ibv_cq* send_cq() const override { return send_cq_; }
  ibv_cq* recv_cq() const override { return recv_cq_; }
  ibv_srq* srq() const override { return srq_; }
  ibv_comp_channel* channel() const override { return channel_.get(); }
  ibv_mr* mr() const override { return mr_.get(); }
  rdma_cm_id* cm_id() const override { return cm_id_.get(); }
  ibv_ah* peer_ah() const override { return peer_ah_.get(); }
  absl::Span<uint8_t> buffer() const override { return {buffer_.get(), own_buffer_.length}; }
  absl::Status PostSend(ibv_send_wr& wr, ibv_send_wr** bad_wr = nullptr) override;

  absl::StatusOr<EndpointInfo> Prepare(const PairOptions& options) override;
  absl::Status Wire(const EndpointInfo& peer, const PairOptions& options) override;
  absl::StatusOr<sockaddr_storage> Listen(const PairOptions& options) override;
  absl::Status Accept(const PairOptions& options) override;
  absl::Status AwaitEstablished() override;

  // rdma_cm, active side: resolve `destination`, create the QP and send CONNECT; then wait
  // for the peer's ACCEPT (ESTABLISHED).
  absl::Status Connect(const sockaddr_storage& destination, const PairOptions& options);
  absl::Status AwaitAccepted();

  // rdma_cm, passive side, connected: moves the accepted id to an event channel of its own
  // (rdma_migrate_id) and destroys the listener and the listener's channel. The connection
  // must not notice.
  absl::Status MoveOffListener();

  // PathOptions for this endpoint: its selection's port and GID, `options.path_mtu` or the
  // port's active MTU.
  PathOptions Path(const PairOptions& options) const;
  const Selection& selection() const { return selection_; }

 protected:
  absl::Status DoPostRecv(uint64_t wr_id, absl::Span<const Slice> sges) override;
  absl::Status DoPost(absl::Span<const SendRequest> requests) override;

 private:
  absl::Status AddResources(ibv_context* context, const PairOptions& options);
  void CheckLeftovers();  // harness/leftover_completions.h
  absl::Status CreateQp(const PairOptions& options);  // manual: ibv_create_qp(_ex)
  absl::Status CreateCmQp(const PairOptions& options);  // on cm_id_
  ibv_qp_init_attr_ex InitAttr(const PairOptions& options) const;
  absl::Status RangeCheck(Slice where) const;
  EndpointInfo Info() const;
  absl::Status SetPeer(const EndpointInfo& peer, const PairOptions& options);

  ibv_context* device_context_;
  Selection selection_;
  bool cm_ud_ = false;

  // Declaration order is release order reversed: the QP goes first, the rdma_cm ids last.
  CmChannelPtr cm_channel_;
  CmIdPtr listen_id_;  // the passive side of an rdma_cm pair keeps its listener
  CmIdPtr cm_id_;
  PdPtr own_pd_;
  ibv_pd* pd_ = nullptr;
  std::unique_ptr<uint8_t, void (*)(void*)> buffer_{nullptr, free};
  MrPtr mr_;
  CompChannelPtr channel_;
  CqPtr own_send_cq_;
  ibv_cq* send_cq_ = nullptr;
  CqPtr own_recv_cq_;
  ibv_cq* recv_cq_ = nullptr;
  SrqPtr own_srq_;
  ibv_srq* srq_ = nullptr;
  AhPtr peer_ah_;
  QpPtr owned_qp_;  // manual wiring; rdma_cm QPs are destroyed with rdma_destroy_qp
  ibv_qp* qp_ = nullptr;
  ibv_qp_ex* qp_ex_ = nullptr;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_CONNECTION_LOCAL_ENDPOINT_H_
