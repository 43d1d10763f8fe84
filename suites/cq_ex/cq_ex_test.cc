// Extended CQs (ibv_create_cq_ex): which wc_flags a device accepts, the start/next/end
// polling protocol, and that the ibv_wc_read_* accessors report what ibv_poll_cq reports.
// Skipped where the device has no extended CQs (capability cq_ex).
#include <infiniband/verbs.h>

#include <cerrno>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/types/optional.h"
#include "harness/completion.h"
#include "harness/connection/cm_steps.h"
#include "harness/status.h"
#include "testing/completion_source.h"
#include "testing/device_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

// The wc_flags that ask for the fields every struct ibv_wc carries: a device that polls
// them through ibv_poll_cq can report them through ibv_wc_read_* too.
constexpr uint64_t kClassicWcFlags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_IMM | IBV_WC_EX_WITH_QP_NUM |
                                     IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_SLID | IBV_WC_EX_WITH_SL |
                                     IBV_WC_EX_WITH_DLID_PATH_BITS;

absl::StatusOr<CqPtr> CreateCqEx(ibv_context* context, int cqe, uint64_t wc_flags,
                                 ibv_comp_channel* channel = nullptr) {
  ibv_cq_init_attr_ex attr{};
  attr.cqe = static_cast<uint32_t>(cqe);
  attr.channel = channel;
  attr.wc_flags = wc_flags;
  ibv_cq_ex* cq = ibv_create_cq_ex(context, &attr);
  if (cq == nullptr) return ErrnoStatus(errno, absl::StrCat("ibv_create_cq_ex(wc_flags=0x", absl::Hex(wc_flags), ")"));
  return CqPtr(ibv_cq_ex_to_cq(cq));
}

// ibv_cq_ex_to_cq is a cast of the same object; this is its inverse, for CQs made above.
ibv_cq_ex* AsCqEx(ibv_cq* cq) { return reinterpret_cast<ibv_cq_ex*>(cq); }

// ---- Which wc_flags bits a device must accept, computed in one place from the device's
// attributes: true = must accept, false = must refuse, nullopt = the spec leaves it open.
struct WcFlag {
  const char* name;
  uint64_t flag;
  absl::optional<bool> (*must_accept)(const ibv_device_attr_ex& attr);
};

absl::optional<bool> ClassicField(const ibv_device_attr_ex&) { return true; }
absl::optional<bool> IfTimestamps(const ibv_device_attr_ex& a) { return a.completion_timestamp_mask != 0; }
absl::optional<bool> WallclockRule(const ibv_device_attr_ex& a) {
  if (a.completion_timestamp_mask == 0) return false;  // no completion clock at all
  return absl::nullopt;                                // a clock, but maybe not a wall clock
}
absl::optional<bool> CvlanRule(const ibv_device_attr_ex& a) {
  if (a.raw_packet_caps & IBV_RAW_PACKET_CAP_CVLAN_STRIPPING) return true;
  return absl::nullopt;
}
absl::optional<bool> Unspecified(const ibv_device_attr_ex&) { return absl::nullopt; }
absl::optional<bool> IfTagMatching(const ibv_device_attr_ex& a) { return a.tm_caps.max_num_tags > 0; }

class CqExFlagTest : public DeviceTest, public ::testing::WithParamInterface<WcFlag> {};

RDMACHECK_ABOUT(CqExFlagTest, CreateWithFlag,
                "ibv_create_cq_ex with one wc_flags bit: the fields of struct ibv_wc (byte_len, imm, qp_num, src_qp, "
                "slid, sl, dlid_path_bits) are always accepted; timestamps only with completion_timestamp_mask, "
                "tag-matching info only with tm_caps; a refusal is EOPNOTSUPP or EINVAL; where the spec leaves it "
                "open the outcome is recorded",
                "ibv_create_cq_ex(3) wc_flags; ibv_query_device_ex(3) completion_timestamp_mask, raw_packet_caps, "
                "tm_caps",
                Cap::kCqEx);
