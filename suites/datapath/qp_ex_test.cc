// The extended QP work-request API (ibv_wr_start / ibv_wr_<op> / ibv_wr_complete) must do
// what ibv_post_send does: each operation is run both ways on one QP and both runs must
// give the same completions and the same bytes.
#include <infiniband/verbs.h>

#include <functional>
#include <string>
#include <vector>

#include "testing/completion_matchers.h"
#include "testing/message_sizes.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

enum class Op { kSend, kSendImm, kWrite, kWriteImm, kRead, kCompareSwap, kFetchAdd };

std::string ParamName(Op op) {
  switch (op) {
    case Op::kSend: return "Send";
    case Op::kSendImm: return "SendWithImm";
    case Op::kWrite: return "Write";
    case Op::kWriteImm: return "WriteWithImm";
    case Op::kRead: return "Read";
    case Op::kCompareSwap: return "CompareSwap";
    case Op::kFetchAdd: return "FetchAdd";
  }
  return "Unknown";
}

// The capability an operation needs besides the extended QP.
Cap OpCap(Op op) {
  switch (op) {
    case Op::kSend: return Cap::kRcQp;
    case Op::kSendImm: return Cap::kSendWithImm;
    case Op::kWrite: return Cap::kRdmaWrite;
    case Op::kWriteImm: return Cap::kWriteWithImm;
    case Op::kRead: return Cap::kRdmaRead;
    case Op::kCompareSwap:
    case Op::kFetchAdd: return Cap::kAtomics;
  }
  return Cap::kRcQp;
}

constexpr uint64_t kAllSendOps = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM | IBV_QP_EX_WITH_RDMA_WRITE |
                                 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM | IBV_QP_EX_WITH_RDMA_READ |
                                 IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
constexpr uint32_t kLength = 700;

class QpExTest : public PairTestWith<Op> {
 protected:
  using Poster = std::function<absl::Status(const SendRequest&)>;

