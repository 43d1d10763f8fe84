// RC SEND/RECV over every way of connecting: the bytes arrive, in order, and every
// completion field says what happened.
#include <infiniband/verbs.h>

#include <algorithm>
#include <vector>

#include "testing/completion_matchers.h"
#include "testing/message_sizes.h"
#include "testing/pair_test.h"
#include "testing/quiet_window.h"

namespace rdmacheck {
namespace {


class RcSendSizeTest : public PairTestWith<MessageSize> {};

RDMACHECK_ABOUT(RcSendSizeTest, SendArrivesIntact,
                "a SEND of each size (0, 1, MTU-1, MTU, MTU+1, 64 KiB, 1 MiB, the largest message) lands in a "
                "receive of exactly that size byte for byte, the bytes after it untouched; the receive completion "
                "reports IBV_WC_RECV, the size, its wr_id and QP, no immediate; the send completion IBV_WC_SEND",
                "IBTA Vol 1 9.4.1 (SEND), 10.7.3, 11.4.2.1 (Poll CQ); ibv_post_send(3), ibv_poll_cq(3)", Cap::kRcQp);
TEST_P(RcSendSizeTest, SendArrivesIntact) {
  const uint32_t bytes = MessageBytes(param(), selection());
  RecordProperty("bytes", static_cast<int>(bytes));
  PairOptions options = Options();
  options.buffer_size = BufferFor(bytes + kCanaryBytes);
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, bytes}, Pattern::Seeded(bytes)));
  ASSERT_OK(pair.remote().Fill({0, bytes + kCanaryBytes}, Pattern::Constant(0)));

  // A zero-byte message has no SGE (a zero-length SGE means 2 GiB to some devices); its
  // receive has room (ZeroByteSendIntoReceiveWithoutSges covers a receive without SGEs).
  ASSERT_OK(pair.remote().PostRecv(/*wr_id=*/21, 0, bytes > 0 ? bytes : kCanaryBytes));
  ASSERT_OK(pair.local().Post(SendRequest::Send(/*wr_id=*/11, bytes > 0 ? std::vector<Slice>{{0, bytes}}
                                                                        : std::vector<Slice>{})));

  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(11, pair.local().qp_num())));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(21, pair.remote().qp_num(), bytes)));
  EXPECT_OK(pair.remote().Check({0, bytes}, Pattern::Seeded(bytes)));
  EXPECT_OK(pair.remote().Check({bytes, kCanaryBytes}, Pattern::Constant(0)));
}

INSTANTIATE_TEST_SUITE_P(Connect, RcSendSizeTest,
                         ::testing::Combine(AllConnectMethods(), ::testing::ValuesIn(AllMessageSizes())),
                         PairParamName<MessageSize>);

class RcSendTest : public PairTest {};

RDMACHECK_ABOUT(RcSendTest, ManyMessagesInFlight,
                "64 SENDs posted as one list against 64 posted receives (queues 64 deep) all arrive, each in the "
                "receive posted in the same position, with its own bytes",
                "IBTA Vol 1 10.8.3 (ordering of completions), 9.5 (RC ordering); ibv_post_send(3)", Cap::kRcQp);
TEST_P(RcSendTest, ManyMessagesInFlight) {
  constexpr int kDepth = 64;
  constexpr uint32_t kSize = 256;
  PairOptions options = Options();
  options.max_send_wr = options.max_recv_wr = kDepth;
  options.buffer_size = kDepth * kSize;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  std::vector<SendRequest> sends;
  for (int i = 0; i < kDepth; ++i) {
    const Slice slot{i * kSize, kSize};
    ASSERT_OK(pair.local().Fill(slot, Pattern::Seeded(100 + i)));
    ASSERT_OK(pair.remote().PostRecv(1000 + i, {slot}));
    sends.push_back(SendRequest::Send(i, {slot}));
  }
  ASSERT_OK(pair.local().Post(sends));

  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> send_wcs, pair.local().PollSends(kDepth));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> recv_wcs, pair.remote().PollRecvs(kDepth));
  for (int i = 0; i < kDepth; ++i) {
    EXPECT_THAT(send_wcs[i], CompletionIs(SendCompletion(i, pair.local().qp_num()))) << "send " << i;
    EXPECT_THAT(recv_wcs[i], CompletionIs(RecvCompletion(1000 + i, pair.remote().qp_num(), kSize))) << "receive " << i;
    EXPECT_OK(pair.remote().Check({i * kSize, kSize}, Pattern::Seeded(100 + i))) << "message " << i;
  }
}