TEST_P(CqExFlagTest, CreateWithFlag) {
  const absl::optional<bool> must_accept = GetParam().must_accept(device_attr());
  absl::StatusOr<CqPtr> cq = CreateCqEx(context(), 16, GetParam().flag);
  RecordProperty("accepted", cq.ok() ? "yes" : std::string(cq.status().message()));
  if (must_accept.has_value() && *must_accept) {
    EXPECT_OK(cq) << "a device with this field must offer it";
  } else if (must_accept.has_value()) {
    EXPECT_FALSE(cq.ok()) << "accepted although the device declares no support for it";
  }
  if (!cq.ok()) {
    EXPECT_THAT(ErrnoOf(cq.status()).value_or(0), ::testing::AnyOf(ErrnoIs(EOPNOTSUPP), ErrnoIs(EINVAL)));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Flags, CqExFlagTest,
    ::testing::Values(WcFlag{"ByteLen", IBV_WC_EX_WITH_BYTE_LEN, ClassicField},
                      WcFlag{"Imm", IBV_WC_EX_WITH_IMM, ClassicField},
                      WcFlag{"QpNum", IBV_WC_EX_WITH_QP_NUM, ClassicField},
                      WcFlag{"SrcQp", IBV_WC_EX_WITH_SRC_QP, ClassicField},
                      WcFlag{"Slid", IBV_WC_EX_WITH_SLID, ClassicField},
                      WcFlag{"Sl", IBV_WC_EX_WITH_SL, ClassicField},
                      WcFlag{"DlidPathBits", IBV_WC_EX_WITH_DLID_PATH_BITS, ClassicField},
                      WcFlag{"CompletionTimestamp", IBV_WC_EX_WITH_COMPLETION_TIMESTAMP, IfTimestamps},
                      WcFlag{"CompletionTimestampWallclock", IBV_WC_EX_WITH_COMPLETION_TIMESTAMP_WALLCLOCK,
                             WallclockRule},
                      WcFlag{"Cvlan", IBV_WC_EX_WITH_CVLAN, CvlanRule},
                      WcFlag{"FlowTag", IBV_WC_EX_WITH_FLOW_TAG, Unspecified},
                      WcFlag{"TmInfo", IBV_WC_EX_WITH_TM_INFO, IfTagMatching}),
    [](const ::testing::TestParamInfo<WcFlag>& info) { return std::string(info.param.name); });

class CqExTest : public DeviceTest {};

RDMACHECK_ABOUT(CqExTest, UnknownWcFlagFails,
                "ibv_create_cq_ex with a wc_flags bit no verbs version defines (1 << 40) fails with EOPNOTSUPP or "
                "EINVAL",
                "ibv_create_cq_ex(3)", Cap::kCqEx);
TEST_F(CqExTest, UnknownWcFlagFails) {
  absl::StatusOr<CqPtr> cq = CreateCqEx(context(), 16, IBV_WC_EX_WITH_BYTE_LEN | (1ull << 40));
  ASSERT_FALSE(cq.ok()) << "a CQ with an undefined wc_flags bit was created";
  EXPECT_THAT(ErrnoOf(cq.status()).value_or(0), ::testing::AnyOf(ErrnoIs(EOPNOTSUPP), ErrnoIs(EINVAL)));
}

// ibv_create_cq_ex with comp_mask bit 31, which no verbs version defines; errno of the call.
struct CompMaskAttempt {
  CqPtr cq;
  int err = 0;
};
CompMaskAttempt CreateWithUndefinedCompMask(ibv_context* context) {
  ibv_cq_init_attr_ex attr{};
  attr.cqe = 16;
  attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
  attr.comp_mask = 1u << 31;
  errno = 0;
  ibv_cq_ex* cq = ibv_create_cq_ex(context, &attr);
  CompMaskAttempt attempt;
  attempt.err = errno;
  attempt.cq.reset(cq != nullptr ? ibv_cq_ex_to_cq(cq) : nullptr);
  return attempt;
}

RDMACHECK_ABOUT(CqExTest, UnknownCompMaskRefused,
                "ibv_create_cq_ex with an undefined comp_mask bit (1 << 31) returns NULL instead of ignoring the bit",
                "ibv_create_cq_ex(3) comp_mask (IBV_CQ_INIT_ATTR_MASK_FLAGS and _PD are the defined bits)",
                Cap::kCqEx);
TEST_F(CqExTest, UnknownCompMaskRefused) {
  EXPECT_EQ(CreateWithUndefinedCompMask(context()).cq, nullptr) << "an undefined comp_mask bit was ignored";
}

RDMACHECK_ABOUT(CqExTest, UnknownCompMaskSetsErrno,
                "when ibv_create_cq_ex refuses an undefined comp_mask bit, errno says why: EINVAL or EOPNOTSUPP",
                "ibv_create_cq_ex(3); libibverbs convention: a verb returning NULL sets errno", Cap::kCqEx);
TEST_F(CqExTest, UnknownCompMaskSetsErrno) {
  CompMaskAttempt attempt = CreateWithUndefinedCompMask(context());
  if (attempt.cq) GTEST_SKIP() << "the CQ was created (UnknownCompMaskRefused reports that)";
  EXPECT_THAT(attempt.err, ::testing::AnyOf(ErrnoIs(EINVAL), ErrnoIs(EOPNOTSUPP)));
}

RDMACHECK_ABOUT(CqExTest, StartPollOnEmptyCqReturnsEnoent,
                "ibv_start_poll on an extended CQ without completions returns ENOENT (and ibv_end_poll is then not "
                "called)",
                "ibv_create_cq_ex(3): start_poll returns ENOENT when the CQ is empty", Cap::kCqEx);
TEST_F(CqExTest, StartPollOnEmptyCqReturnsEnoent) {
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCqEx(context(), 16, kClassicWcFlags));
  ibv_poll_cq_attr attr{};
  EXPECT_THAT(ibv_start_poll(AsCqEx(cq.get()), &attr), ErrnoIs(ENOENT));
}

