// What the tests ask on an impaired wire (harness/wire_impairment.h): what a refused
// request may end in (testing/refusal_status.h), and which impairments may reorder.
#include "testing/refusal_status.h"

#include "absl/flags/flag.h"
#include "gtest/gtest.h"
#include "harness/wire_impairment.h"

namespace rdmacheck {
namespace {

// Sets --impaired_wire for one test and puts the old value back.
class WireFlag {
 public:
  explicit WireFlag(const std::string& profile) : old_(absl::GetFlag(FLAGS_impaired_wire)) {
    absl::SetFlag(&FLAGS_impaired_wire, profile);
  }
  ~WireFlag() { absl::SetFlag(&FLAGS_impaired_wire, old_); }

 private:
  std::string old_;
};

ibv_wc Told(ibv_wc_status status) {
  ibv_wc wc{};
  wc.status = status;
  return wc;
}

TEST(RefusalStatusTest, OnALosslessWireOnlyTheNakCounts) {
  WireFlag wire("");
  EXPECT_EQ(RefusalAsTold(Told(IBV_WC_RETRY_EXC_ERR), IBV_WC_REM_ACCESS_ERR), IBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(RefusalsAsTold({IBV_WC_REM_OP_ERR}), std::set<ibv_wc_status>{IBV_WC_REM_OP_ERR});
}

TEST(RefusalStatusTest, OnAnImpairedWireALostNakEndsInRetryExceeded) {
  WireFlag wire("ack-loss");
  EXPECT_EQ(RefusalAsTold(Told(IBV_WC_RETRY_EXC_ERR), IBV_WC_REM_ACCESS_ERR), IBV_WC_RETRY_EXC_ERR);
  // Any other status is still held to the NAK's: a flush or a success is no lost NAK.
  EXPECT_EQ(RefusalAsTold(Told(IBV_WC_WR_FLUSH_ERR), IBV_WC_REM_ACCESS_ERR), IBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(RefusalsAsTold({IBV_WC_REM_OP_ERR}), (std::set<ibv_wc_status>{IBV_WC_REM_OP_ERR, IBV_WC_RETRY_EXC_ERR}));
}

TEST(WireMayReorderTest, NetemsReorderDuplicateAndJitterDo) {
  for (const char* profile : {"reorder: delay 2ms reorder 25% 50%", "duplicate: duplicate 2%", "duplicate",
                              "jitter: delay 10ms 5ms"}) {
    WireFlag wire(profile);
    EXPECT_TRUE(WireMayReorder()) << profile;
  }
}

TEST(WireMayReorderTest, LossCorruptionAndAFixedDelayDoNot) {
  for (const char* profile : {"", "loss-1: loss random 1%", "corrupt: corrupt 1%", "delay: delay 150ms",
                              "ack-loss: acks: loss random 30%", "rate: rate 20mbit"}) {
    WireFlag wire(profile);
    EXPECT_FALSE(WireMayReorder()) << profile;
  }
}

}  // namespace
}  // namespace rdmacheck
