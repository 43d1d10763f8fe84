#include "suites/peer_faults/survivor.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "harness/completion.h"
#include "harness/connection/qp_attr.h"

namespace rdmacheck {

RetryBound RetryBoundOf(const LocalEndpoint& survivor, bool iwarp) {
  RetryBound r;
  if (iwarp) return r;
  absl::StatusOr<ibv_qp_attr> attr = QueryQp(survivor.qp(), IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT);
  if (!attr.ok() || attr->timeout == 0) {  // 0: an infinite timeout (IBTA 9.7.6.1.1); bound by the default wait
    r.text = "the default wait (the QP's ACK timeout could not be read, or is infinite)";
    return r;
  }
  const absl::Duration one = absl::Nanoseconds(4096.0 * static_cast<double>(1ull << attr->timeout));
  r.bound = one * (attr->retry_cnt + 1);
  r.text = absl::StrFormat("(retry_cnt %d + 1) x 4.096 us x 2^%d = %s", attr->retry_cnt, attr->timeout,
                           absl::FormatDuration(r.bound));
  return r;
}

std::string NotAllCompleted(const absl::Status& polled, const Endpoint& endpoint, absl::string_view side) {
  absl::StatusOr<ibv_qp_state> state = endpoint.QpState();
  return absl::StrCat(polled.message(), "; the ", side, "'s QP reads ",
                      state.ok() ? QpStateName(*state) : std::string(state.status().message()));
}

void AllowAbortInTransmission(OrderedFailure& expected, bool iwarp) {
  if (iwarp) expected.first_error.insert(IBV_WC_LOC_QP_OP_ERR);
}

size_t ExpectOrderedFailure(absl::Span<const ibv_wc> wcs, const OrderedFailure& expected) {
  size_t first_error = 0;
  while (first_error < wcs.size() && wcs[first_error].status == IBV_WC_SUCCESS) ++first_error;
  for (size_t i = 0; i < wcs.size(); ++i) {
    SCOPED_TRACE(absl::StrFormat("WR %d of %d: %s", i + 1, wcs.size(), DescribeWc(wcs[i])));
    EXPECT_EQ(wcs[i].wr_id, expected.first_wr_id + i) << "send completions come in posting order (IBTA 10.8.3)";
    if (i < first_error) {
      EXPECT_LT(i, expected.may_succeed) << expected.late_success;
    } else if (i == first_error) {
      std::vector<std::string> names;
      for (ibv_wc_status status : expected.first_error) names.push_back(WcStatusName(status));
      EXPECT_NE(expected.first_error.count(wcs[i].status), 0u)
          << "the first WR that did not succeed completed with " << WcStatusName(wcs[i].status) << ", expected "
          << absl::StrJoin(names, " or ");
    } else {
      EXPECT_EQ(wcs[i].status, IBV_WC_WR_FLUSH_ERR) << "after the first error the QP is in Error and flushes";
    }
  }
  return first_error;
}

}  // namespace rdmacheck
