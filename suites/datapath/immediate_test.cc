// Immediate data and remote invalidation: the 32 bits (or the rkey) that ride along with a
// SEND or RDMA WRITE reach the receive completion.
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include <vector>

#include "testing/completion_matchers.h"
#include "testing/message_sizes.h"
#include "testing/pair_test.h"
#include "testing/refusal_status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {


class ImmediateTest : public PairTest {};

RDMACHECK_ABOUT(ImmediateTest, SendWithImmDeliversTheImmediate,
                "a 300-byte SEND with immediate arrives intact; its receive completion is IBV_WC_RECV with "
                "IBV_WC_WITH_IMM and imm_data equal to the sent value (network byte order)",
                "IBTA Vol 1 9.4.1 (SEND with immediate), 11.4.2.1; ibv_poll_cq(3) imm_data", Cap::kRcQp,
                Cap::kSendWithImm);
TEST_P(ImmediateTest, SendWithImmDeliversTheImmediate) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK(pair.local().Fill({0, 300}, Pattern::Seeded(12)));
  ASSERT_OK(pair.remote().PostRecv(2, 0, 300));
  ASSERT_OK(pair.local().Post(SendRequest::Send(1, {{0, 300}}).WithImm(kTestImmediate)));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(1, pair.local().qp_num())));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(2, pair.remote().qp_num(), 300).WithImm(kTestImmediate)));
  EXPECT_OK(pair.remote().Check({0, 300}, Pattern::Seeded(12)));
}

RDMACHECK_ABOUT(ImmediateTest, ZeroByteSendWithImm,
                "a SEND with immediate and no payload completes a receive with byte_len 0 and the immediate",
                "IBTA Vol 1 9.4.1; ibv_poll_cq(3)", Cap::kRcQp, Cap::kSendWithImm);
TEST_P(ImmediateTest, ZeroByteSendWithImm) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK(pair.remote().Fill({0, 64}, Pattern::Constant(0)));
  ASSERT_OK(pair.remote().PostRecv(2, 0, 64));
  ASSERT_OK(pair.local().Post(SendRequest::Send(1, {}).WithImm(kTestImmediate)));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(2, pair.remote().qp_num(), 0).WithImm(kTestImmediate)));
  EXPECT_OK(pair.remote().Check({0, 64}, Pattern::Constant(0)));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(1, pair.local().qp_num())));
}

RDMACHECK_ABOUT(ImmediateTest, WriteWithImmConsumesAReceive,
                "an RDMA WRITE with immediate puts its bytes at the remote address and consumes one posted "
                "receive, whose buffer stays untouched; the receive completion is IBV_WC_RECV_RDMA_WITH_IMM with "
                "byte_len = the bytes written and the immediate; the send completion is IBV_WC_RDMA_WRITE",
                "IBTA Vol 1 9.4.3 (RDMA WRITE with immediate consumes a receive WQE), 11.4.2.1; ibv_poll_cq(3)",
                Cap::kRcQp, Cap::kRdmaWrite, Cap::kWriteWithImm);
TEST_P(ImmediateTest, WriteWithImmConsumesAReceive) {
  constexpr uint32_t kSize = 1500;
  PairOptions options = Options();
  options.buffer_size = 8192;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, kSize}, Pattern::Seeded(21)));
  ASSERT_OK(pair.remote().Fill({0, 8192}, Pattern::Constant(0)));
  ASSERT_OK(pair.remote().PostRecv(5, 6000, 64));
  ASSERT_OK(pair.local().Post(
      SendRequest::Write(4, {{0, kSize}}, pair.local().peer_buffer().At(100, kSize)).WithImm(kTestImmediate)));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(4, pair.local().qp_num(), IBV_WC_RDMA_WRITE)));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv,
              CompletionIs(RecvCompletion(5, pair.remote().qp_num(), kSize, IBV_WC_RECV_RDMA_WITH_IMM).WithImm(kTestImmediate)));
  EXPECT_OK(pair.remote().Check({100, kSize}, Pattern::Seeded(21)));
  EXPECT_OK(pair.remote().Check({0, 100}, Pattern::Constant(0)));
  EXPECT_OK(pair.remote().Check({6000, 64}, Pattern::Constant(0)));
}

RDMACHECK_ABOUT(ImmediateTest, ZeroByteWriteWithImm,
                "an RDMA WRITE with immediate and no payload still consumes a receive and delivers the immediate "
                "with byte_len 0 (the usual 'doorbell' use)",
                "IBTA Vol 1 9.4.3; ibv_poll_cq(3)", Cap::kRcQp, Cap::kRdmaWrite, Cap::kWriteWithImm);
TEST_P(ImmediateTest, ZeroByteWriteWithImm) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK(pair.remote().PostRecv(5, 0, 64));
  ASSERT_OK(pair.local().Post(SendRequest::Write(4, {}, pair.local().peer_buffer().At(0, 0)).WithImm(kTestImmediate)));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv,
              CompletionIs(RecvCompletion(5, pair.remote().qp_num(), 0, IBV_WC_RECV_RDMA_WITH_IMM).WithImm(kTestImmediate)));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(4, pair.local().qp_num(), IBV_WC_RDMA_WRITE)));
}

RDMACHECK_ABOUT(ImmediateTest, ImmediatesKeepTheirOrder,
                "a run of SENDs and RDMA WRITEs with immediate, each with a different immediate, complete the "
                "receives in posting order with the matching immediates",
                "IBTA Vol 1 9.5, 10.8.3", Cap::kRcQp, Cap::kRdmaWrite, Cap::kSendWithImm, Cap::kWriteWithImm);
