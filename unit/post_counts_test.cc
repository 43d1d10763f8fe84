// The counts behind the end-of-test check's bound (harness/verbs/post.h, and the polls of
// harness/completion.cc), on verbs objects whose context is a fake provider: the inline
// verbs (ibv_post_send, ibv_poll_cq, ...) call the context's ops, so no device is needed.
// What matters: a wrapper returns what the verb returned and leaves bad_wr as it set it; it
// never counts fewer WRs than the device may complete (that would fail a correct device).
#include "harness/verbs/post.h"

#include <infiniband/verbs.h>

#include <cerrno>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/completion.h"
#include "harness/leftover_completions.h"

namespace rdmacheck {
namespace {

// The fake provider's answer to a post: `rc`, with bad_wr at WR `refuse_at` of the list
// (-1: bad_wr left alone).
struct Answer {
  int rc = 0;
  int refuse_at = -1;
};
Answer answer;

template <typename Wr>
int Answering(Wr* wr, Wr** bad_wr) {
  if (answer.refuse_at >= 0) {
    Wr* w = wr;
    for (int i = 0; i < answer.refuse_at && w != nullptr; ++i) w = w->next;
    *bad_wr = w;
  }
  return answer.rc;
}

// Completions the fake CQ hands out, first to last.
std::vector<ibv_wc> queued;
int FakePoll(ibv_cq*, int n, ibv_wc* wc) {
  int got = 0;
  while (got < n && !queued.empty()) {
    wc[got++] = queued.front();
    queued.erase(queued.begin());
  }
  return got;
}

class PostCountsTest : public ::testing::Test {
 protected:
  PostCountsTest() {
    answer = Answer{};
    queued.clear();
    for (ibv_context* c : {&context_, &other_context_}) {
      c->ops.post_send = [](ibv_qp*, ibv_send_wr* wr, ibv_send_wr** bad) { return Answering(wr, bad); };
      c->ops.post_recv = [](ibv_qp*, ibv_recv_wr* wr, ibv_recv_wr** bad) { return Answering(wr, bad); };
      c->ops.post_srq_recv = [](ibv_srq*, ibv_recv_wr* wr, ibv_recv_wr** bad) { return Answering(wr, bad); };
      c->ops.bind_mw = [](ibv_qp*, ibv_mw*, ibv_mw_bind*) { return answer.rc; };
      c->ops.poll_cq = FakePoll;
    }
    qp_.context = &context_;
    qp_.qp_num = 17;
    srq_.context = &context_;
    cq_.context = &context_;
    ForgetPosts(&qp_);
    ForgetPosts(&srq_);
    ForgetPolled(&cq_);
  }
  ~PostCountsTest() override {
    ForgetPosts(&qp_);
    ForgetPosts(&srq_);
    ForgetPolled(&cq_);
  }

  // A linked list of `n` send WRs, the odd ones unsignaled.
  std::vector<ibv_send_wr> SendList(int n) {
    std::vector<ibv_send_wr> wrs(n);
    for (int i = 0; i < n; ++i) {
      wrs[i].wr_id = i;
      wrs[i].send_flags = i % 2 == 0 ? IBV_SEND_SIGNALED : 0;
      wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
    }
    return wrs;
  }
  std::vector<ibv_recv_wr> RecvList(int n) {
    std::vector<ibv_recv_wr> wrs(n);
    for (int i = 0; i < n; ++i) wrs[i].next = i + 1 < n ? &wrs[i + 1] : nullptr;
    return wrs;
  }

