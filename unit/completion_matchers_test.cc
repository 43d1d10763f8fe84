#include "testing/completion_matchers.h"

#include <arpa/inet.h>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

ibv_wc Recv(uint64_t wr_id, uint32_t qp, uint32_t len) {
  ibv_wc wc{};
  wc.status = IBV_WC_SUCCESS;
  wc.opcode = IBV_WC_RECV;
  wc.wr_id = wr_id;
  wc.qp_num = qp;
  wc.byte_len = len;
  return wc;
}

TEST(CompletionMatchersTest, MatchingReceive) {
  EXPECT_THAT(Recv(1, 2, 3), CompletionIs(RecvCompletion(1, 2, 3)));
  EXPECT_THAT(WcMismatches(Recv(1, 2, 3), RecvCompletion(1, 2, 3)), IsEmpty());
}

TEST(CompletionMatchersTest, EachFieldIsNamed) {
  EXPECT_THAT(WcMismatches(Recv(1, 2, 4), RecvCompletion(1, 2, 3)), ElementsAre("byte_len is 4, expected 3"));
  EXPECT_THAT(WcMismatches(Recv(9, 2, 3), RecvCompletion(1, 2, 3)), ElementsAre("wr_id is 9, expected 1"));
  EXPECT_THAT(WcMismatches(Recv(1, 7, 3), RecvCompletion(1, 2, 3)), ElementsAre("qp_num is 7, expected 2"));
}

TEST(CompletionMatchersTest, ImmediateMustBeThereExactlyWhenExpected) {
  ibv_wc wc = Recv(1, 2, 3);
  wc.wc_flags = IBV_WC_WITH_IMM;
  wc.imm_data = htonl(0x8badf00d);
  EXPECT_THAT(wc, CompletionIs(RecvCompletion(1, 2, 3).WithImm(0x8badf00d)));
  EXPECT_THAT(wc, Not(CompletionIs(RecvCompletion(1, 2, 3).WithImm(0x8badf00e))));
  EXPECT_THAT(WcMismatches(wc, RecvCompletion(1, 2, 3)), ElementsAre(HasSubstr("IBV_WC_WITH_IMM is set")));
  wc.wc_flags = 0;
  EXPECT_THAT(WcMismatches(wc, RecvCompletion(1, 2, 3).WithImm(1)), ElementsAre(HasSubstr("is not set")));
}

// Without IBV_WC_WITH_INV the field still tells a flag-only deviation (rxe: the rkey is
// there) from a wrong or absent rkey: the message says which.
TEST(CompletionMatchersTest, MissingInvalidateFlagSaysWhatTheFieldHolds) {
  ibv_wc wc = Recv(1, 2, 3);
  wc.wc_flags = IBV_WC_IP_CSUM_OK;
  wc.invalidated_rkey = 0x1234;
  EXPECT_THAT(WcMismatches(wc, RecvCompletion(1, 2, 3).WithInvalidate(0x1234)),
              ElementsAre("IBV_WC_WITH_INV is not set, expected an invalidated rkey; the field holds the expected rkey"));
  EXPECT_THAT(WcMismatches(wc, RecvCompletion(1, 2, 3).WithInvalidate(0x1233)),
              ElementsAre("IBV_WC_WITH_INV is not set, expected an invalidated rkey; the field holds 0x1234, not the "
                          "expected 0x1233"));
}

TEST(CompletionMatchersTest, ErrorCompletionChecksOnlyValidFields) {
  ibv_wc wc = Recv(5, 6, 99);
  wc.status = IBV_WC_RNR_RETRY_EXC_ERR;
  wc.opcode = static_cast<ibv_wc_opcode>(0x7f);  // undefined on error completions
  EXPECT_THAT(wc, CompletionIs(ErrorCompletion(5, 6, IBV_WC_RNR_RETRY_EXC_ERR)));
  EXPECT_THAT(WcMismatches(wc, SendCompletion(5, 6)),
              ElementsAre("status is IBV_WC_RNR_RETRY_EXC_ERR, expected IBV_WC_SUCCESS"));
}

TEST(CompletionMatchersTest, SendSideIgnoresByteLenExceptReadAndAtomics) {
  ibv_wc wc{};
  wc.opcode = IBV_WC_SEND;
  wc.byte_len = 12345;  // not defined for a SEND's completion
  EXPECT_THAT(wc, CompletionIs(SendCompletion(0, 0)));
  wc.opcode = IBV_WC_FETCH_ADD;
  EXPECT_THAT(WcMismatches(wc, SendCompletion(0, 0, IBV_WC_FETCH_ADD)), ElementsAre("byte_len is 12345, expected 8"));
  EXPECT_EQ(SendSideOpcode(IBV_WR_RDMA_WRITE_WITH_IMM), IBV_WC_RDMA_WRITE);
  EXPECT_EQ(SendSideOpcode(IBV_WR_SEND_WITH_INV), IBV_WC_SEND);
}

TEST(CompletionMatchersTest, UdSourceAndGrh) {
  ibv_wc wc = Recv(1, 2, 43);
  wc.src_qp = 77;
  wc.wc_flags = IBV_WC_GRH;
  EXPECT_THAT(wc, CompletionIs(RecvCompletion(1, 2, 43).FromUd(77)));
  EXPECT_THAT(WcMismatches(wc, RecvCompletion(1, 2, 43).FromUd(78)), ElementsAre("src_qp is 77, expected 78"));
  wc.wc_flags = 0;
  EXPECT_THAT(WcMismatches(wc, RecvCompletion(1, 2, 43).FromUd(77)), ElementsAre(HasSubstr("IBV_WC_GRH is not set")));
}

}  // namespace
}  // namespace rdmacheck
