// Remote atomics: compare-and-swap and fetch-and-add on an 8-byte word of the peer's
// memory. Each returns the word's original value into the local SGE; the word itself
// ends up with the arithmetic result, however many atomics hit it.
#include <infiniband/verbs.h>

#include <cstdint>
#include <vector>

#include "harness/connection/cm_steps.h"
#include "testing/completion_matchers.h"
#include "testing/pair_test.h"
#include "testing/refusal_status.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

constexpr size_t kWord = 64;    // offset of the remote word (8-byte aligned)
constexpr size_t kResult = 0;   // where the original value comes back locally

class AtomicsTest : public PairTest {
 protected:
  PairOptions AtomicOptions() const {
    PairOptions o = Options();
    o.EnableAtomics();
    return o;
  }
  // One atomic, its completion checked; returns nothing (results are read by the test).
  static void Run(ConnectedPair& pair, const SendRequest& atomic) {
    ASSERT_OK(pair.local().WriteU64(kResult, 0xdeaddeaddeaddeadULL));
    ASSERT_OK(pair.local().Post(atomic));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(SendCompletion(atomic.wr_id, pair.local().qp_num(), SendSideOpcode(atomic.opcode))));
  }
  static RemoteBuffer Word(ConnectedPair& pair, size_t offset = kWord) {
    return pair.local().peer_buffer().At(offset, 8);
  }
};

RDMACHECK_ABOUT(AtomicsTest, CompareSwapWhenEqualSwaps,
                "compare-and-swap whose compare value equals the remote word replaces it with the swap value and "
                "returns the original; the completion is IBV_WC_COMP_SWAP with byte_len 8",
                "IBTA Vol 1 9.4.5 (ATOMIC operations: CmpSwap), 11.4.2.1", Cap::kRcQp, Cap::kAtomics);
TEST_P(AtomicsTest, CompareSwapWhenEqualSwaps) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(AtomicOptions()));
  ASSERT_OK(pair.remote().WriteU64(kWord, 0x1111222233334444ULL));
  ASSERT_NO_FATAL_FAILURE(Run(pair, SendRequest::CompareSwap(1, {kResult, 8}, Word(pair), 0x1111222233334444ULL,
                                                             0xaaaabbbbccccddddULL)));
  EXPECT_THAT(pair.local().ReadU64(kResult), IsOkAndHolds(0x1111222233334444ULL));
  EXPECT_THAT(pair.remote().ReadU64(kWord), IsOkAndHolds(0xaaaabbbbccccddddULL));
}

RDMACHECK_ABOUT(AtomicsTest, CompareSwapWhenDifferentLeavesTheWord,
                "compare-and-swap whose compare value differs from the remote word (in one bit only) leaves the word "
                "unchanged and still returns the original value",
                "IBTA Vol 1 9.4.5", Cap::kRcQp, Cap::kAtomics);
TEST_P(AtomicsTest, CompareSwapWhenDifferentLeavesTheWord) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(AtomicOptions()));
  ASSERT_OK(pair.remote().WriteU64(kWord, 0x1111222233334444ULL));
  ASSERT_NO_FATAL_FAILURE(Run(pair, SendRequest::CompareSwap(1, {kResult, 8}, Word(pair), 0x1111222233334445ULL,
                                                             0xaaaabbbbccccddddULL)));
  EXPECT_THAT(pair.local().ReadU64(kResult), IsOkAndHolds(0x1111222233334444ULL));
  EXPECT_THAT(pair.remote().ReadU64(kWord), IsOkAndHolds(0x1111222233334444ULL));
}

RDMACHECK_ABOUT(AtomicsTest, FetchAddAddsAndReturnsTheOriginal,
                "fetch-and-add adds the addend to the remote word and returns the original; the completion is "
                "IBV_WC_FETCH_ADD with byte_len 8",
                "IBTA Vol 1 9.4.5 (FetchAdd)", Cap::kRcQp, Cap::kAtomics);
TEST_P(AtomicsTest, FetchAddAddsAndReturnsTheOriginal) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(AtomicOptions()));
  ASSERT_OK(pair.remote().WriteU64(kWord, 1000));
  ASSERT_NO_FATAL_FAILURE(Run(pair, SendRequest::FetchAdd(1, {kResult, 8}, Word(pair), 234)));
  EXPECT_THAT(pair.local().ReadU64(kResult), IsOkAndHolds(1000u));
  EXPECT_THAT(pair.remote().ReadU64(kWord), IsOkAndHolds(1234u));
}

