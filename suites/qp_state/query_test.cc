// ibv_query_qp's failure return: an attribute the query cannot read is refused with an errno
// value, never reported as read. The rate limit (IBV_QP_RATE_LIMIT) is the first attribute
// the legacy query command cannot carry: rdma-core's ibv_cmd_query_qp, which rxe and siw
// use, refuses it with EOPNOTSUPP (libibverbs/cmd.c); a provider with another path may read
// it, and must then write it.
#include <cerrno>

#include "absl/strings/str_cat.h"
#include "suites/qp_state/qp_state_test_base.h"

namespace rdmacheck {
namespace {

class QpQueryTest : public QpStateTest {};

RDMACHECK_ABOUT(QpQueryTest, AttributeItCannotReadIsRefused,
                "ibv_query_qp of an RC QP in INIT with IBV_QP_RATE_LIMIT in attr_mask either returns 0 and writes "
                "rate_limit (0: none was set), or returns a positive errno value (EOPNOTSUPP through rdma-core's "
                "legacy query command). Fails when the query returns 0 and leaves rate_limit as it was, or fails "
                "with -1 or a negative value instead of the errno",
                "ibv_query_qp(3) (\"returns 0 on success, or the value of errno on failure\"); libibverbs/cmd.c "
                "ibv_cmd_query_qp (IBV_QP_RATE_LIMIT and later attributes need the extended path)",
                Cap::kRcQp);
TEST_F(QpQueryTest, AttributeItCannotReadIsRefused) {
  ASSERT_NO_FATAL_FAILURE(Start(IBV_QPT_RC, IBV_QPS_INIT));
  if (IsSkipped()) return;
  constexpr uint32_t kUnread = 0xdeadbeef;  // no rate limit a device could report
  ibv_qp_attr attr{};
  ibv_qp_init_attr init{};
  attr.rate_limit = kUnread;
  const int rc = ibv_query_qp(q().qp(), &attr, IBV_QP_STATE | IBV_QP_RATE_LIMIT, &init);
  if (rc == 0) {
    Observe("IBV_QP_RATE_LIMIT: read");
    EXPECT_NE(attr.rate_limit, kUnread) << "ibv_query_qp returned 0 for IBV_QP_RATE_LIMIT without writing rate_limit";
  } else {
    Observe(absl::StrCat("IBV_QP_RATE_LIMIT: refused, ", ErrnoName(rc)));
    EXPECT_GT(rc, 0) << "ibv_query_qp failed with " << rc << ", not the value of errno";
  }
}

}  // namespace
}  // namespace rdmacheck
