// RDMA WRITE: the bytes land where the WR says and nowhere else, without consuming a
// receive, in the order the writes were posted. A WRITE's completion at the writer does
// not mean its bytes are placed on every transport (iWARP, UC), so checks of the target
// wait for them (Endpoint::AwaitPattern, bounded); WriteIsVisibleWhenLaterSendArrives
// checks the ordering guarantee all transports share.
#include <infiniband/verbs.h>

#include <vector>

#include "testing/completion_matchers.h"
#include "testing/message_sizes.h"
#include "testing/pair_test.h"
#include "testing/quiet_window.h"

namespace rdmacheck {
namespace {


class RdmaWriteSizeTest : public PairTestWith<MessageSize> {};

RDMACHECK_ABOUT(RdmaWriteSizeTest, WriteLandsIntact,
                "an RDMA WRITE of each size (0, 1, MTU-1, MTU, MTU+1, 64 KiB, 1 MiB, the largest message) puts "
                "exactly those bytes at the remote address, the bytes after it untouched; the send completion "
                "reports IBV_WC_RDMA_WRITE with the WR's wr_id",
                "IBTA Vol 1 9.4.3 (RDMA WRITE), 11.4.2.1; ibv_post_send(3)", Cap::kRcQp, Cap::kRdmaWrite);
TEST_P(RdmaWriteSizeTest, WriteLandsIntact) {
  const uint32_t bytes = MessageBytes(param(), selection());
  RecordProperty("bytes", static_cast<int>(bytes));
  PairOptions options = Options();
  options.buffer_size = BufferFor(bytes + kCanaryBytes);
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, bytes}, Pattern::Seeded(bytes + 1)));
  ASSERT_OK(pair.remote().Fill({0, bytes + kCanaryBytes}, Pattern::Constant(0)));

  const std::vector<Slice> sges = bytes > 0 ? std::vector<Slice>{{0, bytes}} : std::vector<Slice>{};
  ASSERT_OK(pair.local().Post(SendRequest::Write(7, sges, pair.local().peer_buffer().At(0, bytes))));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(SendCompletion(7, pair.local().qp_num(), IBV_WC_RDMA_WRITE)));
  EXPECT_OK(pair.remote().AwaitPattern({0, bytes}, Pattern::Seeded(bytes + 1)));
  EXPECT_OK(pair.remote().Check({bytes, kCanaryBytes}, Pattern::Constant(0)));
}

INSTANTIATE_TEST_SUITE_P(Connect, RdmaWriteSizeTest,
                         ::testing::Combine(AllConnectMethods(), ::testing::ValuesIn(AllMessageSizes())),
                         PairParamName<MessageSize>);

class RdmaWriteTest : public PairTest {};

RDMACHECK_ABOUT(RdmaWriteTest, WritesAtOffsetsInsideTheRegion,
                "RDMA WRITEs to unaligned offsets inside the remote MR (1, across a page boundary, up to its last "
                "byte), from unaligned local offsets, change exactly the addressed bytes; no receive is consumed",
                "IBTA Vol 1 9.4.3, 10.6.3.2 (byte-granular virtual addresses within a region)", Cap::kRcQp,
                Cap::kRdmaWrite);
