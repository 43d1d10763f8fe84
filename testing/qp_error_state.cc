#include "testing/qp_error_state.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/completion.h"
#include "harness/connection/qp_attr.h"
#include "harness/timeouts.h"
#include "testing/observe.h"
#include "testing/test_device.h"

namespace rdmacheck {
namespace {

// The probe's evidence when ibv_query_qp does not report states; empty when it does.
std::string QueryBrokenEvidence() {
  const auto& observed = TestDevice::Get().profile().observed;
  const auto query = observed.find(Cap::kQpStateQuery);
  if (query == observed.end() || query->second.outcome != Outcome::kBroken) return "";
  return query->second.detail;
}

}  // namespace

void ExpectErrorStateAfter(const Endpoint& endpoint, const ibv_wc& wc, absl::string_view side) {
  if (wc.status == IBV_WC_SUCCESS) return;
  const std::string broken = QueryBrokenEvidence();
  // A query that does not report states gets one read: no point in waiting for it to change.
  const absl::Duration wait = broken.empty() ? LocalEventWait() : absl::ZeroDuration();
  const absl::Time deadline = absl::Now() + wait;
  absl::StatusOr<ibv_qp_state> state;
  while (true) {
    state = endpoint.QpState();
    if (!state.ok() || *state == IBV_QPS_ERR || absl::Now() >= deadline) break;
    absl::SleepFor(absl::Milliseconds(1));
  }
  if (!state.ok()) {
    ADD_FAILURE() << "ibv_query_qp of the " << side << " QP after the error completion " << DescribeWc(wc)
                  << " failed: " << state.status();
    return;
  }
  if (*state == IBV_QPS_ERR) return;
  if (!broken.empty() && *state == IBV_QPS_RESET) {
    // What such a query says of every QP: no evidence either way (reported once, by
    // BrokenCapability.qp_state_query). Any other state, RTS above all, is a wrong answer.
    Observe(absl::StrCat("the ", side, " QP's state after the error completion ", DescribeWc(wc),
                         " could not be read: ibv_query_qp says RESET, as it does of every QP on this device "
                         "(qp_state_query broken: ",
                         broken, ")"));
    return;
  }
  ADD_FAILURE() << "the " << side << " QP reads back " << QpStateName(*state) << " after the error completion "
                << DescribeWc(wc) << ", not ERR (waited " << wait << ")";
}

}  // namespace rdmacheck
