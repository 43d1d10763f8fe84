// ATOMIC WRITE (IBTA Vol 1 1.5, Annex A19; ibv_wr_atomic_write in ibv_wr_post(3)): 8 bytes
// from the requester land at an 8-byte aligned remote address as one unit, with the access
// rules of an RDMA WRITE. And on a device that does not declare it, posting it must not
// look like success.
#include <infiniband/verbs.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>

#include "absl/strings/str_cat.h"
#include "harness/status.h"
#include "harness/verbs/post.h"
#include "testing/completion_matchers.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

constexpr size_t kWord = 64;                         // the target word (8-byte aligned)
constexpr Slice kAround{kWord - 16, 40};             // the word with 16 bytes of canary either side
constexpr std::array<uint8_t, 8> kBytes = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
constexpr uint8_t kCanary = 0x5a;

// One ATOMIC WRITE of `bytes` through the extended QP API, signaled.
absl::Status PostAtomicWrite(ibv_qp_ex* qpx, uint64_t wr_id, const RemoteBuffer& target,
                             const std::array<uint8_t, 8>& bytes) {
  ibv_wr_start(qpx);
  qpx->wr_id = wr_id;
  qpx->wr_flags = IBV_SEND_SIGNALED;
  ibv_wr_atomic_write(qpx, target.rkey, target.addr, bytes.data());
  if (int rc = WrComplete(qpx, 1); rc != 0) return ErrnoStatus(rc, "ibv_wr_complete(ibv_wr_atomic_write)");
  return absl::OkStatus();
}

// What the word and its canary hold after `bytes` landed at kWord.
std::vector<uint8_t> Landed(const std::array<uint8_t, 8>& bytes) {
  std::vector<uint8_t> expected(kAround.length, kCanary);
  std::memcpy(expected.data() + (kWord - kAround.offset), bytes.data(), bytes.size());
  return expected;
}

std::string Hex(const std::vector<uint8_t>& bytes) {
  std::string out;
  for (uint8_t b : bytes) absl::StrAppend(&out, absl::Hex(b, absl::kZeroPad2));
  return out;
}

// Records what the device did (a test property) and prints it into the suite's log.
void Note(const std::string& key, const std::string& value) {
  ::testing::Test::RecordProperty(key, value);
  std::cout << "[ NOTE     ] " << key << ": " << value << std::endl;
}

class AtomicWriteTest : public PairTest {
 protected:
  PairOptions WriteOptions() const {
    PairOptions o = Options();
    o.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_RDMA_WRITE;
    return o;
  }
};

RDMACHECK_ABOUT(AtomicWriteTest, EightBytesLandAsSent,
                "an ATOMIC WRITE puts its 8 bytes at the remote address in the order given (no byte swap, none "
                "missing) and touches no byte beside them; the completion is IBV_WC_ATOMIC_WRITE",
                "IBTA Vol 1 1.5 A19.4.2 (ATOMIC WRITE: 8 bytes written as a unit); ibv_wr_post(3) ibv_wr_atomic_write",
                Cap::kRcQp, Cap::kQpEx, Cap::kAtomicWrite);
TEST_P(AtomicWriteTest, EightBytesLandAsSent) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(WriteOptions()));
  ASSERT_OK(pair.remote().Fill(kAround, Pattern::Constant(kCanary)));
  ASSERT_OK(PostAtomicWrite(pair.local().qp_ex(), 1, pair.local().peer_buffer().At(kWord, 8), kBytes));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(SendCompletion(1, pair.local().qp_num(), IBV_WC_ATOMIC_WRITE)));
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> got, pair.remote().Read(kAround));
  EXPECT_EQ(Hex(got), Hex(Landed(kBytes))) << "the word at +16 and 16 canary bytes either side";
}

RDMACHECK_ABOUT(AtomicWriteTest, LastOfManyWins,
                "16 ATOMIC WRITEs to one word posted as one list complete in order, and the word holds the last "
                "one's bytes (RC executes them in posting order)",
                "IBTA Vol 1 1.5 A19.4.2; IBTA Vol 1 9.5 (RC ordering)", Cap::kRcQp, Cap::kQpEx, Cap::kAtomicWrite);
