// Traffic through shared receive queues: several QPs drawing from one SRQ, and receives
// taken in the order they were posted, over every connect method. (The SRQ limit event
// under traffic is in suites/srq.)
#include <infiniband/verbs.h>

#include <map>
#include <vector>

#include "harness/connection/cm_steps.h"
#include "testing/completion_matchers.h"
#include "testing/pair_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

class SharedSrqTest : public PairTest {};

RDMACHECK_ABOUT(SharedSrqTest, SeveralQpsShareOneSrq,
                "four RC QPs whose receives all come from one SRQ (and one receive CQ) each deliver their two "
                "messages: every receive completion names the QP that received, the messages of one QP complete in "
                "their order, and each receive buffer holds the message its completion describes",
                "IBTA Vol 1 10.2.9 (shared receive queues), 11.2.3 (Create SRQ); ibv_create_srq(3)", Cap::kRcQp,
                Cap::kSrq);
TEST_P(SharedSrqTest, SeveralQpsShareOneSrq) {
  // The receivers are the active endpoints (in this process in every mode, so they can
  // share an SRQ); the senders the passive ones (on the peer host in two-host mode).
  constexpr int kPairs = 4;
  constexpr int kPerQp = 2;
  constexpr uint32_t kSlot = 256;
  ASSERT_OK_AND_ASSIGN(ibv_context * shared_context, PairContext(context(), selection(), method()));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(shared_context));
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(shared_context, kPairs * kPerQp + 1));
  ibv_srq_init_attr srq_attr{};
  srq_attr.attr.max_wr = kPairs * kPerQp;
  srq_attr.attr.max_sge = 1;
  ASSERT_OK_AND_ASSIGN(SrqPtr srq, CreateSrq(pd.get(), srq_attr));
  PairOptions options = Options();
  options.active_shared = {pd.get(), srq.get(), cq.get()};
  std::vector<ConnectedPair> pairs;
  std::map<uint32_t, int> pair_of_qp;
  for (int i = 0; i < kPairs; ++i) {
    ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
    pair_of_qp[pair.local().qp_num()] = i;
    pairs.push_back(std::move(pair));
  }
  // The receive buffers: slots of the first active endpoint's buffer (its MR is in the shared PD).
  Endpoint& receiver = pairs[0].local();
  for (int k = 0; k < kPairs * kPerQp; ++k) ASSERT_OK(receiver.PostRecv(k, k * kSlot, kSlot));
  auto length = [](int i, int j) { return static_cast<uint32_t>(100 + 10 * i + j); };
  for (int j = 0; j < kPerQp; ++j) {
    for (int i = 0; i < kPairs; ++i) {
      ASSERT_OK(pairs[i].remote().Fill({j * kSlot, length(i, j)}, Pattern::Seeded(10 * i + j)));
      ASSERT_OK(pairs[i].remote().Post(SendRequest::Send(j, {{j * kSlot, length(i, j)}})));
    }
  }
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wcs, receiver.PollRecvs(kPairs * kPerQp));
  std::vector<int> seen(kPairs, 0);
  for (const ibv_wc& wc : wcs) {
    ASSERT_EQ(wc.status, IBV_WC_SUCCESS) << DescribeWc(wc);
    auto it = pair_of_qp.find(wc.qp_num);
    ASSERT_NE(it, pair_of_qp.end()) << "a receive completion names none of the sharing QPs: " << DescribeWc(wc);
    const int i = it->second;
    const int j = seen[i]++;
    ASSERT_LT(j, kPerQp) << "QP " << wc.qp_num << " received more messages than were sent to it";
    EXPECT_THAT(wc, CompletionIs(RecvCompletion(wc.wr_id, wc.qp_num, length(i, j))));
    EXPECT_OK(receiver.Check({wc.wr_id * kSlot, length(i, j)}, Pattern::Seeded(10 * i + j)))
        << "QP " << i << " message " << j << " in receive " << wc.wr_id;
  }
  for (int i = 0; i < kPairs; ++i) ASSERT_OK(pairs[i].remote().PollSends(kPerQp).status());
}

RDMACHECK_ABOUT(SharedSrqTest, ReceivesAreTakenInPostingOrder,
                "receives posted to an SRQ are consumed first-in first-out: the n-th message lands in the n-th "
                "posted receive",
                "IBTA Vol 1 10.2.9 (an SRQ is a FIFO of receive WQEs), 10.8.3", Cap::kRcQp, Cap::kSrq);
TEST_P(SharedSrqTest, ReceivesAreTakenInPostingOrder) {
  constexpr int kCount = 6;
  PairOptions options = Options();
  options.use_srq = true;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  for (int k = 0; k < kCount; ++k) ASSERT_OK(pair.remote().PostRecv(k, (kCount - 1 - k) * 512, 512));
  std::vector<SendRequest> sends;
  for (int k = 0; k < kCount; ++k) {
    ASSERT_OK(pair.local().Fill({k * 512u, 300u + k}, Pattern::Seeded(k)));
    sends.push_back(SendRequest::Send(k, {{k * 512u, 300u + k}}));
  }
  ASSERT_OK(pair.local().Post(sends));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wcs, pair.remote().PollRecvs(kCount));
  for (int k = 0; k < kCount; ++k) {
    EXPECT_THAT(wcs[k], CompletionIs(RecvCompletion(k, pair.remote().qp_num(), 300 + k)));
    EXPECT_OK(pair.remote().Check({(kCount - 1 - k) * 512u, 300u + k}, Pattern::Seeded(k))) << "message " << k;
  }
  ASSERT_OK(pair.local().PollSends(kCount).status());
}

INSTANTIATE_TEST_SUITE_P(Connect, SharedSrqTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
