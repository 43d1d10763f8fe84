#include "harness/connection/local_endpoint.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "harness/completion.h"
#include "harness/connection/connected_pair.h"
#include "harness/leftover_completions.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"
#include "harness/verbs/post.h"

namespace rdmacheck {
namespace {

// The bound on `cq`'s completions of `qp` (leftover_completions.h): what was posted to the
// queue that completes there (for the receive queue of a QP on `srq`, the SRQ's posts) and
// what the harness polled of it. None without a QP, or for one posted to uncounted.
std::optional<CountedQueue> Counted(const ibv_qp* qp, const ibv_srq* srq, const ibv_cq* cq, bool send) {
  if (qp == nullptr) return std::nullopt;
  const PostCounts posts = PostedTo(qp);
  if (!posts.counted) return std::nullopt;
  CountedQueue counted;
  counted.qp_num = qp->qp_num;
  // A receive posted to the QP itself is refused on an SRQ; if accepted, it counts too.
  counted.posted = send ? posts.send : posts.recv + (srq != nullptr ? PostedTo(srq) : 0);
  counted.polled = PolledFrom(cq, qp->qp_num);
  return counted;
}

}  // namespace

LocalEndpoint::~LocalEndpoint() {
  CheckLeftovers();
  if (cm_id_ && cm_id_->qp != nullptr) {
    if (!cm_ud_) rdma_disconnect(cm_id_.get());  // a clean close for the peer (iWARP: instead of an abort)
    rdma_destroy_qp(cm_id_.get());
  }
}

void LocalEndpoint::CheckLeftovers() {
  struct Owned {
    ibv_cq* cq;
    const char* name;
    bool send;
  };
  std::vector<Owned> polled;  // only the CQs this endpoint owns: a shared one is its owner's
  for (Owned o : {Owned{own_send_cq_.get(), "send", true}, Owned{own_recv_cq_.get(), "receive", false}}) {
    if (o.cq != nullptr && WasPolled(o.cq)) polled.push_back(o);
  }
  const LeftoverCheck& check = CurrentLeftoverCheck();
  if (!polled.empty() && check.report) {
    bool qp_in_error = true;  // no QP, or its state unknown: flushes are no evidence either way
    if (qp_ != nullptr) {
      absl::StatusOr<ibv_qp_attr> attr = QueryQp(qp_, IBV_QP_STATE);
      if (attr.ok()) qp_in_error = attr->qp_state == IBV_QPS_ERR || attr->qp_state == IBV_QPS_RESET;
    }
    // One drain window for the endpoint: the first CQ is drained for it, the second is
    // polled after it.
    absl::Duration window = check.window;
    for (const Owned& o : polled) {
      const std::optional<CountedQueue> counted = Counted(qp_, srq_, o.cq, o.send);  // before the drain polls
      const std::vector<ibv_wc> left = DrainCompletions(o.cq, window);
      window = absl::ZeroDuration();
      const std::string where = absl::StrCat("the ", o.name, " CQ of QP ", qp_ != nullptr ? qp_->qp_num : 0);
      const LeftoverVerdict verdict = JudgeLeftovers(left, counted, qp_in_error, where);
      for (const std::string& problem : verdict.surplus) check.report(problem, /*surplus=*/true);
      if (!leftovers_allowed_because_.empty()) continue;  // the test left them on purpose
      for (const std::string& problem : verdict.unexpected) check.report(problem, /*surplus=*/false);
    }
  }
  for (const Owned& o : polled) ForgetPolled(o.cq);
  if (qp_ != nullptr) ForgetPosts(qp_);
  if (own_srq_ != nullptr) ForgetPosts(own_srq_.get());
}

absl::StatusOr<std::unique_ptr<GuardedTarget>> LocalEndpoint::Guard(const GuardSpec& spec) {
  RDMACHECK_ASSIGN_OR_RETURN(std::unique_ptr<LocalGuardedTarget> target, LocalGuardedTarget::Create(pd_, qp_, spec));
  return std::unique_ptr<GuardedTarget>(std::move(target));
}

absl::Status LocalEndpoint::MoveQpTo(ibv_qp_state state) {
  if (qp_ == nullptr) return absl::FailedPreconditionError("the endpoint has no QP yet (is the pair built?)");
  return ModifyQp(qp_, QpAttr().set_state(state));
}

absl::StatusOr<ibv_qp_state> LocalEndpoint::QpState() const {
  if (qp_ == nullptr) return absl::FailedPreconditionError("the endpoint has no QP yet (is the pair built?)");
  RDMACHECK_ASSIGN_OR_RETURN(ibv_qp_attr attr, QueryQp(qp_, IBV_QP_STATE));
  return attr.qp_state;
}

absl::Status LocalEndpoint::Rewire(const QpAddress& peer, uint32_t sq_psn, const PairOptions& options) {
  if (qp_ == nullptr) return absl::FailedPreconditionError("the endpoint has no QP yet (is the pair built?)");
  RDMACHECK_RETURN_IF_ERROR(BringUp(qp_, peer, sq_psn, Path(options)));
  address_.psn = sq_psn;
  peer_address_ = peer;
  return absl::OkStatus();
}

PathOptions LocalEndpoint::Path(const PairOptions& options) const {
  return PathFor(selection_, options.path, options.path_mtu);
}

EndpointInfo LocalEndpoint::Info() const { return {address_, own_buffer_}; }

// PD, buffer + MR, CQs, completion channel and SRQ (or the shared ones).
absl::Status LocalEndpoint::AddResources(ibv_context* context, const PairOptions& options) {
  const SharedObjects& shared = options.passive_shared;
  if (shared.pd != nullptr) {
    if (shared.pd->context != context) {
      return absl::InvalidArgumentError("SharedObjects live on another verbs context than the pair (see PairContext)");
    }
    pd_ = shared.pd;
  } else {
    RDMACHECK_ASSIGN_OR_RETURN(own_pd_, AllocPd(context));
    pd_ = own_pd_.get();
  }
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* memory = nullptr;
  if (posix_memalign(&memory, page, std::max(options.buffer_size, page)) != 0) {
    return absl::ResourceExhaustedError(absl::StrCat("cannot allocate a ", options.buffer_size, "-byte buffer"));
  }
  buffer_.reset(static_cast<uint8_t*>(memory));
  RDMACHECK_ASSIGN_OR_RETURN(mr_, RegMr(pd_, memory, options.buffer_size, options.mr_access));
  own_buffer_ = {reinterpret_cast<uint64_t>(memory), mr_->rkey, static_cast<uint32_t>(options.buffer_size)};
  if (options.use_comp_channel) {
    RDMACHECK_ASSIGN_OR_RETURN(channel_, CreateCompChannel(context));
  }
  if (shared.send_cq != nullptr) {
    send_cq_ = shared.send_cq;
  } else {
    RDMACHECK_ASSIGN_OR_RETURN(own_send_cq_,
                               CreateCq(context, static_cast<int>(options.max_send_wr) + 1, channel_.get()));
    send_cq_ = own_send_cq_.get();
    ForgetPolled(send_cq_);  // a destroyed CQ's address may come back
  }
  if (shared.recv_cq != nullptr) {
    recv_cq_ = shared.recv_cq;
  } else {
    RDMACHECK_ASSIGN_OR_RETURN(own_recv_cq_,
                               CreateCq(context, static_cast<int>(options.max_recv_wr) + 1, channel_.get()));
    recv_cq_ = own_recv_cq_.get();
    ForgetPolled(recv_cq_);
  }
  if (shared.srq != nullptr) {
    srq_ = shared.srq;
  } else if (options.use_srq) {
    ibv_srq_init_attr attr{};
    attr.attr.max_wr = options.max_recv_wr;
    attr.attr.max_sge = options.max_recv_sge;
    RDMACHECK_ASSIGN_OR_RETURN(own_srq_, CreateSrq(pd_, attr));
    srq_ = own_srq_.get();
    ForgetPosts(srq_);  // a destroyed SRQ's address may come back
  }
  return absl::OkStatus();
}

ibv_qp_init_attr_ex LocalEndpoint::InitAttr(const PairOptions& options) const {
  ibv_qp_init_attr_ex attr{};
  attr.qp_type = options.qp_type;
  attr.send_cq = send_cq_;
  attr.recv_cq = recv_cq_;
  attr.srq = srq_;
  attr.cap.max_send_wr = options.max_send_wr;
  attr.cap.max_send_sge = options.max_send_sge;
  attr.cap.max_recv_wr = srq_ != nullptr ? 0 : options.max_recv_wr;
  attr.cap.max_recv_sge = srq_ != nullptr ? 0 : options.max_recv_sge;
  attr.cap.max_inline_data = options.max_inline_data;
  attr.sq_sig_all = options.sq_sig_all ? 1 : 0;
  attr.comp_mask = IBV_QP_INIT_ATTR_PD;
  attr.pd = pd_;
  if (options.send_ops_flags != 0) {
    attr.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
    attr.send_ops_flags = options.send_ops_flags;
  }
  return attr;
}

absl::Status LocalEndpoint::CreateQp(const PairOptions& options) {
  ibv_qp_init_attr_ex attr = InitAttr(options);
  ibv_qp* qp = ibv_create_qp_ex(context(), &attr);
  if (qp == nullptr) {
    return ErrnoStatus(errno, absl::StrCat("ibv_create_qp_ex(type ", options.qp_type, ", send_ops_flags 0x",
                                           absl::Hex(options.send_ops_flags), ")"));
  }
  owned_qp_.reset(qp);
  qp_ = qp;
  ForgetPosts(qp_);  // a destroyed QP's number may come back
  granted_cap_ = attr.cap;
  if (options.send_ops_flags != 0) qp_ex_ = ibv_qp_to_qp_ex(qp_);
  address_.qp_num = qp_->qp_num;
  return absl::OkStatus();
}

absl::StatusOr<EndpointInfo> LocalEndpoint::Prepare(const PairOptions& options) {
  RDMACHECK_RETURN_IF_ERROR(AddResources(device_context_, options));
  RDMACHECK_RETURN_IF_ERROR(CreateQp(options));
  // Distinct start PSNs per QP, so that a PSN mix-up between the two sides shows.
  address_ = {qp_->qp_num, selection_.port_attr.lid, selection_.gid.gid, (qp_->qp_num * 0x1111u + 0x1234u) & 0xffffff};
  qkey_ = options.path.qkey;
  return Info();
}

absl::Status LocalEndpoint::SetPeer(const EndpointInfo& peer, const PairOptions& options) {
  peer_address_ = peer.address;
  peer_buffer_ = peer.buffer;
  if (options.qp_type == IBV_QPT_UD && !peer_ah_) {
    RDMACHECK_ASSIGN_OR_RETURN(peer_ah_, CreateAh(pd_, AddressTo(peer_address_, Path(options))));
  }
  return absl::OkStatus();
}

absl::Status LocalEndpoint::Wire(const EndpointInfo& peer, const PairOptions& options) {
  if (qp_ == nullptr) return absl::FailedPreconditionError("Wire() before Prepare()");
  RDMACHECK_RETURN_IF_ERROR(BringUp(qp_, peer.address, address_.psn, Path(options)));
  return SetPeer(peer, options);
}

absl::Status LocalEndpoint::RangeCheck(Slice where) const {
  if (where.offset > own_buffer_.length || where.length > own_buffer_.length - where.offset) {
    return absl::OutOfRangeError(absl::StrCat("bytes [", where.offset, ", ", where.offset + where.length,
                                              ") are outside the ", own_buffer_.length, "-byte buffer"));
  }
  return absl::OkStatus();
}

absl::Status LocalEndpoint::Fill(Slice where, Pattern pattern) {
  RDMACHECK_RETURN_IF_ERROR(RangeCheck(where));
  FillPattern(buffer().subspan(where.offset, where.length), pattern);
  return absl::OkStatus();
}

absl::Status LocalEndpoint::Check(Slice where, Pattern pattern) const {
  RDMACHECK_RETURN_IF_ERROR(RangeCheck(where));
  absl::Status s = CheckPattern(buffer().subspan(where.offset, where.length), pattern);
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("buffer bytes [", where.offset, ", ", where.offset + where.length,
                                             "): ", s.message()));
}

