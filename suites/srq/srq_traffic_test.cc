// Shared receive queues in use: posting chains, the limit event, and what a QP attached to
// an SRQ may and may not do. Needs capabilities srq and rc_qp.
#include <infiniband/verbs.h>

#include <cerrno>
#include <vector>

#include "harness/completion.h"
#include "harness/connection/qp_attr.h"
#include "harness/verbs/post.h"
#include "testing/async_events.h"
#include "testing/completion_source.h"
#include "testing/device_test.h"
#include "testing/in_child.h"

namespace rdmacheck {
namespace {

// An RC pair whose receives go to an SRQ on each side; pair.local()'s SRQ is the one under
// test, pair.remote() sends.
class SrqTrafficTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    PairOptions options = CompletionSourceOptions(16);
    options.use_srq = true;
    ASSERT_OK_AND_ASSIGN(pair_, CreatePair(options));
  }
  LocalEndpoint& receiver() { return pair_->local(); }
  ibv_srq* srq() { return pair_->local().srq(); }

  // Sends `count` messages into receives already posted on the receiver's SRQ.
  void SendPosted(int count, uint64_t first_wr_id = kFirstWrId) {
    for (int i = 0; i < count; ++i) {
      ASSERT_OK(pair_->remote().Post(SendRequest::Send(first_wr_id + i, {{0, kMessageBytes}})));
    }
    ASSERT_OK(pair_->remote().PollSends(count).status());
  }

  // Posts 4 receives, arms the limit at 3 and consumes 2 of them: the SRQ drops below its
  // limit, and IBV_EVENT_SRQ_LIMIT_REACHED for it is due. Returns how waiting for it went.
  absl::Status ConsumeBelowArmedLimit() {
    for (int i = 0; i < 4; ++i) {
      RDMACHECK_RETURN_IF_ERROR(receiver().PostRecv(kFirstWrId + i, i * kMessageBytes, kMessageBytes));
    }
    ibv_srq_attr attr{};
    attr.srq_limit = 3;
    if (int rc = ibv_modify_srq(srq(), &attr, IBV_SRQ_LIMIT); rc != 0) {
      return ErrnoStatus(rc, "ibv_modify_srq(srq_limit 3)");
    }
    SendPosted(2);
    if (HasFatalFailure()) return absl::AbortedError("the sends into the SRQ failed");
    RDMACHECK_RETURN_IF_ERROR(PollCompletions(receiver().recv_cq(), 2).status());
    ibv_srq* armed = srq();
    return WaitForAsyncEvent(receiver().context(), IBV_EVENT_SRQ_LIMIT_REACHED,
                             [armed](const ibv_async_event& e) { return e.element.srq == armed; })
        .status();
  }

  absl::optional<ConnectedPair> pair_;
};

RDMACHECK_ABOUT(SrqTrafficTest, LimitReachedEvent,
                "with 4 receives on the SRQ and the limit armed at 3, consuming 2 raises IBV_EVENT_SRQ_LIMIT_REACHED "
                "for that SRQ",
                "ibv_modify_srq(3) srq_limit; ibv_get_async_event(3) IBV_EVENT_SRQ_LIMIT_REACHED; IBTA Vol 1 "
                "10.2.9.4 (SRQ limit)",
                Cap::kSrq, Cap::kRcQp);
TEST_F(SrqTrafficTest, LimitReachedEvent) {
  EXPECT_OK(ConsumeBelowArmedLimit());
}

RDMACHECK_ABOUT(SrqTrafficTest, LimitEventDisarms,
                "after IBV_EVENT_SRQ_LIMIT_REACHED the SRQ is disarmed: ibv_query_srq reports srq_limit 0",
                "ibv_query_srq(3): \"If the value returned for srq_limit is 0, then the SRQ limit reached event is "
                "not (or no longer) armed\"; ibv_modify_srq(3)",
                Cap::kSrq, Cap::kRcQp);
TEST_F(SrqTrafficTest, LimitEventDisarms) {
  ASSERT_OK(ConsumeBelowArmedLimit());
  ibv_srq_attr attr{};
  ASSERT_THAT(ibv_query_srq(srq(), &attr), ErrnoIs(0));
  EXPECT_EQ(attr.srq_limit, 0u) << "the SRQ still reports an armed limit after its event";
}

// A chain of three receive WRs whose middle one has more SGEs than any SRQ of the device
// may take.
struct BadChain {
  std::vector<ibv_sge> sges;
  ibv_recv_wr wrs[3]{};

  BadChain(Endpoint& e, int bad_sges) : sges(bad_sges, e.Sge(0, 8)) {
    for (int i = 0; i < 3; ++i) {
      wrs[i].wr_id = kFirstWrId + i;
      wrs[i].sg_list = sges.data();
      wrs[i].num_sge = i == 1 ? bad_sges : 1;
      wrs[i].next = i < 2 ? &wrs[i + 1] : nullptr;
    }
    sges[0] = e.Sge(0, kMessageBytes);
  }
};

RDMACHECK_ABOUT(SrqTrafficTest, PostChainStopsAtBadWr,
                "ibv_post_srq_recv of [good, too many SGEs, good] fails, sets bad_wr to the middle WR, and the first "
                "WR was posted (a SEND completes into it)",
                "ibv_post_srq_recv(3): \"bad_wr ... the first WR that could not be posted\"", Cap::kSrq,
                Cap::kRcQp);