// A pair whose active side (in this process in every mode) receives into an extended CQ
// (on a completion channel, for FillRecvCq); the messages come from the passive side.
class CqExTrafficTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(ibv_context * pair_context, PairContext(context(), selection(), connect_method()));
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(pair_context));
    ASSERT_OK_AND_ASSIGN(channel_, CreateCompChannel(pair_context));
    ASSERT_OK_AND_ASSIGN(cq_, CreateCqEx(pair_context, 16, kClassicWcFlags, channel_.get()));
    PairOptions options = CompletionSourceOptions(8);
    options.active_shared = {pd_.get(), nullptr, cq_.get()};
    ASSERT_OK_AND_ASSIGN(pair_, CreatePair(options));
  }

  ibv_cq_ex* cq_ex() { return AsCqEx(cq_.get()); }

  // Declared in creation order; the pair goes first.
  PdPtr pd_;
  CompChannelPtr channel_;
  CqPtr cq_;
  absl::optional<ConnectedPair> pair_;
};

RDMACHECK_ABOUT(CqExTrafficTest, StartNextEndPollOverBatch,
                "with 6 completions waiting, ibv_start_poll yields the first, ibv_next_poll the next 5 in order, "
                "then ENOENT; after ibv_end_poll the CQ is empty (a new ibv_start_poll returns ENOENT)",
                "ibv_create_cq_ex(3) (start_poll / next_poll / end_poll and its example loop)", Cap::kCqEx,
                Cap::kRcQp);
