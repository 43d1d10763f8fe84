// Many QPs at once: 16 connected pairs move data at the same time, and each keeps its own
// messages in order.
#include <infiniband/verbs.h>

#include <vector>

#include "testing/completion_matchers.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

class MultiQpTest : public PairTest {};

RDMACHECK_ABOUT(MultiQpTest, SixteenPairsAtOnce,
                "16 RC pairs each have 4 SENDs and 2 RDMA WRITEs in flight at the same time (posted round-robin "
                "across the pairs); every message arrives on its own QP, in its QP's order, with its own bytes",
                "IBTA Vol 1 9.5 (ordering is per QP), 10.8.3", Cap::kRcQp, Cap::kRdmaWrite);
TEST_P(MultiQpTest, SixteenPairsAtOnce) {
  constexpr int kPairs = 16;
  constexpr int kSends = 4;
  constexpr uint32_t kSize = 1500;  // more than one packet at MTU 1024
  std::vector<ConnectedPair> pairs;
  for (int i = 0; i < kPairs; ++i) {
    PairOptions options = Options();
    options.buffer_size = 16 * 1024;
    ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
    pairs.push_back(std::move(pair));
  }
  auto seed = [](int pair, int message) { return static_cast<uint32_t>(1000 * pair + message); };
  for (int i = 0; i < kPairs; ++i) {
    for (int m = 0; m < kSends + 2; ++m) ASSERT_OK(pairs[i].local().Fill({m * 2048u, kSize}, Pattern::Seeded(seed(i, m))));
    for (int m = 0; m < kSends; ++m) ASSERT_OK(pairs[i].remote().PostRecv(m, m * 2048, kSize));
  }
  for (int m = 0; m < kSends + 2; ++m) {
    for (int i = 0; i < kPairs; ++i) {
      LocalEndpoint& from = pairs[i].local();
      // Messages 0..3 are SENDs; 4 and 5 RDMA WRITEs into the upper half of the peer's buffer.
      ASSERT_OK(from.Post(m < kSends ? SendRequest::Send(m, {{m * 2048u, kSize}})
                                     : SendRequest::Write(m, {{m * 2048u, kSize}},
                                                          from.peer_buffer().At(8192 + (m - kSends) * 2048u, kSize))));
    }
  }
  for (int i = 0; i < kPairs; ++i) {
    SCOPED_TRACE(::testing::Message() << "pair " << i);
    ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> sends, pairs[i].local().PollSends(kSends + 2));
    for (int m = 0; m < kSends + 2; ++m) {
      EXPECT_THAT(sends[m], CompletionIs(SendCompletion(m, pairs[i].local().qp_num(),
                                                        m < kSends ? IBV_WC_SEND : IBV_WC_RDMA_WRITE)));
    }
    ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> recvs, pairs[i].remote().PollRecvs(kSends));
    for (int m = 0; m < kSends; ++m) {
      EXPECT_THAT(recvs[m], CompletionIs(RecvCompletion(m, pairs[i].remote().qp_num(), kSize)));
      EXPECT_OK(pairs[i].remote().Check({m * 2048u, kSize}, Pattern::Seeded(seed(i, m))));
    }
    for (int m = kSends; m < kSends + 2; ++m) {
      EXPECT_OK(pairs[i].remote().AwaitPattern({8192 + (m - kSends) * 2048u, kSize}, Pattern::Seeded(seed(i, m))));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Connect, MultiQpTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