TEST_P(ImmediateTest, ImmediatesKeepTheirOrder) {
  constexpr int kCount = 12;
  PairOptions options = Options();
  options.max_send_wr = options.max_recv_wr = kCount;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, 32}, Pattern::Seeded(3)));
  std::vector<SendRequest> requests;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_OK(pair.remote().PostRecv(i, 2048 + 64 * i, 64));
    SendRequest r = i % 2 == 0 ? SendRequest::Send(i, {{0, 32}})
                               : SendRequest::Write(i, {{0, 32}}, pair.local().peer_buffer().At(64 * i, 32));
    requests.push_back(r.WithImm(kTestImmediate + i));
  }
  ASSERT_OK(pair.local().Post(requests));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> recvs, pair.remote().PollRecvs(kCount));
  for (int i = 0; i < kCount; ++i) {
    const ibv_wc_opcode opcode = i % 2 == 0 ? IBV_WC_RECV : IBV_WC_RECV_RDMA_WITH_IMM;
    EXPECT_THAT(recvs[i], CompletionIs(RecvCompletion(i, pair.remote().qp_num(), 32, opcode).WithImm(kTestImmediate + i)));
  }
  ASSERT_OK(pair.local().PollSends(kCount).status());
}

RDMACHECK_ABOUT(ImmediateTest, SendWithInvalidateRevokesTheRkey,
                "a SEND with invalidate naming the receiver's bound type 2 window (or, without windows, its MR) "
                "arrives with IBV_WC_WITH_INV and invalidated_rkey = that rkey; an RDMA WRITE with the rkey "
                "afterwards fails with IBV_WC_REM_ACCESS_ERR (on an impaired wire, also IBV_WC_RETRY_EXC_ERR: the "
                "NAK was lost and the retries met a responder in Error)",
                "IBTA Vol 1 10.6.7 (memory windows, remote invalidation), 9.7.6.1 (retry count); RFC 5040 (RDMAP "
                "Send with Invalidate); "
                "ibv_post_send(3) IBV_WR_SEND_WITH_INV, ibv_poll_cq(3) IBV_WC_WITH_INV",
                Cap::kRcQp, Cap::kRdmaWrite, Cap::kSendWithInv);
TEST_P(ImmediateTest, SendWithInvalidateRevokesTheRkey) {
  PairOptions options = Options();
  options.mr_access |= IBV_ACCESS_MW_BIND;
  options.path.retry_cnt = kRefusedRetryCnt;  // the last WRITE is refused
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  // The window is bound with verbs calls on the receiver's QP: the receiver is pair.local()
  // (in this process in every mode), the sender pair.remote() (the peer host in two-host mode).
  LocalEndpoint& receiver = pair.local();
  Endpoint& sender = pair.remote();
  // IBTA lets a SEND invalidate a type 2 window (or a fast-registered MR, which userspace
  // cannot make); iWARP any STag of the receiver's PD. Use a window where there are windows.
  MwPtr window;
  uint32_t rkey = receiver.mr()->rkey;
  if (Decide(profile(), Cap::kMwType2).available) {
    ASSERT_OK_AND_ASSIGN(window, AllocMw(receiver.pd(), IBV_MW_TYPE_2));
    ibv_send_wr bind = BindMwWr(70, window.get(), receiver.mr(), 0, 1024, IBV_ACCESS_REMOTE_WRITE);
    ASSERT_OK(receiver.PostSend(bind));
    ASSERT_OK_AND_ASSIGN(ibv_wc bound, receiver.PollSend());
    ASSERT_THAT(bound, CompletionIs(SendCompletion(70, receiver.qp_num(), IBV_WC_BIND_MW)));
    rkey = bind.bind_mw.rkey;
  }
  RecordProperty("invalidated", window ? "type 2 window" : "MR");
  const RemoteBuffer target{receiver.remote_buffer().addr, rkey, 64};
  ASSERT_OK(sender.Fill({0, 64}, Pattern::Seeded(5)));
  ASSERT_OK(sender.Post(SendRequest::Write(1, {{0, 64}}, target)));  // the rkey works before
  ASSERT_OK_AND_ASSIGN(ibv_wc wrote, sender.PollSend());
  ASSERT_THAT(wrote, CompletionIs(SendCompletion(1, sender.qp_num(), IBV_WC_RDMA_WRITE)));

  ASSERT_OK(receiver.PostRecv(2, 2048, 64));
  ASSERT_OK(sender.Post(SendRequest::Send(3, {{0, 64}}).WithInvalidate(rkey)));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, receiver.PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(2, receiver.qp_num(), 64).WithInvalidate(rkey)));
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, sender.PollSend());
  EXPECT_THAT(sent, CompletionIs(SendCompletion(3, sender.qp_num())));

  ASSERT_OK(sender.Post(SendRequest::Write(4, {{0, 64}}, target)));
  ASSERT_OK_AND_ASSIGN(ibv_wc refused, sender.PollSend());
  // The responder NAKs it (Remote Access Error); on an impaired wire the NAK may be lost.
  EXPECT_THAT(refused, CompletionIs(ErrorCompletion(4, sender.qp_num(), RefusalAsTold(refused, IBV_WC_REM_ACCESS_ERR))));
}

INSTANTIATE_TEST_SUITE_P(Connect, ImmediateTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