RDMACHECK_ABOUT(RcSendTest, EachSendAcknowledgedAloneCompletesOnce,
                "32 SENDs, each waited for before the next is posted, each complete once at both ends, in the "
                "receive posted for them, with their bytes; one more receive posted stays unconsumed. With nothing "
                "behind it, each SEND's ACK is the only one that acknowledges it: on a wire that loses ACKs "
                "(scripts/wire-lab.sh --impair=ack-loss) the requester's ACK timer resends it, and the responder, "
                "which has it already, acknowledges the duplicate without delivering it again",
                "IBTA Vol 1 9.7.6.1 (ACK timer: the requester resends what is not acknowledged), 9.7.5.1 "
                "(responder: a duplicate request is acknowledged again, not executed again), 10.8.3",
                Cap::kRcQp);
TEST_P(RcSendTest, EachSendAcknowledgedAloneCompletesOnce) {
  constexpr int kCount = 32;  // SENDs, one at a time
  PairOptions options = Options();
  constexpr uint32_t kSize = 64;
  options.max_recv_wr = kCount + 1;
  options.buffer_size = (kCount + 1) * kSize;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  // A duplicate delivered again would take the next receive (and its slot) out of turn.
  for (int i = 0; i <= kCount; ++i) ASSERT_OK(pair.remote().PostRecv(1000 + i, i * kSize, kSize));
  for (int i = 0; i < kCount; ++i) {
    const Slice slot{i * kSize, kSize};
    ASSERT_OK(pair.local().Fill(slot, Pattern::Seeded(200 + i)));
    ASSERT_OK(pair.local().Post(SendRequest::Send(i, {slot})));
    ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
    EXPECT_THAT(send, CompletionIs(SendCompletion(i, pair.local().qp_num()))) << "send " << i;
    ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
    EXPECT_THAT(recv, CompletionIs(RecvCompletion(1000 + i, pair.remote().qp_num(), kSize))) << "receive " << i;
    EXPECT_OK(pair.remote().Check(slot, Pattern::Seeded(200 + i))) << "message " << i;
  }
  // The last SEND's completion came with the ACK of its last copy: a copy delivered again
  // arrived before it.
  const QuietWindow quiet = QuietWindowForCompletions();
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> extra, pair.remote().DrainRecvs(quiet.duration));
  EXPECT_TRUE(extra.empty()) << "a SEND was delivered twice " << quiet << ": " << DescribeWc(extra.front());
}

RDMACHECK_ABOUT(RcSendTest, SqSigAllSignalsEveryRequest,
                "on a QP created with sq_sig_all, SENDs posted without IBV_SEND_SIGNALED still each produce a send "
                "completion",
                "IBTA Vol 1 11.2.4.1 (Create QP: signaling type); ibv_create_qp(3) sq_sig_all", Cap::kRcQp);
TEST_P(RcSendTest, SqSigAllSignalsEveryRequest) {
  constexpr int kCount = 4;
  PairOptions options = Options();
  options.sq_sig_all = true;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, 64}, Pattern::Seeded(3)));
  for (int i = 0; i < kCount; ++i) {
    ASSERT_OK(pair.remote().PostRecv(50 + i, i * 64, 64));
    ASSERT_OK(pair.local().Post(SendRequest::Send(i, {{0, 64}}).WithFlags(0)));
  }
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> sends, pair.local().PollSends(kCount));
  for (int i = 0; i < kCount; ++i) EXPECT_THAT(sends[i], CompletionIs(SendCompletion(i, pair.local().qp_num())));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> recvs, pair.remote().PollRecvs(kCount));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_THAT(recvs[i], CompletionIs(RecvCompletion(50 + i, pair.remote().qp_num(), 64)));
    EXPECT_OK(pair.remote().Check({i * 64u, 64}, Pattern::Seeded(3)));
  }
}

