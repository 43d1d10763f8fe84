// RDMA FLUSH (IBTA Vol 1 1.5, Annex A19; ibv_wr_flush in ibv_wr_post(3), rdma-core 45+): a
// FLUSH of a range or of a whole MR makes what earlier WRITEs placed there visible (global)
// or persistent, once it completes; it needs the FLUSH access of its placement type on the
// MR (IBV_ACCESS_FLUSH_GLOBAL / _PERSISTENT) and changes no byte itself.
//
// A build against rdma-core <45 has no ibv_wr_flush: the probe reports `flush` absent with
// that evidence and every test here skips (the bodies are compiled out).
#include <infiniband/verbs.h>

#include <cstdint>
#include <iostream>

#include "harness/status.h"
#include "harness/verbs/extensions.h"
#include "harness/verbs/post.h"
#include "testing/completion_matchers.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

constexpr uint32_t kBuffer = 16384;
constexpr Slice kRange{4096, 4096};  // what is written and flushed (several packets at any MTU)

#if RDMACHECK_HAVE_IBV_WR_FLUSH
// One signaled FLUSH through the extended QP API.
absl::Status PostFlush(ibv_qp_ex* qpx, uint64_t wr_id, const RemoteBuffer& target, uint8_t type, uint8_t level) {
  ibv_wr_start(qpx);
  qpx->wr_id = wr_id;
  qpx->wr_flags = IBV_SEND_SIGNALED;
  ibv_wr_flush(qpx, target.rkey, target.addr, target.length, type, level);
  if (int rc = WrComplete(qpx, 1); rc != 0) return ErrnoStatus(rc, "ibv_wr_complete(ibv_wr_flush)");
  return absl::OkStatus();
}
#endif

class FlushTest : public PairTest {
 protected:
  // Both the MR and the responder's QP carry `flush_access` (rxe's responder checks both).
  PairOptions FlushOptions(int mr_flush_access) const {
    PairOptions o = Options();
    o.buffer_size = kBuffer;
    o.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
#if RDMACHECK_HAVE_IBV_WR_FLUSH
    o.send_ops_flags |= IBV_QP_EX_WITH_FLUSH;
    o.path.access |= IBV_ACCESS_FLUSH_GLOBAL;
#endif
    o.mr_access |= mr_flush_access;
    return o;
  }
  // rdma_cm sets the QP's access flags itself (REMOTE_WRITE/READ/ATOMIC): the responder's
  // QP gets the FLUSH access by an RTS->RTS modify.
  static absl::Status GrantQpFlush(ConnectedPair& pair, const PairOptions& options) {
    if (pair.remote().qp() == nullptr) return absl::OkStatus();  // the peer's harness wires it by `options`
    ibv_qp_attr attr{};
    attr.qp_access_flags = options.path.access;
    if (int rc = ibv_modify_qp(pair.remote().qp(), &attr, IBV_QP_ACCESS_FLAGS); rc != 0) {
      return ErrnoStatus(rc, "ibv_modify_qp(RTS->RTS, IBV_QP_ACCESS_FLAGS with IBV_ACCESS_FLUSH_GLOBAL)");
    }
    return absl::OkStatus();
  }
  absl::StatusOr<ConnectedPair> FlushPair(int mr_flush_access) {
    PairOptions options = FlushOptions(mr_flush_access);
    RDMACHECK_ASSIGN_OR_RETURN(ConnectedPair pair, CreatePair(options));
    RDMACHECK_RETURN_IF_ERROR(GrantQpFlush(pair, options));
    return pair;
  }
};

#if RDMACHECK_HAVE_IBV_WR_FLUSH
#define RDMACHECK_FLUSH_BODY(...) __VA_ARGS__
#else
#define RDMACHECK_FLUSH_BODY(...) GTEST_SKIP() << kNoIbvWrFlush;
#endif

RDMACHECK_ABOUT(FlushTest, RangeFlushCompletes,
                "a global FLUSH of a 4 KiB range of an MR registered with IBV_ACCESS_FLUSH_GLOBAL completes with "
                "IBV_WC_SUCCESS and opcode IBV_WC_FLUSH and changes no byte of the MR",
                "IBTA Vol 1 1.5 A19 (FLUSH, selectivity level: memory range); ibv_wr_post(3) ibv_wr_flush "
                "(IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE)",
                Cap::kRcQp, Cap::kQpEx, Cap::kFlush);
