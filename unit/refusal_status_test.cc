// What a test expects of a refused request on a lossless and on an impaired wire
// (testing/refusal_status.h, harness/wire_impairment.h).
#include "testing/refusal_status.h"

#include "absl/flags/flag.h"
#include "gtest/gtest.h"
#include "harness/connection/qp_attr.h"
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
  EXPECT_EQ(PathOptions{}.retry_cnt, 7);
}

TEST(RefusalStatusTest, OnAnImpairedWireALostNakEndsInRetryExceeded) {
  WireFlag wire("ack-loss");
  EXPECT_EQ(RefusalAsTold(Told(IBV_WC_RETRY_EXC_ERR), IBV_WC_REM_ACCESS_ERR), IBV_WC_RETRY_EXC_ERR);
  // Any other status is still held to the NAK's: a flush or a success is no lost NAK.
  EXPECT_EQ(RefusalAsTold(Told(IBV_WC_WR_FLUSH_ERR), IBV_WC_REM_ACCESS_ERR), IBV_WC_REM_ACCESS_ERR);
  EXPECT_EQ(RefusalsAsTold({IBV_WC_REM_OP_ERR}), (std::set<ibv_wc_status>{IBV_WC_REM_OP_ERR, IBV_WC_RETRY_EXC_ERR}));
  // A count that runs out (rxe takes 7 for "forever"), so a lost NAK ends the WR.
  EXPECT_EQ(PathOptions{}.retry_cnt, 6);
}

}  // namespace
}  // namespace rdmacheck