RDMACHECK_ABOUT(AtomicsTest, FetchAddCarriesPast32Bits,
                "fetch-and-add is 64-bit arithmetic: 0x00000000ffffffff + 1 gives 0x0000000100000000, and "
                "0xffffffffffffffff + 2 wraps to 1",
                "IBTA Vol 1 9.4.5 (64-bit operands, modulo 2^64)", Cap::kRcQp, Cap::kAtomics);
TEST_P(AtomicsTest, FetchAddCarriesPast32Bits) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(AtomicOptions()));
  ASSERT_OK(pair.remote().WriteU64(kWord, 0x00000000ffffffffULL));
  ASSERT_NO_FATAL_FAILURE(Run(pair, SendRequest::FetchAdd(1, {kResult, 8}, Word(pair), 1)));
  EXPECT_THAT(pair.local().ReadU64(kResult), IsOkAndHolds(0x00000000ffffffffULL));
  EXPECT_THAT(pair.remote().ReadU64(kWord), IsOkAndHolds(0x0000000100000000ULL));
  ASSERT_OK(pair.remote().WriteU64(kWord, ~0ULL));
  ASSERT_NO_FATAL_FAILURE(Run(pair, SendRequest::FetchAdd(2, {kResult, 8}, Word(pair), 2)));
  EXPECT_THAT(pair.local().ReadU64(kResult), IsOkAndHolds(~0ULL));
  EXPECT_THAT(pair.remote().ReadU64(kWord), IsOkAndHolds(1u));
}

RDMACHECK_ABOUT(AtomicsTest, ManyFetchAddsSumUp,
                "64 fetch-and-adds of different addends on one word, posted as one list, leave the sum; each "
                "returns the running total before it (they execute in posting order)",
                "IBTA Vol 1 9.4.5, 9.5 (RC ordering)", Cap::kRcQp, Cap::kAtomics);
TEST_P(AtomicsTest, ManyFetchAddsSumUp) {
  constexpr int kCount = 64;
  PairOptions options = AtomicOptions();
  options.max_send_wr = kCount;
  options.path.max_rd_atomic = options.path.max_dest_rd_atomic = 4;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.remote().WriteU64(kWord, 7));
  std::vector<SendRequest> adds;
  for (int i = 0; i < kCount; ++i) {
    adds.push_back(SendRequest::FetchAdd(i, {1024 + 8u * i, 8}, Word(pair), (uint64_t{1} << 33) + i));
  }
  ASSERT_OK(pair.local().Post(adds));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wcs, pair.local().PollSends(kCount));
  uint64_t total = 7;
  for (int i = 0; i < kCount; ++i) {
    EXPECT_THAT(wcs[i], CompletionIs(SendCompletion(i, pair.local().qp_num(), IBV_WC_FETCH_ADD)));
    EXPECT_THAT(pair.local().ReadU64(1024 + 8 * i), IsOkAndHolds(total)) << "fetch-and-add " << i;
    total += (uint64_t{1} << 33) + i;
  }
  EXPECT_THAT(pair.remote().ReadU64(kWord), IsOkAndHolds(total));
}

RDMACHECK_ABOUT(AtomicsTest, CompareSwapChain,
                "16 compare-and-swaps posted together, each expecting the value the previous one stored, all "
                "succeed in order and leave the last value",
                "IBTA Vol 1 9.4.5, 9.5", Cap::kRcQp, Cap::kAtomics);
TEST_P(AtomicsTest, CompareSwapChain) {
  constexpr int kCount = 16;
  PairOptions options = AtomicOptions();
  options.max_send_wr = kCount;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  auto value = [](int i) { return 0x0f0f0f0f00000000ULL + static_cast<uint64_t>(i) * 0x100000001ULL; };
  ASSERT_OK(pair.remote().WriteU64(kWord, value(0)));
  std::vector<SendRequest> chain;
  for (int i = 0; i < kCount; ++i) {
    chain.push_back(SendRequest::CompareSwap(i, {1024 + 8u * i, 8}, Word(pair), value(i), value(i + 1)));
  }
  ASSERT_OK(pair.local().Post(chain));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wcs, pair.local().PollSends(kCount));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_THAT(wcs[i], CompletionIs(SendCompletion(i, pair.local().qp_num(), IBV_WC_COMP_SWAP)));
    EXPECT_THAT(pair.local().ReadU64(1024 + 8 * i), IsOkAndHolds(value(i))) << "compare-and-swap " << i;
  }
  EXPECT_THAT(pair.remote().ReadU64(kWord), IsOkAndHolds(value(kCount)));
}