TEST_P(AtomicWriteTest, LastOfManyWins) {
  constexpr int kCount = 16;
  PairOptions options = WriteOptions();
  options.max_send_wr = kCount;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.remote().Fill(kAround, Pattern::Constant(kCanary)));
  ibv_qp_ex* qpx = pair.local().qp_ex();
  std::vector<std::array<uint8_t, 8>> values(kCount);
  ibv_wr_start(qpx);
  for (int i = 0; i < kCount; ++i) {
    for (int b = 0; b < 8; ++b) values[i][b] = static_cast<uint8_t>(0x10 * i + b);
    qpx->wr_id = i;
    qpx->wr_flags = IBV_SEND_SIGNALED;
    const RemoteBuffer target = pair.local().peer_buffer().At(kWord, 8);
    ibv_wr_atomic_write(qpx, target.rkey, target.addr, values[i].data());
  }
  ASSERT_EQ(WrComplete(qpx, kCount), 0);
  ASSERT_OK_AND_ASSIGN(std::vector<ibv_wc> wcs, pair.local().PollSends(kCount));
  for (int i = 0; i < kCount; ++i) {
    EXPECT_THAT(wcs[i], CompletionIs(SendCompletion(i, pair.local().qp_num(), IBV_WC_ATOMIC_WRITE)));
  }
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> got, pair.remote().Read(kAround));
  EXPECT_EQ(Hex(got), Hex(Landed(values.back())));
}

RDMACHECK_ABOUT(AtomicWriteTest, FollowsAPrecedingWrite,
                "an RDMA WRITE of 64 bytes over the word followed by an ATOMIC WRITE to it leaves the ATOMIC WRITE's "
                "bytes in the word and the WRITE's around it (the ATOMIC WRITE is not overtaken)",
                "IBTA Vol 1 1.5 A19.4.2; IBTA Vol 1 9.5 (RC ordering)", Cap::kRcQp, Cap::kQpEx, Cap::kAtomicWrite,
                Cap::kRdmaWrite);
TEST_P(AtomicWriteTest, FollowsAPrecedingWrite) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(WriteOptions()));
  ASSERT_OK(pair.remote().Fill(kAround, Pattern::Constant(kCanary)));
  ASSERT_OK(pair.local().Fill({1024, kAround.length}, Pattern::Constant(0x33)));
  ASSERT_OK(pair.local().Post(
      SendRequest::Write(1, {{1024, kAround.length}}, pair.local().peer_buffer().At(kAround.offset, kAround.length))
          .WithFlags(0)));
  ASSERT_OK(PostAtomicWrite(pair.local().qp_ex(), 2, pair.local().peer_buffer().At(kWord, 8), kBytes));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(SendCompletion(2, pair.local().qp_num(), IBV_WC_ATOMIC_WRITE)));
  std::vector<uint8_t> expected(kAround.length, 0x33);
  std::memcpy(expected.data() + (kWord - kAround.offset), kBytes.data(), kBytes.size());
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> got, pair.remote().Read(kAround));
  EXPECT_EQ(Hex(got), Hex(expected));
}

RDMACHECK_ABOUT(AtomicWriteTest, UnalignedAddressIsRefused,
                "an ATOMIC WRITE to an address that is not 8-byte aligned is refused, by the responder "
                "(IBV_WC_REM_INV_REQ_ERR) or already at post (EINVAL), and changes no byte (which is recorded)",
                "IBTA Vol 1 1.5 A19.4.2 (the address must be naturally aligned; else NAK Invalid Request); "
                "rxe: rxe_mr_do_atomic_write() answers RESPST_ERR_MISALIGNED_ATOMIC",
                Cap::kRcQp, Cap::kQpEx, Cap::kAtomicWrite);
TEST_P(AtomicWriteTest, UnalignedAddressIsRefused) {
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(WriteOptions()));
  ASSERT_OK(pair.remote().Fill(kAround, Pattern::Constant(kCanary)));
  absl::Status posted = PostAtomicWrite(pair.local().qp_ex(), 1, pair.local().peer_buffer().At(kWord + 4, 8), kBytes);
  if (posted.ok()) {
    Note("refused_by", "responder");
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(ErrorCompletion(1, pair.local().qp_num(), IBV_WC_REM_INV_REQ_ERR)));
  } else {
    Note("refused_by", "ibv_wr_complete");
    EXPECT_THAT(posted, HasErrno(EINVAL));
  }
  EXPECT_OK(pair.remote().Check(kAround, Pattern::Constant(kCanary)));
}