TEST_P(FlushTest, RangeFlushCompletes) {
  RDMACHECK_FLUSH_BODY({
    ASSERT_OK_AND_ASSIGN(ConnectedPair pair, FlushPair(IBV_ACCESS_FLUSH_GLOBAL));
    ASSERT_OK(pair.remote().Fill({0, kBuffer}, Pattern::Seeded(11)));
    ASSERT_OK(PostFlush(pair.local().qp_ex(), 1, pair.local().peer_buffer().At(kRange.offset, kRange.length),
                        IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(SendCompletion(1, pair.local().qp_num(), IBV_WC_FLUSH)));
    EXPECT_OK(pair.remote().Check({0, kBuffer}, Pattern::Seeded(11)));
  })
}

RDMACHECK_ABOUT(FlushTest, WholeMrFlushCompletes,
                "a global FLUSH at the selectivity level of the whole MR (address and length not used) completes "
                "with IBV_WC_SUCCESS and opcode IBV_WC_FLUSH and changes no byte",
                "IBTA Vol 1 1.5 A19 (FLUSH, selectivity level: memory region); ibv_wr_post(3) (IBV_FLUSH_MR)",
                Cap::kRcQp, Cap::kQpEx, Cap::kFlush);
TEST_P(FlushTest, WholeMrFlushCompletes) {
  RDMACHECK_FLUSH_BODY({
    ASSERT_OK_AND_ASSIGN(ConnectedPair pair, FlushPair(IBV_ACCESS_FLUSH_GLOBAL));
    ASSERT_OK(pair.remote().Fill({0, kBuffer}, Pattern::Seeded(12)));
    ASSERT_OK(
        PostFlush(pair.local().qp_ex(), 1, pair.local().peer_buffer().At(0, 0), IBV_FLUSH_GLOBAL, IBV_FLUSH_MR));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(SendCompletion(1, pair.local().qp_num(), IBV_WC_FLUSH)));
    EXPECT_OK(pair.remote().Check({0, kBuffer}, Pattern::Seeded(12)));
  })
}

RDMACHECK_ABOUT(FlushTest, WriteIsPlacedWhenTheFlushCompletes,
                "an unsignaled 4 KiB RDMA WRITE followed by a FLUSH of its range: when the FLUSH completes, every "
                "byte of the WRITE is already in the remote memory (checked at once, without waiting)",
                "IBTA Vol 1 1.5 A19 (FLUSH completes after the placement of the RDMA WRITEs before it); "
                "IBTA Vol 1 9.5 (RC ordering)",
                Cap::kRcQp, Cap::kQpEx, Cap::kFlush, Cap::kRdmaWrite);