RDMACHECK_ABOUT(AtomicsTest, MisalignedWordIsRefused,
                "an atomic on a remote address that is not 8-byte aligned is refused, by the responder "
                "(IBV_WC_REM_INV_REQ_ERR; on an impaired wire also IBV_WC_RETRY_EXC_ERR, the NAK lost) or already by ibv_post_send (EINVAL: the requester can see the "
                "misalignment), and leaves the memory unchanged (which of the two is recorded)",
                "IBTA Vol 1 9.4.5 (atomic operand address must be naturally aligned; responder NAKs Invalid "
                "Request); ibv_post_send(3) (EINVAL: invalid value in the WR)",
                Cap::kRcQp, Cap::kAtomics);
TEST_P(AtomicsTest, MisalignedWordIsRefused) {
  PairOptions options = AtomicOptions();
  options.path.retry_cnt = kRefusedRetryCnt;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.remote().Fill({kWord, 16}, Pattern::Constant(0x77)));
  absl::Status posted = pair.local().Post(SendRequest::FetchAdd(1, {kResult, 8}, Word(pair, kWord + 4), 1));
  if (posted.ok()) {
    RecordProperty("refused_by", "responder");
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(ErrorCompletion(1, pair.local().qp_num(), RefusalAsTold(wc, IBV_WC_REM_INV_REQ_ERR))));
  } else {
    RecordProperty("refused_by", "ibv_post_send");
    EXPECT_THAT(posted, HasErrno(EINVAL));
  }
  EXPECT_OK(pair.remote().Check({kWord, 16}, Pattern::Constant(0x77)));
}

RDMACHECK_ABOUT(AtomicsTest, TwoQpsAddToOneWord,
                "fetch-and-adds from two QPs to one word of a PD both responders share, interleaved (50 each), "
                "lose no update: the word ends at the sum",
                "IBTA Vol 1 9.4.5 (atomicity with respect to other atomics of the same CA)", Cap::kRcQp,
                Cap::kAtomics);
TEST_P(AtomicsTest, TwoQpsAddToOneWord) {
  // The responders are the active endpoints (in this process in every mode, so they can
  // share a PD); the requesters the passive ones (on the peer host in two-host mode).
  constexpr int kEach = 50;
  ASSERT_OK_AND_ASSIGN(ibv_context * shared_context, PairContext(context(), selection(), method()));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(shared_context));
  PairOptions options = AtomicOptions();
  options.max_send_wr = kEach;
  options.active_shared.pd = pd.get();
  ASSERT_OK_AND_ASSIGN(ConnectedPair first, CreatePair(options));
  ASSERT_OK_AND_ASSIGN(ConnectedPair second, CreatePair(options));
  ASSERT_OK(first.local().WriteU64(kWord, 0));
  // In first's responder buffer; second's responder is in the same PD.
  const RemoteBuffer word = first.remote().peer_buffer().At(kWord, 8);
  for (int i = 0; i < kEach; ++i) {
    ASSERT_OK(first.remote().Post(SendRequest::FetchAdd(i, {kResult, 8}, word, 1)));
    ASSERT_OK(second.remote().Post(SendRequest::FetchAdd(i, {kResult, 8}, word, 1000)));
  }
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> a, first.remote().PollSends(kEach));
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> b, second.remote().PollSends(kEach));
  for (int i = 0; i < kEach; ++i) {
    EXPECT_THAT(a[i], CompletionIs(SendCompletion(i, first.remote().qp_num(), IBV_WC_FETCH_ADD)));
    EXPECT_THAT(b[i], CompletionIs(SendCompletion(i, second.remote().qp_num(), IBV_WC_FETCH_ADD)));
  }
  EXPECT_THAT(first.local().ReadU64(kWord), IsOkAndHolds(uint64_t{kEach} * 1001));
}

INSTANTIATE_TEST_SUITE_P(Connect, AtomicsTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