RDMACHECK_ABOUT(RcSendTest, UnsignaledSendsLeaveNoCompletion,
                "without sq_sig_all, three unsignaled SENDs followed by a signaled one produce exactly one send "
                "completion (the signaled one's), while all four messages arrive",
                "IBTA Vol 1 10.8.1.1 (selective signaling), 11.2.4.1; ibv_post_send(3) IBV_SEND_SIGNALED", Cap::kRcQp);
TEST_P(RcSendTest, UnsignaledSendsLeaveNoCompletion) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  std::vector<SendRequest> sends;
  for (int i = 0; i < 4; ++i) {
    ASSERT_OK(pair.local().Fill({i * 64u, 64}, Pattern::Seeded(10 + i)));
    ASSERT_OK(pair.remote().PostRecv(50 + i, i * 64, 64));
    sends.push_back(SendRequest::Send(i, {{i * 64u, 64}}).WithFlags(i == 3 ? IBV_SEND_SIGNALED : 0));
  }
  ASSERT_OK(pair.local().Post(sends));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> recvs, pair.remote().PollRecvs(4));
  for (int i = 0; i < 4; ++i) {
    EXPECT_THAT(recvs[i], CompletionIs(RecvCompletion(50 + i, pair.remote().qp_num(), 64)));
    EXPECT_OK(pair.remote().Check({i * 64u, 64}, Pattern::Seeded(10 + i)));
  }
  ASSERT_OK_AND_ASSIGN(ibv_wc signaled, pair.local().PollSend());
  EXPECT_THAT(signaled, CompletionIs(SendCompletion(3, pair.local().qp_num())));
  const QuietWindow quiet = QuietWindowForCompletions();
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> extra, pair.local().DrainSends(quiet.duration));
  EXPECT_TRUE(extra.empty()) << "unexpected send completion " << quiet << ": " << DescribeWc(extra.front());
}

RDMACHECK_ABOUT(RcSendTest, ReceiveWithMoreRoomThanNeeded,
                "a 250-byte SEND into a receive of three SGEs (100 + 200 + 300 bytes) fills the first SGE and 150 "
                "bytes of the second, in order; byte_len is 250 and the rest of the receive buffers stay untouched",
                "IBTA Vol 1 9.8.3.1 (scatter of a received message), 11.4.1.2 (Post Receive)", Cap::kRcQp);
TEST_P(RcSendTest, ReceiveWithMoreRoomThanNeeded) {
  PairOptions options = Options();
  options.max_recv_sge = 3;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, 250}, Pattern::Seeded(77)));
  ASSERT_OK(pair.remote().Fill({0, 4096}, Pattern::Constant(0)));
  // The receive SGEs are out of buffer order, to see that scatter follows the SGE list.
  ASSERT_OK(pair.remote().PostRecv(9, {{2000, 100}, {1000, 200}, {3000, 300}}));
  ASSERT_OK(pair.local().Post(SendRequest::Send(8, {{0, 250}})));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(9, pair.remote().qp_num(), 250)));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(8, pair.local().qp_num())));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> first, pair.remote().Read({2000, 100}));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> second, pair.remote().Read({1000, 150}));
  first.insert(first.end(), second.begin(), second.end());
  EXPECT_OK(CheckPattern(first, Pattern::Seeded(77)));
  EXPECT_OK(pair.remote().Check({1150, 50}, Pattern::Constant(0)));
  EXPECT_OK(pair.remote().Check({3000, 300}, Pattern::Constant(0)));
}

RDMACHECK_ABOUT(RcSendTest, MessagesArriveInPostingOrder,
                "SENDs of mixed sizes (1 byte, multi-packet, 0 bytes, MTU+1, ...) arrive in the order they were "
                "posted: the n-th receive completion carries the n-th message's length and bytes",
                "IBTA Vol 1 9.5 (RC: messages delivered in order), 10.8.3", Cap::kRcQp);