TEST_P(FlushTest, WriteIsPlacedWhenTheFlushCompletes) {
  RDMACHECK_FLUSH_BODY({
    ASSERT_OK_AND_ASSIGN(ConnectedPair pair, FlushPair(IBV_ACCESS_FLUSH_GLOBAL));
    ASSERT_OK(pair.remote().Fill({0, kBuffer}, Pattern::Constant(0)));
    ASSERT_OK(pair.local().Fill(kRange, Pattern::Seeded(13)));
    const RemoteBuffer target = pair.local().peer_buffer().At(kRange.offset, kRange.length);
    ASSERT_OK(pair.local().Post(SendRequest::Write(1, {kRange}, target).WithFlags(0)));
    ASSERT_OK(PostFlush(pair.local().qp_ex(), 2, target, IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(SendCompletion(2, pair.local().qp_num(), IBV_WC_FLUSH)));
    EXPECT_OK(pair.remote().Check(kRange, Pattern::Seeded(13)));
  })
}

RDMACHECK_ABOUT(FlushTest, WithoutFlushAccessIsRefused,
                "a global FLUSH of a range of an MR registered without IBV_ACCESS_FLUSH_GLOBAL (REMOTE_WRITE and "
                "REMOTE_READ only) completes with IBV_WC_REM_ACCESS_ERR",
                "IBTA Vol 1 1.5 A19 (the responder checks the MR's FLUSH access; NAK Remote Access Error); "
                "ibv_reg_mr(3) IBV_ACCESS_FLUSH_GLOBAL; rxe: check_rkey() looks the rkey up with "
                "IB_ACCESS_FLUSH_GLOBAL",
                Cap::kRcQp, Cap::kQpEx, Cap::kFlush);
TEST_P(FlushTest, WithoutFlushAccessIsRefused) {
  RDMACHECK_FLUSH_BODY({
    ASSERT_OK_AND_ASSIGN(ConnectedPair pair, FlushPair(0));
    ASSERT_OK(PostFlush(pair.local().qp_ex(), 1, pair.local().peer_buffer().At(kRange.offset, kRange.length),
                        IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(ErrorCompletion(1, pair.local().qp_num(), IBV_WC_REM_ACCESS_ERR)));
  })
}

RDMACHECK_ABOUT(FlushTest, RangeBeyondTheMrIsRefused,
                "a global FLUSH of a range that runs 4 KiB past the end of the MR completes with "
                "IBV_WC_REM_ACCESS_ERR",
                "IBTA Vol 1 1.5 A19 (the range must lie in the MR; NAK Remote Access Error); rxe: check_rkey() "
                "mr_check_range()",
                Cap::kRcQp, Cap::kQpEx, Cap::kFlush);
TEST_P(FlushTest, RangeBeyondTheMrIsRefused) {
  RDMACHECK_FLUSH_BODY({
    ASSERT_OK_AND_ASSIGN(ConnectedPair pair, FlushPair(IBV_ACCESS_FLUSH_GLOBAL));
    RemoteBuffer past = pair.local().peer_buffer().At(kBuffer - 64, 4096);
    ASSERT_OK(PostFlush(pair.local().qp_ex(), 1, past, IBV_FLUSH_GLOBAL, IBV_FLUSH_RANGE));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(ErrorCompletion(1, pair.local().qp_num(), IBV_WC_REM_ACCESS_ERR)));
  })
}

RDMACHECK_ABOUT(FlushTest, PersistentFlushOfAGlobalOnlyMrIsRefused,
                "a FLUSH of placement type persistent into an MR registered for global flushes only is refused by "
                "the responder: IBV_WC_REM_ACCESS_ERR (the MR lacks IBV_ACCESS_FLUSH_PERSISTENT) or "
                "IBV_WC_REM_INV_REQ_ERR (the QP lacks it as well); which one is recorded",
                "IBTA Vol 1 1.5 A19 (placement types global and persistent, each its own access right); "
                "ibv_reg_mr(3) IBV_ACCESS_FLUSH_PERSISTENT; rxe: check_qp_attr_access(), check_rkey()",
                Cap::kRcQp, Cap::kQpEx, Cap::kFlush);
TEST_P(FlushTest, PersistentFlushOfAGlobalOnlyMrIsRefused) {
  RDMACHECK_FLUSH_BODY({
    ASSERT_OK_AND_ASSIGN(ConnectedPair pair, FlushPair(IBV_ACCESS_FLUSH_GLOBAL));
    ASSERT_OK(PostFlush(pair.local().qp_ex(), 1, pair.local().peer_buffer().At(kRange.offset, kRange.length),
                        IBV_FLUSH_PERSISTENT, IBV_FLUSH_RANGE));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    RecordProperty("refused_with", ibv_wc_status_str(wc.status));
    std::cout << "[ NOTE     ] refused with " << ibv_wc_status_str(wc.status) << std::endl;
    EXPECT_THAT(wc, ::testing::AnyOf(
                        CompletionIs(ErrorCompletion(1, pair.local().qp_num(), IBV_WC_REM_ACCESS_ERR)),
                        CompletionIs(ErrorCompletion(1, pair.local().qp_num(), IBV_WC_REM_INV_REQ_ERR))));
  })
}

INSTANTIATE_TEST_SUITE_P(Connect, FlushTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