TEST_F(SrqTrafficTest, PostChainStopsAtBadWr) {
  BadChain chain(receiver(), device_attr().orig_attr.max_srq_sge + 1);
  ibv_recv_wr* bad = nullptr;
  const int rc = PostSrqRecv(srq(), &chain.wrs[0], &bad);
  EXPECT_NE(rc, 0) << "a WR with max_srq_sge+1 SGEs was accepted";
  EXPECT_EQ(bad, &chain.wrs[1]) << "bad_wr does not point at the invalid WR";
  SendPosted(1);
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, PollCompletion(receiver().recv_cq()));
  EXPECT_EQ(wc.status, IBV_WC_SUCCESS) << DescribeWc(wc);
  EXPECT_EQ(wc.wr_id, kFirstWrId) << "the WR before the bad one was not posted";
}

RDMACHECK_ABOUT(SrqTrafficTest, PostFailureReturnsErrnoValue,
                "ibv_post_srq_recv of a WR with too many SGEs returns EINVAL, a positive errno value",
                "ibv_post_srq_recv(3): \"returns 0 on success, or the value of errno on failure\"", Cap::kSrq,
                Cap::kRcQp);
TEST_F(SrqTrafficTest, PostFailureReturnsErrnoValue) {
  BadChain chain(receiver(), device_attr().orig_attr.max_srq_sge + 1);
  ibv_recv_wr* bad = nullptr;
  EXPECT_THAT(PostSrqRecv(srq(), &chain.wrs[1], &bad), ErrnoIs(EINVAL));
}

RDMACHECK_ABOUT(SrqTrafficTest, QpOnSrqRejectsPostRecv,
                "ibv_post_recv on a QP whose receives go to an SRQ fails with an errno value, without crashing",
                "IBTA Vol 1 10.2.9 (a QP associated with an SRQ has no receive queue of its own); ibv_post_recv(3)",
                Cap::kSrq, Cap::kRcQp);
TEST_F(SrqTrafficTest, QpOnSrqRejectsPostRecv) {
  ibv_sge sge = receiver().Sge(0, kMessageBytes);
  ibv_recv_wr wr = RecvWr(kFirstWrId, &sge, 1);
  ibv_recv_wr* bad = nullptr;
  // In a child: a provider that crashes here must fail this test, not the suite. The raw
  // verb there (no count reaches this process): the QP's completions are judged unbounded.
  MarkUncounted(receiver().qp());
  absl::StatusOr<int64_t> rc = CallInChild([&] { return ibv_post_recv(receiver().qp(), &wr, &bad); }, DefaultWait());
  ASSERT_THAT(rc, IsOk()) << "ibv_post_recv on a QP attached to an SRQ must return, not kill the caller";
  EXPECT_GT(*rc, 0) << "ibv_post_recv returned " << *rc << ": want a (positive) errno value";
  RecordProperty("errno", ErrnoName(static_cast<int>(*rc)));
}

RDMACHECK_ABOUT(SrqTrafficTest, RejectedPostRecvSetsBadWr,
                "when ibv_post_recv on a QP attached to an SRQ is refused, bad_wr points at the refused (first) WR",
                "ibv_post_recv(3): \"bad_wr ... the first WR that could not be posted\"", Cap::kSrq, Cap::kRcQp);
TEST_F(SrqTrafficTest, RejectedPostRecvSetsBadWr) {
  ibv_sge sge = receiver().Sge(0, kMessageBytes);
  ibv_recv_wr wr = RecvWr(kFirstWrId, &sge, 1);
  enum : int64_t { kAccepted, kBadWrIsTheWr, kBadWrIsNot };
  MarkUncounted(receiver().qp());  // posted in a child: see QpOnSrqRejectsPostRecv
  absl::StatusOr<int64_t> outcome = CallInChild(
      [&]() -> int64_t {
        ibv_recv_wr* bad = nullptr;
        if (ibv_post_recv(receiver().qp(), &wr, &bad) == 0) return kAccepted;
        return bad == &wr ? kBadWrIsTheWr : kBadWrIsNot;
      },
      DefaultWait());
  ASSERT_THAT(outcome, IsOk()) << "ibv_post_recv on a QP attached to an SRQ must return, not kill the caller";
  if (*outcome == kAccepted) GTEST_SKIP() << "the receive was accepted (QpOnSrqRejectsPostRecv reports that)";
  EXPECT_EQ(*outcome, kBadWrIsTheWr) << "bad_wr does not point at the refused WR";
}

RDMACHECK_ABOUT(SrqTrafficTest, LastWqeReachedOnError,
                "moving a QP attached to an SRQ to the error state raises IBV_EVENT_QP_LAST_WQE_REACHED for that QP",
                "IBTA Vol 1 10.3.1 and 11.6.3 (Last WQE Reached, for QPs on an SRQ); ibv_get_async_event(3)",
                Cap::kSrq, Cap::kRcQp);
TEST_F(SrqTrafficTest, LastWqeReachedOnError) {
  ibv_qp* qp = receiver().qp();
  ASSERT_OK(ModifyQp(qp, QpAttr().set_state(IBV_QPS_ERR)));
  EXPECT_OK(WaitForAsyncEvent(receiver().context(), IBV_EVENT_QP_LAST_WQE_REACHED,
                              [qp](const ibv_async_event& e) { return e.element.qp == qp; }, LocalEventWait()));
}

}  // namespace
}  // namespace rdmacheck