TEST_P(RcSendTest, MessagesArriveInPostingOrder) {
  const uint32_t mtu = static_cast<uint32_t>(MtuBytes(selection().port_attr.active_mtu));
  const std::vector<uint32_t> lengths = {1, 5 * mtu + 3, 0, mtu + 1, 7, 3 * mtu, 2, 16 * 1024, 1, mtu - 1};
  constexpr uint32_t kSlot = 20 * 1024;
  PairOptions options = Options();
  options.buffer_size = lengths.size() * kSlot;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  std::vector<SendRequest> sends;
  for (size_t i = 0; i < lengths.size(); ++i) {
    const Slice slot{i * kSlot, lengths[i]};
    ASSERT_OK(pair.local().Fill(slot, Pattern::Seeded(200 + i)));
    ASSERT_OK(pair.remote().PostRecv(i, {{i * kSlot, kSlot}}));
    sends.push_back(SendRequest::Send(i, lengths[i] > 0 ? std::vector<Slice>{slot} : std::vector<Slice>{}));
  }
  ASSERT_OK(pair.local().Post(sends));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> recvs, pair.remote().PollRecvs(lengths.size()));
  for (size_t i = 0; i < lengths.size(); ++i) {
    EXPECT_THAT(recvs[i], CompletionIs(RecvCompletion(i, pair.remote().qp_num(), lengths[i]))) << "message " << i;
    EXPECT_OK(pair.remote().Check({i * kSlot, lengths[i]}, Pattern::Seeded(200 + i))) << "message " << i;
  }
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> send_wcs, pair.local().PollSends(lengths.size()));
  for (size_t i = 0; i < lengths.size(); ++i) {
    EXPECT_THAT(send_wcs[i], CompletionIs(SendCompletion(i, pair.local().qp_num())));
  }
}

RDMACHECK_ABOUT(RcSendTest, SendsCrossInBothDirections,
                "both sides send to each other at the same time; each side's message arrives intact at the other",
                "IBTA Vol 1 9.5 (RC is full duplex)", Cap::kRcQp);
TEST_P(RcSendTest, SendsCrossInBothDirections) {
  constexpr uint32_t kLength = 3000;
  PairOptions options = Options();
  options.buffer_size = 2 * 4096;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, kLength}, Pattern::Seeded(1)));
  ASSERT_OK(pair.remote().Fill({0, kLength}, Pattern::Seeded(2)));
  ASSERT_OK(pair.local().PostRecv(31, 4096, kLength));
  ASSERT_OK(pair.remote().PostRecv(32, 4096, kLength));
  ASSERT_OK(pair.local().Post(SendRequest::Send(41, {{0, kLength}})));
  ASSERT_OK(pair.remote().Post(SendRequest::Send(42, {{0, kLength}})));

  ASSERT_OK_AND_ASSIGN(ibv_wc at_remote, pair.remote().PollRecv());
  EXPECT_THAT(at_remote, CompletionIs(RecvCompletion(32, pair.remote().qp_num(), kLength)));
  ASSERT_OK_AND_ASSIGN(ibv_wc at_local, pair.local().PollRecv());
  EXPECT_THAT(at_local, CompletionIs(RecvCompletion(31, pair.local().qp_num(), kLength)));
  ASSERT_OK_AND_ASSIGN(ibv_wc local_send, pair.local().PollSend());
  EXPECT_THAT(local_send, CompletionIs(SendCompletion(41, pair.local().qp_num())));
  ASSERT_OK_AND_ASSIGN(ibv_wc remote_send, pair.remote().PollSend());
  EXPECT_THAT(remote_send, CompletionIs(SendCompletion(42, pair.remote().qp_num())));
  EXPECT_OK(pair.remote().Check({4096, kLength}, Pattern::Seeded(1)));
  EXPECT_OK(pair.local().Check({4096, kLength}, Pattern::Seeded(2)));
}

RDMACHECK_ABOUT(RcSendTest, ZeroByteSendIntoReceiveWithoutSges,
                "a receive posted with no SGE at all accepts a zero-byte SEND: IBV_WC_RECV with byte_len 0",
                "IBTA Vol 1 11.4.1.2 (Post Receive: the scatter list may be empty), 9.4.1; ibv_post_recv(3)",
                Cap::kRcQp);
TEST_P(RcSendTest, ZeroByteSendIntoReceiveWithoutSges) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options()));
  ASSERT_OK(pair.remote().PostRecv(5, std::vector<Slice>{}));
  ASSERT_OK(pair.local().Post(SendRequest::Send(6, {})));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(5, pair.remote().qp_num(), 0)));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(6, pair.local().qp_num())));
}

INSTANTIATE_TEST_SUITE_P(Connect, RcSendTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