absl::StatusOr<std::vector<uint8_t>> LocalEndpoint::Read(Slice where) const {
  RDMACHECK_RETURN_IF_ERROR(RangeCheck(where));
  auto bytes = buffer().subspan(where.offset, where.length);
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

absl::Status LocalEndpoint::Write(size_t offset, absl::Span<const uint8_t> bytes) {
  RDMACHECK_RETURN_IF_ERROR(RangeCheck({offset, static_cast<uint32_t>(bytes.size())}));
  std::copy(bytes.begin(), bytes.end(), buffer().begin() + offset);
  return absl::OkStatus();
}

absl::Status LocalEndpoint::DoPostRecv(uint64_t wr_id, absl::Span<const Slice> sges) {
  return PostRecvSlices(qp_, srq_, mr_.get(), wr_id, sges);
}

absl::Status LocalEndpoint::DoPost(absl::Span<const SendRequest> requests) {
  if (qp_->qp_type != IBV_QPT_UD) return PostSendRequests(qp_, mr_.get(), requests);
  UdAddress ud{peer_ah_.get(), peer_address_.qp_num, qkey_};
  return PostSendRequests(qp_, mr_.get(), requests, &ud);
}

absl::Status LocalEndpoint::PostSend(ibv_send_wr& wr, ibv_send_wr** bad_wr) {
  if (qp_->qp_type == IBV_QPT_UD) {
    for (ibv_send_wr* w = &wr; w != nullptr; w = w->next) {
      w->wr.ud.ah = peer_ah_.get();
      w->wr.ud.remote_qpn = peer_address_.qp_num;
      w->wr.ud.remote_qkey = qkey_;
    }
  }
  return rdmacheck::PostSend(qp_, wr, bad_wr);
}

absl::StatusOr<std::vector<ibv_wc>> LocalEndpoint::PollSends(int count, absl::Duration timeout) {
  return PollCompletions(send_cq(), count, timeout);
}

absl::StatusOr<std::vector<ibv_wc>> LocalEndpoint::PollRecvs(int count, absl::Duration timeout) {
  return PollCompletions(recv_cq(), count, timeout);
}

absl::StatusOr<std::vector<ibv_wc>> LocalEndpoint::DrainSends(absl::Duration quiet) {
  return DrainCompletions(send_cq(), quiet);
}

absl::StatusOr<std::vector<ibv_wc>> LocalEndpoint::DrainRecvs(absl::Duration quiet) {
  return DrainCompletions(recv_cq(), quiet);
}

}  // namespace rdmacheck