  // Runs this instance's operation on bytes at `slot` of both buffers, posted by `post`,
  // and checks every completion and byte it produces.
  void RunAndCheck(ConnectedPair& pair, size_t slot, uint32_t seed, const Poster& post) {
    LocalEndpoint& local = pair.local();
    Endpoint& remote = pair.remote();
    const RemoteBuffer target = local.peer_buffer().At(slot, kLength);
    const uint32_t local_qpn = local.qp_num();
    switch (param()) {
      case Op::kSend:
      case Op::kSendImm: {
        const bool imm = param() == Op::kSendImm;
        ASSERT_OK(local.Fill({slot, kLength}, Pattern::Seeded(seed)));
        ASSERT_OK(remote.PostRecv(seed, slot, kLength));
        SendRequest r = SendRequest::Send(seed, {{slot, kLength}});
        if (imm) r.WithImm(kTestImmediate);
        ASSERT_OK(post(r));
        ASSERT_OK_AND_ASSIGN(ibv_wc recv, remote.PollRecv());
        ExpectedWc expected = RecvCompletion(seed, remote.qp_num(), kLength);
        if (imm) expected.WithImm(kTestImmediate);
        EXPECT_THAT(recv, CompletionIs(expected));
        EXPECT_OK(remote.Check({slot, kLength}, Pattern::Seeded(seed)));
        break;
      }
      case Op::kWrite:
      case Op::kWriteImm: {
        const bool imm = param() == Op::kWriteImm;
        ASSERT_OK(local.Fill({slot, kLength}, Pattern::Seeded(seed)));
        if (imm) ASSERT_OK(remote.PostRecv(seed, slot + kLength, 16));
        SendRequest r = SendRequest::Write(seed, {{slot, kLength}}, target);
        if (imm) r.WithImm(kTestImmediate);
        ASSERT_OK(post(r));
        if (imm) {
          ASSERT_OK_AND_ASSIGN(ibv_wc recv, remote.PollRecv());
          EXPECT_THAT(recv, CompletionIs(RecvCompletion(seed, remote.qp_num(), kLength, IBV_WC_RECV_RDMA_WITH_IMM)
                                             .WithImm(kTestImmediate)));
        }
        break;
      }
      case Op::kRead:
        ASSERT_OK(remote.Fill({slot, kLength}, Pattern::Seeded(seed)));
        ASSERT_OK(post(SendRequest::Read(seed, {{slot, kLength}}, target)));
        break;
      case Op::kCompareSwap:
        ASSERT_OK(remote.WriteU64(slot, 0x0123456789abcdefULL));
        ASSERT_OK(post(SendRequest::CompareSwap(seed, {slot, 8}, target, 0x0123456789abcdefULL, 0xfedcba9876543210ULL)));
        break;
      case Op::kFetchAdd:
        ASSERT_OK(remote.WriteU64(slot, 0x00000000ffffffffULL));
        ASSERT_OK(post(SendRequest::FetchAdd(seed, {slot, 8}, target, 1)));
        break;
    }
    ASSERT_OK_AND_ASSIGN(ibv_wc send, local.PollSend());
    switch (param()) {
      case Op::kSend:
      case Op::kSendImm:
        EXPECT_THAT(send, CompletionIs(SendCompletion(seed, local_qpn)));
        break;
      case Op::kWrite:
      case Op::kWriteImm:
        EXPECT_THAT(send, CompletionIs(SendCompletion(seed, local_qpn, IBV_WC_RDMA_WRITE)));
        EXPECT_OK(remote.AwaitPattern({slot, kLength}, Pattern::Seeded(seed)));
        break;
      case Op::kRead:
        EXPECT_THAT(send, CompletionIs(SendCompletion(seed, local_qpn, IBV_WC_RDMA_READ).WithLength(kLength)));
        EXPECT_OK(local.Check({slot, kLength}, Pattern::Seeded(seed)));
        break;
      case Op::kCompareSwap:
        EXPECT_THAT(send, CompletionIs(SendCompletion(seed, local_qpn, IBV_WC_COMP_SWAP)));
        EXPECT_THAT(local.ReadU64(slot), IsOkAndHolds(0x0123456789abcdefULL));
        EXPECT_THAT(remote.ReadU64(slot), IsOkAndHolds(0xfedcba9876543210ULL));
        break;
      case Op::kFetchAdd:
        EXPECT_THAT(send, CompletionIs(SendCompletion(seed, local_qpn, IBV_WC_FETCH_ADD)));
        EXPECT_THAT(local.ReadU64(slot), IsOkAndHolds(0x00000000ffffffffULL));
        EXPECT_THAT(remote.ReadU64(slot), IsOkAndHolds(0x0000000100000000ULL));
        break;
    }
  }
};

RDMACHECK_ABOUT(QpExTest, SameResultAsPostSend,
                "SEND, SEND with immediate, RDMA WRITE (with immediate), RDMA READ, compare-and-swap and "
                "fetch-and-add posted through ibv_wr_* on a QP made by ibv_create_qp_ex give the same completions "
                "and bytes as through ibv_post_send on the same QP",
                "ibv_wr_post(3) (the ibv_wr_* API), ibv_create_qp_ex(3) send_ops_flags", Cap::kRcQp, Cap::kQpEx);
TEST_P(QpExTest, SameResultAsPostSend) {
  RDMACHECK_REQUIRE(OpCap(param()));
  PairOptions options = Options();
  options.send_ops_flags = kAllSendOps;
  if (param() == Op::kCompareSwap || param() == Op::kFetchAdd) options.EnableAtomics();
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_NE(pair.local().qp_ex(), nullptr);
  LocalEndpoint& local = pair.local();
  {
    SCOPED_TRACE("through ibv_post_send");
    ASSERT_NO_FATAL_FAILURE(RunAndCheck(pair, 0, 1, [&](const SendRequest& r) { return local.Post(r); }));
  }
  {
    SCOPED_TRACE("through ibv_wr_*");
    ASSERT_NO_FATAL_FAILURE(RunAndCheck(
        pair, 2048, 2, [&](const SendRequest& r) { return PostSendRequestsEx(local.qp_ex(), local.mr(), {&r, 1}); }));
  }
}

INSTANTIATE_TEST_SUITE_P(Connect, QpExTest,
                         ::testing::Combine(AllConnectMethods(),
                                            ::testing::Values(Op::kSend, Op::kSendImm, Op::kWrite, Op::kWriteImm,
                                                              Op::kRead, Op::kCompareSwap, Op::kFetchAdd)),
                         PairParamName<Op>);

}  // namespace
}  // namespace rdmacheck
