// RDMA READ: the remote bytes come back exactly, into exactly the local bytes named.
#include <infiniband/verbs.h>

#include <vector>

#include "testing/completion_matchers.h"
#include "testing/message_sizes.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {


class RdmaReadSizeTest : public PairTestWith<MessageSize> {};

RDMACHECK_ABOUT(RdmaReadSizeTest, ReadReturnsRemoteBytes,
                "an RDMA READ of each size (0, 1, MTU-1, MTU, MTU+1, 64 KiB, 1 MiB, the largest message) brings "
                "exactly the remote bytes into the local buffer, the bytes after them untouched; the completion "
                "reports IBV_WC_RDMA_READ and byte_len = the size read; at the responder, the source range and "
                "the guard bytes before and after it are unchanged",
                "IBTA Vol 1 9.4.4 (RDMA READ: the responder returns the bytes at the given address and length; "
                "it writes nothing), 11.4.2.1; "
                "ibv_poll_cq(3) byte_len",
                Cap::kRcQp, Cap::kRdmaRead);
TEST_P(RdmaReadSizeTest, ReadReturnsRemoteBytes) {
  const uint32_t bytes = MessageBytes(param(), selection());
  RecordProperty("bytes", static_cast<int>(bytes));
  PairOptions options = Options();
  options.buffer_size = BufferFor(bytes + 2 * kCanaryBytes);
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  // The responder: | guard (kCanaryBytes) | source (bytes) | guard (kCanaryBytes) |.
  const Slice before{0, kCanaryBytes};
  const Slice source{kCanaryBytes, bytes};
  const Slice after{kCanaryBytes + bytes, kCanaryBytes};
  ASSERT_OK(pair.remote().Fill(before, Pattern::Constant(0xa5)));
  ASSERT_OK(pair.remote().Fill(source, Pattern::Seeded(bytes + 2)));
  ASSERT_OK(pair.remote().Fill(after, Pattern::Constant(0x5a)));
  ASSERT_OK(pair.local().Fill({0, bytes + kCanaryBytes}, Pattern::Constant(0)));

  const std::vector<Slice> sges = bytes > 0 ? std::vector<Slice>{{0, bytes}} : std::vector<Slice>{};
  ASSERT_OK(pair.local().Post(SendRequest::Read(3, sges, pair.local().peer_buffer().At(source.offset, bytes))));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(SendCompletion(3, pair.local().qp_num(), IBV_WC_RDMA_READ).WithLength(bytes)));
  EXPECT_OK(pair.local().Check({0, bytes}, Pattern::Seeded(bytes + 2)));
  EXPECT_OK(pair.local().Check({bytes, kCanaryBytes}, Pattern::Constant(0)));
  // A READ only reads: a responder that wrote into or around its source range fails here.
  EXPECT_OK(pair.remote().Check(before, Pattern::Constant(0xa5))) << "the responder wrote before the READ's source";
  EXPECT_OK(pair.remote().Check(source, Pattern::Seeded(bytes + 2))) << "the responder changed the READ's source";
  EXPECT_OK(pair.remote().Check(after, Pattern::Constant(0x5a))) << "the responder wrote past the READ's source";
}

INSTANTIATE_TEST_SUITE_P(Connect, RdmaReadSizeTest,
                         ::testing::Combine(AllConnectMethods(), ::testing::ValuesIn(AllMessageSizes())),
                         PairParamName<MessageSize>);

class RdmaReadTest : public PairTest {};

RDMACHECK_ABOUT(RdmaReadTest, ReadsFromOffsetsInsideTheRegion,
                "RDMA READs from unaligned offsets inside the remote MR (1, across a page boundary, its last bytes) "
                "into unaligned local offsets return exactly the addressed bytes and change nothing else, at "
                "either side (the responder's bytes around each source range keep their canary)",
                "IBTA Vol 1 9.4.4, 10.6.3.2", Cap::kRcQp, Cap::kRdmaRead);
