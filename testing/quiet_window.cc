#include "testing/quiet_window.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "capabilities/verdict/decide.h"
#include "harness/completion.h"
#include "harness/connection/connected_pair.h"
#include "harness/status.h"
#include "harness/timeouts.h"
#include "testing/test_device.h"

namespace rdmacheck {
namespace {

absl::StatusOr<absl::Duration> Measure() {
  const TestDevice& device = TestDevice::Get();
  PairOptions options;
  options.method = PreferredConnectMethod(device.profile());
  RDMACHECK_ASSIGN_OR_RETURN(ConnectedPair pair,
                             ConnectedPair::Create(device.context(), device.selection(), options, device.peer()));
  std::vector<absl::Duration> samples;
  for (int i = 0; i < kLatencySamples; ++i) {
    RDMACHECK_RETURN_IF_ERROR(pair.remote().PostRecv(i, 0, 64));
    const absl::Time start = absl::Now();
    RDMACHECK_RETURN_IF_ERROR(pair.local().Post(SendRequest::Send(i, {{64, 64}})));
    RDMACHECK_ASSIGN_OR_RETURN(ibv_wc sent, pair.local().PollSend());
    RDMACHECK_ASSIGN_OR_RETURN(ibv_wc received, pair.remote().PollRecv());
    samples.push_back(absl::Now() - start);
    if (sent.status != IBV_WC_SUCCESS || received.status != IBV_WC_SUCCESS) {
      return absl::InternalError(absl::StrCat("a SEND of the latency measurement failed: ", DescribeWc(sent), " ",
                                              DescribeWc(received)));
    }
  }
  // The median: one sample held up by the scheduler (the run's other children share the
  // CPUs) must not stretch every window of the process.
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

absl::StatusOr<absl::Duration> MeasuredCompletionLatency() {
  static const absl::StatusOr<absl::Duration>* measured = new absl::StatusOr<absl::Duration>(Measure());
  return *measured;
}

std::ostream& operator<<(std::ostream& out, const QuietWindow& window) {
  return out << "within " << absl::FormatDuration(window.duration) << " (" << window.basis << ")";
}

QuietWindow QuietWindowForCompletions() {
  absl::StatusOr<absl::Duration> latency = MeasuredCompletionLatency();
  if (!latency.ok()) {
    return {Scaled(absl::Milliseconds(200)),
            absl::StrCat("200ms scaled: the completion latency could not be measured: ", latency.status().message())};
  }
  const absl::Duration sized = *latency * kQuietFactor;
  const absl::Duration window = std::min(std::max(sized, kShortestQuiet), LocalEventWait());
  std::string basis = absl::StrCat(kQuietFactor, " x ", absl::FormatDuration(*latency), ", the median of ",
                                   kLatencySamples, " SEND round trips measured on this device");
  if (window != sized) {
    absl::StrAppend(&basis, ", held between ", absl::FormatDuration(kShortestQuiet), " and ",
                    absl::FormatDuration(LocalEventWait()));
  }
  return {window, basis};
}

}  // namespace rdmacheck