TEST_P(RdmaWriteTest, WritesAtOffsetsInsideTheRegion) {
  constexpr uint32_t kBuffer = 3 * 4096;
  struct Piece {
    size_t local_offset;
    size_t remote_offset;
    uint32_t length;
  };
  const std::vector<Piece> pieces = {{3, 1, 100}, {1001, 4090, 300}, {5000, kBuffer - 77, 77}};
  PairOptions options = Options();
  options.buffer_size = kBuffer;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.remote().Fill({0, kBuffer}, Pattern::Constant(0xee)));
  ASSERT_OK(pair.remote().PostRecv(99, 0, 64));  // must stay unconsumed
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    ASSERT_OK(pair.local().Fill({p.local_offset, p.length}, Pattern::Seeded(30 + i)));
    ASSERT_OK(pair.local().Post(SendRequest::Write(i, {{p.local_offset, p.length}},
                                                   pair.local().peer_buffer().At(p.remote_offset, p.length))));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(SendCompletion(i, pair.local().qp_num(), IBV_WC_RDMA_WRITE)));
  }
  size_t checked_to = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    EXPECT_OK(pair.remote().Check({checked_to, static_cast<uint32_t>(p.remote_offset - checked_to)},
                                  Pattern::Constant(0xee)));
    EXPECT_OK(pair.remote().AwaitPattern({p.remote_offset, p.length}, Pattern::Seeded(30 + i)));
    checked_to = p.remote_offset + p.length;
  }
  EXPECT_OK(pair.remote().Check({checked_to, static_cast<uint32_t>(kBuffer - checked_to)}, Pattern::Constant(0xee)));
  const QuietWindow quiet = QuietWindowForCompletions();
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> consumed, pair.remote().DrainRecvs(quiet.duration));
  EXPECT_TRUE(consumed.empty()) << "an RDMA WRITE consumed a receive " << quiet << ": " << DescribeWc(consumed.front());
}

RDMACHECK_ABOUT(RdmaWriteTest, ManyWritesInFlightAllLand,
                "32 RDMA WRITEs posted as one list, only the last signaled: the one completion that arrives is the "
                "last WR's, and every write lands",
                "IBTA Vol 1 10.8.3 (completion of a signaled WR implies the earlier ones), 9.5 (RC ordering)",
                Cap::kRcQp, Cap::kRdmaWrite);
TEST_P(RdmaWriteTest, ManyWritesInFlightAllLand) {
  constexpr int kCount = 32;
  constexpr uint32_t kSize = 1000;
  PairOptions options = Options();
  options.max_send_wr = kCount;
  options.buffer_size = kCount * 1024;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  std::vector<SendRequest> writes;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_OK(pair.local().Fill({i * 1024u, kSize}, Pattern::Seeded(400 + i)));
    writes.push_back(SendRequest::Write(i, {{i * 1024u, kSize}}, pair.local().peer_buffer().At(i * 1024u, kSize))
                         .WithFlags(i + 1 == kCount ? IBV_SEND_SIGNALED : 0));
  }
  ASSERT_OK(pair.local().Post(writes));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(SendCompletion(kCount - 1, pair.local().qp_num(), IBV_WC_RDMA_WRITE)));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_OK(pair.remote().AwaitPattern({i * 1024u, kSize}, Pattern::Seeded(400 + i))) << "write " << i;
  }
}

RDMACHECK_ABOUT(RdmaWriteTest, WriteIsVisibleWhenLaterSendArrives,
                "an RDMA WRITE followed by a SEND on the same QP: when the SEND's receive completes, the written "
                "bytes are already in place (the usual 'data, then doorbell message' pattern)",
                "IBTA Vol 1 9.5 (RC: requests are executed at the responder in order), 10.8.3", Cap::kRcQp,
                Cap::kRdmaWrite);
TEST_P(RdmaWriteTest, WriteIsVisibleWhenLaterSendArrives) {
  constexpr uint32_t kData = 60000;
  PairOptions options = Options();
  options.buffer_size = 64 * 1024;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, kData}, Pattern::Seeded(8)));
  ASSERT_OK(pair.local().Fill({kData, 16}, Pattern::Seeded(9)));
  ASSERT_OK(pair.remote().PostRecv(1, kData, 16));
  const std::vector<SendRequest> both = {
      SendRequest::Write(1, {{0, kData}}, pair.local().peer_buffer().At(0, kData)).WithFlags(0),
      SendRequest::Send(2, {{kData, 16}})};
  ASSERT_OK(pair.local().Post(both));
  ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
  EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), 16)));
  EXPECT_OK(pair.remote().Check({0, kData}, Pattern::Seeded(8)));
  ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
  EXPECT_THAT(send, CompletionIs(SendCompletion(2, pair.local().qp_num())));
}

INSTANTIATE_TEST_SUITE_P(Connect, RdmaWriteTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