RDMACHECK_ABOUT(AtomicWriteTest, WithoutRemoteWriteIsRefused,
                "an ATOMIC WRITE into an MR registered without IBV_ACCESS_REMOTE_WRITE (but with REMOTE_READ and "
                "REMOTE_ATOMIC) completes with IBV_WC_REM_ACCESS_ERR and changes no byte: it needs the write right, "
                "not the atomic one",
                "IBTA Vol 1 1.5 A19.4.2 (ATOMIC WRITE checks RDMA WRITE access); rxe: check_rkey() asks "
                "IB_ACCESS_REMOTE_WRITE for RXE_ATOMIC_WRITE_MASK",
                Cap::kRcQp, Cap::kQpEx, Cap::kAtomicWrite);
TEST_P(AtomicWriteTest, WithoutRemoteWriteIsRefused) {
  PairOptions options = WriteOptions();
  options.EnableAtomics();
  options.mr_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  ASSERT_OK(pair.remote().Fill(kAround, Pattern::Constant(kCanary)));
  ASSERT_OK(PostAtomicWrite(pair.local().qp_ex(), 1, pair.local().peer_buffer().At(kWord, 8), kBytes));
  ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
  EXPECT_THAT(wc, CompletionIs(ErrorCompletion(1, pair.local().qp_num(), IBV_WC_REM_ACCESS_ERR)));
  EXPECT_OK(pair.remote().Check(kAround, Pattern::Constant(kCanary)));
}

INSTANTIATE_TEST_SUITE_P(Connect, AtomicWriteTest, AllConnectMethods(), ConnectMethodParamName);

// A device that does not declare ATOMIC WRITE (device_cap_flags lacks ATOMIC_WRITE) may still
// have a provider that takes the opcode (rdma-core 44's rxe provider on kernel 6.1, whose
// kernel has no ATOMIC WRITE). Posting one must then fail visibly.
class UndeclaredAtomicWriteTest : public PairTest {};

RDMACHECK_ABOUT(UndeclaredAtomicWriteTest, IsRefusedOrCompletesInError,
                "on a device that does not declare ATOMIC WRITE, an ibv_wr_atomic_write is refused (the QP with "
                "IBV_QP_EX_WITH_ATOMIC_WRITE, or ibv_wr_complete) or completes with an error status, and the target "
                "memory is unchanged: it never completes successfully, whether it wrote or not (what happened is "
                "recorded as refused_by)",
                "ibv_query_device_ex(3) (device_cap_flags_ex IB_UVERBS_DEVICE_ATOMIC_WRITE); ibv_wr_post(3); "
                "ibv_create_qp_ex(3) send_ops_flags",
                Cap::kRcQp, Cap::kQpEx);
TEST_P(UndeclaredAtomicWriteTest, IsRefusedOrCompletesInError) {
  if (Decide(profile(), Cap::kAtomicWrite).available) {
    GTEST_SKIP() << "the device declares ATOMIC WRITE (AtomicWriteTest grades it)";
  }
  PairOptions options = Options();
  options.send_ops_flags = IBV_QP_EX_WITH_ATOMIC_WRITE | IBV_QP_EX_WITH_RDMA_WRITE;
  absl::StatusOr<ConnectedPair> created = CreatePair(options);
  if (!created.ok()) {
    Note("refused_by", "ibv_create_qp_ex");
    EXPECT_TRUE(ErrnoOf(created.status()).has_value()) << "the pair failed without an errno: " << created.status();
    return;
  }
  ConnectedPair& pair = *created;
  ASSERT_OK(pair.remote().Fill(kAround, Pattern::Constant(kCanary)));
  absl::Status posted = PostAtomicWrite(pair.local().qp_ex(), 1, pair.local().peer_buffer().At(kWord, 8), kBytes);
  if (!posted.ok()) {
    Note("refused_by", "ibv_wr_complete");
  } else {
    absl::StatusOr<ibv_wc> wc = pair.local().PollSend();
    ASSERT_TRUE(wc.ok()) << "the undeclared ATOMIC WRITE never completed: " << wc.status();
    Note("refused_by", absl::StrCat("completion ", ibv_wc_status_str(wc->status)));
    EXPECT_NE(wc->status, IBV_WC_SUCCESS) << "the undeclared ATOMIC WRITE completed with IBV_WC_SUCCESS";
    EXPECT_EQ(wc->wr_id, 1u);
  }
  EXPECT_OK(pair.remote().Check(kAround, Pattern::Constant(kCanary)));
}

INSTANTIATE_TEST_SUITE_P(Connect, UndeclaredAtomicWriteTest, AllConnectMethods(), ConnectMethodParamName);

}  // namespace
}  // namespace rdmacheck