TEST_P(RdmaReadTest, ReadsFromOffsetsInsideTheRegion) {
  constexpr uint32_t kBuffer = 3 * 4096;
  struct Piece {
    size_t remote_offset;
    size_t local_offset;
    uint32_t length;
  };
  const std::vector<Piece> pieces = {{1, 5, 100}, {4090, 1003, 300}, {kBuffer - 77, 6000, 77}};
  PairOptions options = Options();
  options.buffer_size = kBuffer;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.local().Fill({0, kBuffer}, Pattern::Constant(0xdd)));
  ASSERT_OK(pair.remote().Fill({0, kBuffer}, Pattern::Constant(0xee)));  // the responder's canary
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    ASSERT_OK(pair.remote().Fill({p.remote_offset, p.length}, Pattern::Seeded(60 + i)));
    ASSERT_OK(pair.local().Post(SendRequest::Read(i, {{p.local_offset, p.length}},
                                                  pair.local().peer_buffer().At(p.remote_offset, p.length))));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(SendCompletion(i, pair.local().qp_num(), IBV_WC_RDMA_READ).WithLength(p.length)));
  }
  size_t checked_to = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    EXPECT_OK(pair.local().Check({checked_to, static_cast<uint32_t>(p.local_offset - checked_to)},
                                 Pattern::Constant(0xdd)));
    EXPECT_OK(pair.local().Check({p.local_offset, p.length}, Pattern::Seeded(60 + i)));
    checked_to = p.local_offset + p.length;
  }
  EXPECT_OK(pair.local().Check({checked_to, static_cast<uint32_t>(kBuffer - checked_to)}, Pattern::Constant(0xdd)));
  // The responder's pieces are sorted by offset: between them its canary must be intact.
  checked_to = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    const Piece& p = pieces[i];
    EXPECT_OK(pair.remote().Check({checked_to, static_cast<uint32_t>(p.remote_offset - checked_to)},
                                  Pattern::Constant(0xee)))
        << "the responder's bytes before READ source " << i << " changed";
    EXPECT_OK(pair.remote().Check({p.remote_offset, p.length}, Pattern::Seeded(60 + i)))
        << "the responder's READ source " << i << " changed";
    checked_to = p.remote_offset + p.length;
  }
  EXPECT_OK(pair.remote().Check({checked_to, static_cast<uint32_t>(kBuffer - checked_to)}, Pattern::Constant(0xee)));
}

RDMACHECK_ABOUT(RdmaReadTest, SeveralReadsOutstanding,
                "with 4 RDMA READs allowed outstanding (max_rd_atomic / max_dest_rd_atomic 4), 16 READs posted as "
                "one list all complete in order with their own remote bytes",
                "IBTA Vol 1 9.4.4, 11.2.4.2 (max outstanding RDMA READ/atomic), 10.8.3", Cap::kRcQp, Cap::kRdmaRead);
TEST_P(RdmaReadTest, SeveralReadsOutstanding) {
  constexpr int kCount = 16;
  constexpr uint32_t kSize = 2000;
  PairOptions options = Options();
  options.max_send_wr = kCount;
  options.buffer_size = kCount * 2048;
  options.path.max_rd_atomic = options.path.max_dest_rd_atomic = 4;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  std::vector<SendRequest> reads;
  for (int i = 0; i < kCount; ++i) {
    ASSERT_OK(pair.remote().Fill({i * 2048u, kSize}, Pattern::Seeded(500 + i)));
    reads.push_back(SendRequest::Read(i, {{i * 2048u, kSize}}, pair.local().peer_buffer().At(i * 2048u, kSize)));
  }
  ASSERT_OK(pair.local().Post(reads));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wcs, pair.local().PollSends(kCount));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_THAT(wcs[i], CompletionIs(SendCompletion(i, pair.local().qp_num(), IBV_WC_RDMA_READ).WithLength(kSize)));
    EXPECT_OK(pair.local().Check({i * 2048u, kSize}, Pattern::Seeded(500 + i))) << "read " << i;
  }
}

RDMACHECK_ABOUT(RdmaReadTest, ReadAfterWriteSeesTheWrite,
                "an RDMA READ posted after an RDMA WRITE to the same remote bytes on the same QP returns the "
                "written bytes, not the old ones",
                "IBTA Vol 1 9.5 (RC: a responder executes requests in order; table 79)", Cap::kRcQp, Cap::kRdmaWrite,
                Cap::kRdmaRead);
TEST_P(RdmaReadTest, ReadAfterWriteSeesTheWrite) {
  constexpr uint32_t kSize = 5000;
  PairOptions options = Options();
  options.buffer_size = 16 * 1024;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.remote().Fill({0, kSize}, Pattern::Seeded(1)));  // the old bytes
  ASSERT_OK(pair.local().Fill({0, kSize}, Pattern::Seeded(2)));   // the new bytes
  ASSERT_OK(pair.local().Fill({8192, kSize}, Pattern::Constant(0)));
  const RemoteBuffer target = pair.local().peer_buffer().At(0, kSize);
  const std::vector<SendRequest> both = {SendRequest::Write(1, {{0, kSize}}, target),
                                         SendRequest::Read(2, {{8192, kSize}}, target)};
  ASSERT_OK(pair.local().Post(both));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wcs, pair.local().PollSends(2));
  EXPECT_THAT(wcs[0], CompletionIs(SendCompletion(1, pair.local().qp_num(), IBV_WC_RDMA_WRITE)));
  EXPECT_THAT(wcs[1], CompletionIs(SendCompletion(2, pair.local().qp_num(), IBV_WC_RDMA_READ).WithLength(kSize)));
  EXPECT_OK(pair.local().Check({8192, kSize}, Pattern::Seeded(2)));
}

INSTANTIATE_TEST_SUITE_P(Connect, RdmaReadTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
