// Checking work completions: one place that knows which ibv_wc fields a completion must
// carry, so tests state what they expect instead of comparing fields one by one.
//
//   EXPECT_THAT(send_wc, CompletionIs(SendCompletion(/*wr_id=*/11, pair.local().qp_num())));
//   EXPECT_THAT(recv_wc, CompletionIs(RecvCompletion(21, pair.remote().qp_num(), 1000).WithImm(0x1234)));
//   EXPECT_THAT(wc, CompletionIs(ErrorCompletion(5, qpn, IBV_WC_RNR_RETRY_EXC_ERR)));
//
// Which fields are checked (ibv_poll_cq(3); IBTA Vol 1 11.4.2.1):
//   always          status, wr_id, qp_num
//   success         opcode
//   receive side    byte_len; IBV_WC_WITH_IMM set exactly when immediate data is expected, and
//                   imm_data equal to it; IBV_WC_WITH_INV and invalidated_rkey likewise;
//                   UD: src_qp and IBV_WC_GRH
//   send side       byte_len only for RDMA READ and atomics (the man page: "relevant in the
//                   Send Queue for RDMA Read and Atomic operations")
// On an error completion only status, wr_id and qp_num are valid, so nothing else is checked.
#ifndef RDMACHECK_TESTING_COMPLETION_MATCHERS_H_
#define RDMACHECK_TESTING_COMPLETION_MATCHERS_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/types/optional.h"
#include "gmock/gmock.h"
#include "harness/completion.h"

namespace rdmacheck {

struct ExpectedWc {
  ibv_wc_status status = IBV_WC_SUCCESS;
  ibv_wc_opcode opcode = IBV_WC_SEND;
  uint64_t wr_id = 0;
  uint32_t qp_num = 0;
  bool receive_side = false;
  absl::optional<uint32_t> byte_len;
  absl::optional<uint32_t> imm;               // host order; receive side: unset = WITH_IMM must be clear
  absl::optional<uint32_t> invalidated_rkey;  // receive side: unset = WITH_INV must be clear
  absl::optional<uint32_t> src_qp;            // UD receives
  absl::optional<bool> grh;                   // UD receives: IBV_WC_GRH

  ExpectedWc& WithImm(uint32_t value) { imm = value; return *this; }
  ExpectedWc& WithInvalidate(uint32_t rkey) { invalidated_rkey = rkey; return *this; }
  ExpectedWc& WithLength(uint32_t length) { byte_len = length; return *this; }
  ExpectedWc& FromUd(uint32_t source_qp, bool with_grh = true) { src_qp = source_qp; grh = with_grh; return *this; }
};

// A successful send-queue completion; `opcode` from SendSideOpcode() for other WRs.
ExpectedWc SendCompletion(uint64_t wr_id, uint32_t qp_num, ibv_wc_opcode opcode = IBV_WC_SEND);
// A successful receive: IBV_WC_RECV (IBV_WC_RECV_RDMA_WITH_IMM for WRITE_WITH_IMM).
ExpectedWc RecvCompletion(uint64_t wr_id, uint32_t qp_num, uint32_t byte_len, ibv_wc_opcode opcode = IBV_WC_RECV);
ExpectedWc ErrorCompletion(uint64_t wr_id, uint32_t qp_num, ibv_wc_status status);

// The send-queue completion opcode of a WR opcode (SEND_WITH_IMM -> IBV_WC_SEND, ...).
ibv_wc_opcode SendSideOpcode(ibv_wr_opcode opcode);

// Every way `wc` differs from `expected` ("byte_len is 999, expected 1000"); empty if none.
std::vector<std::string> WcMismatches(const ibv_wc& wc, const ExpectedWc& expected);

MATCHER_P(CompletionIs, expected, "is the expected work completion") {
  std::vector<std::string> mismatches = WcMismatches(arg, expected);
  if (mismatches.empty()) return true;
  *result_listener << DescribeWc(arg) << ": " << absl::StrJoin(mismatches, "; ");
  return false;
}

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_COMPLETION_MATCHERS_H_