  ibv_context context_{};
  ibv_context other_context_{};
  ibv_qp qp_{};
  ibv_srq srq_{};
  ibv_cq cq_{};
};

// Unsignaled WRs count: one that fails completes all the same (ibv_post_send(3)).
TEST_F(PostCountsTest, AnAcceptedListCountsEveryWrSignaledOrNot) {
  std::vector<ibv_send_wr> wrs = SendList(3);
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(PostSend(&qp_, wrs.data(), &bad), 0);
  EXPECT_EQ(bad, nullptr);
  EXPECT_EQ(PostedTo(&qp_).send, 3u);
  EXPECT_EQ(PostedTo(&qp_).recv, 0u);
  EXPECT_TRUE(PostedTo(&qp_).counted);
}

TEST_F(PostCountsTest, ARefusedListCountsTheWrsBeforeBadWr) {
  std::vector<ibv_send_wr> wrs = SendList(4);
  answer = {ENOMEM, 2};
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(PostSend(&qp_, wrs.data(), &bad), ENOMEM);
  EXPECT_EQ(bad, &wrs[2]) << "bad_wr as the verb set it";
  EXPECT_EQ(PostedTo(&qp_).send, 2u);
}

// A provider that returns a negative value: the test of the return value sees it unchanged.
TEST_F(PostCountsTest, TheVerbsOwnReturnValuePassesThrough) {
  std::vector<ibv_recv_wr> wrs = RecvList(1);
  answer = {-EINVAL, 0};
  ibv_recv_wr* bad = nullptr;
  EXPECT_EQ(PostRecv(&qp_, wrs.data(), &bad), -EINVAL);
  EXPECT_EQ(bad, &wrs[0]);
  EXPECT_EQ(PostedTo(&qp_).recv, 0u);
}

// A failure whose bad_wr names none of the list (left null, or pointing elsewhere) says
// nothing of what was posted: all count, never too few.
TEST_F(PostCountsTest, ABadWrOutsideTheListCountsTheWholeList) {
  std::vector<ibv_send_wr> wrs = SendList(3);
  answer = {EINVAL, -1};
  ibv_send_wr* bad = nullptr;
  EXPECT_EQ(PostSend(&qp_, wrs.data(), &bad), EINVAL);
  EXPECT_EQ(bad, nullptr);
  EXPECT_EQ(PostedTo(&qp_).send, 3u);
}

TEST_F(PostCountsTest, QueuesAreCountedApart) {
  std::vector<ibv_recv_wr> recvs = RecvList(2);
  std::vector<ibv_recv_wr> srq_recvs = RecvList(5);
  ibv_recv_wr* bad = nullptr;
  ASSERT_EQ(PostRecv(&qp_, recvs.data(), &bad), 0);
  ASSERT_EQ(PostSrqRecv(&srq_, srq_recvs.data(), &bad), 0);
  EXPECT_EQ(PostedTo(&qp_).recv, 2u);
  EXPECT_EQ(PostedTo(&qp_).send, 0u);
  EXPECT_EQ(PostedTo(&srq_), 5u);
}

// Completions name a QP by number, unique on one device only; a new QP (or SRQ) may get a
// destroyed one's number (or address) and starts from nothing.
TEST_F(PostCountsTest, CountsArePerDeviceAndForgotten) {
  ibv_qp same_number{};
  same_number.context = &other_context_;
  same_number.qp_num = qp_.qp_num;
  ForgetPosts(&same_number);
  std::vector<ibv_send_wr> wrs = SendList(2);
  ibv_send_wr* bad = nullptr;
  ASSERT_EQ(PostSend(&qp_, wrs.data(), &bad), 0);
  EXPECT_EQ(PostedTo(&same_number).send, 0u);
  ForgetPosts(&qp_);
  EXPECT_EQ(PostedTo(&qp_).send, 0u);
  std::vector<ibv_recv_wr> recvs = RecvList(1);
  ibv_recv_wr* bad_recv = nullptr;
  ASSERT_EQ(PostSrqRecv(&srq_, recvs.data(), &bad_recv), 0);
  ForgetPosts(&srq_);
  EXPECT_EQ(PostedTo(&srq_), 0u);
}

TEST_F(PostCountsTest, AQpPostedToUncountedHasNoBound) {
  MarkUncounted(&qp_);
  EXPECT_FALSE(PostedTo(&qp_).counted);
  ForgetPosts(&qp_);  // a new QP with the number
  EXPECT_TRUE(PostedTo(&qp_).counted);
}

// The extended API: the batch counts whatever ibv_wr_complete returns (what a failed one
// posted is not said: never too few).
TEST_F(PostCountsTest, AnExtendedBatchCountsWhateverItsCompleteReturns) {
  ibv_qp_ex qpx{};
  qpx.qp_base.context = &context_;
  qpx.qp_base.qp_num = qp_.qp_num;
  qpx.wr_complete = [](ibv_qp_ex*) { return EINVAL; };
  EXPECT_EQ(WrComplete(&qpx, 16), EINVAL);
  EXPECT_EQ(PostedTo(&qp_).send, 16u);
}

// ibv_bind_mw posts a bind WR on the send queue: it counts, refused or not.
TEST_F(PostCountsTest, ABindCountsOneSendWr) {
  ibv_mw type1{};
  type1.context = &context_;
  type1.type = IBV_MW_TYPE_1;
  ibv_mw type2 = type1;
  type2.type = IBV_MW_TYPE_2;
  ibv_mw_bind bind{};
  EXPECT_EQ(BindMw(&qp_, &type1, &bind), 0);
  EXPECT_EQ(BindMw(&qp_, &type2, &bind), EINVAL) << "ibv_bind_mw refuses a type 2 window";
  EXPECT_EQ(PostedTo(&qp_).send, 2u);
}

// Every harness poll counts what it took, per CQ and qp_num: the "polled during the test"
// of the bound.
TEST_F(PostCountsTest, HarnessPollsCountTheirCompletionsPerQp) {
  for (uint32_t qp_num : {17u, 17u, 18u, 17u}) {
    ibv_wc wc{};
    wc.qp_num = qp_num;
    queued.push_back(wc);
  }
  ASSERT_TRUE(PollCompletions(&cq_, 2).ok());
  EXPECT_TRUE(WasPolled(&cq_));
  EXPECT_EQ(PolledFrom(&cq_, 17), 2u);
  EXPECT_EQ(DrainCompletions(&cq_, absl::ZeroDuration()).size(), 2u);
  EXPECT_EQ(PolledFrom(&cq_, 17), 3u);
  EXPECT_EQ(PolledFrom(&cq_, 18), 1u);
}

}  // namespace
}  // namespace rdmacheck