TEST_F(CqExTrafficTest, StartNextEndPollOverBatch) {
  constexpr int kCount = 6;
  ASSERT_OK(FillRecvCq(pair_->remote(), pair_->local(), kCount));
  ibv_poll_cq_attr attr{};
  ASSERT_THAT(ibv_start_poll(cq_ex(), &attr), ErrnoIs(0));
  std::vector<uint64_t> wr_ids;
  int rc = 0;
  do {
    EXPECT_EQ(cq_ex()->status, IBV_WC_SUCCESS) << WcStatusName(cq_ex()->status);
    EXPECT_EQ(ibv_wc_read_opcode(cq_ex()), IBV_WC_RECV);
    EXPECT_EQ(ibv_wc_read_byte_len(cq_ex()), kMessageBytes);
    wr_ids.push_back(cq_ex()->wr_id);
    rc = ibv_next_poll(cq_ex());
  } while (rc == 0 && wr_ids.size() <= kCount);
  EXPECT_THAT(rc, ErrnoIs(ENOENT));
  ibv_end_poll(cq_ex());
  std::vector<uint64_t> expected;
  for (int i = 0; i < kCount; ++i) expected.push_back(kFirstWrId + i);
  EXPECT_EQ(wr_ids, expected);
  rc = ibv_start_poll(cq_ex(), &attr);
  if (rc == 0) ibv_end_poll(cq_ex());
  EXPECT_THAT(rc, ErrnoIs(ENOENT)) << "the CQ is not empty after a batch that next_poll ended with ENOENT";
}

RDMACHECK_ABOUT(CqExTrafficTest, ReadAccessorsMatchClassicPoll,
                "of two identical receives, the one polled with ibv_poll_cq and the one read with ibv_wc_read_* "
                "report the same status, opcode, byte_len, qp_num, src_qp, wc_flags, slid, sl and dlid_path_bits",
                "ibv_create_cq_ex(3) ibv_wc_read_*; ibv_poll_cq(3) struct ibv_wc", Cap::kCqEx, Cap::kRcQp);
TEST_F(CqExTrafficTest, ReadAccessorsMatchClassicPoll) {
  ASSERT_OK(FillRecvCq(pair_->remote(), pair_->local(), 2));
  ibv_wc classic{};
  ASSERT_EQ(ibv_poll_cq(cq_.get(), 1, &classic), 1);
  EXPECT_EQ(classic.wr_id, kFirstWrId);
  ibv_poll_cq_attr attr{};
  ASSERT_THAT(ibv_start_poll(cq_ex(), &attr), ErrnoIs(0));
  ibv_wc ex{};
  ex.wr_id = cq_ex()->wr_id;
  ex.status = cq_ex()->status;
  ex.opcode = ibv_wc_read_opcode(cq_ex());
  ex.byte_len = ibv_wc_read_byte_len(cq_ex());
  ex.qp_num = ibv_wc_read_qp_num(cq_ex());
  ex.src_qp = ibv_wc_read_src_qp(cq_ex());
  ex.wc_flags = ibv_wc_read_wc_flags(cq_ex());
  ex.slid = static_cast<uint16_t>(ibv_wc_read_slid(cq_ex()));
  ex.sl = ibv_wc_read_sl(cq_ex());
  ex.dlid_path_bits = ibv_wc_read_dlid_path_bits(cq_ex());
  ex.vendor_err = ibv_wc_read_vendor_err(cq_ex());
  ibv_end_poll(cq_ex());
  EXPECT_EQ(ex.wr_id, kFirstWrId + 1);
  EXPECT_EQ(ex.status, classic.status);
  EXPECT_EQ(ex.opcode, classic.opcode);
  EXPECT_EQ(ex.byte_len, classic.byte_len);
  EXPECT_EQ(ex.qp_num, classic.qp_num);
  EXPECT_EQ(ex.src_qp, classic.src_qp);
  EXPECT_EQ(ex.wc_flags, classic.wc_flags);
  EXPECT_EQ(ex.slid, classic.slid);
  EXPECT_EQ(ex.sl, classic.sl);
  EXPECT_EQ(ex.dlid_path_bits, classic.dlid_path_bits);
  EXPECT_EQ(ex.qp_num, pair_->local().qp_num());
  RecordProperty("classic", DescribeWc(classic));
  RecordProperty("extended", DescribeWc(ex));
}

}  // namespace
}  // namespace rdmacheck
