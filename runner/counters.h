// Traffic proven by counters: the device's own counters (capabilities/system/device_counters.h),
// read before and after each test in the child that runs it.
//
// A test whose harness saw work complete on the wire (harness WireCompletions(): sends,
// receives, RDMA, atomics that completed successfully) must have moved the device's
// counters. When none moved, the test is flagged in results.json ("traffic"."flag"): the
// message went some other way, or the counters lie. A flag is a finding shown in the
// report, not a failure: hardware may refresh its counters late (hw_counters/lifespan).
// Tests that run at the same time on the device (--jobs) add to each other's deltas; a
// flag then is still true, only a missing one may be masked.
#ifndef RDMACHECK_RUNNER_COUNTERS_H_
#define RDMACHECK_RUNNER_COUNTERS_H_

#include <cstdint>
#include <memory>
#include <optional>

#include "capabilities/system/device_counters.h"
#include "capabilities/profile/profile.h"
#include "harness/device.h"
#include "nlohmann/json.hpp"
#include "runner/events.h"

namespace rdmacheck {

class TrafficWatch : public TestWatch {
 public:
  // nullptr when the profile or the device says the port keeps no counters.
  static std::unique_ptr<TrafficWatch> For(const Selection& selection, const Profile& profile);

  void Start() override;
  // {"completions": 4, "counters": {"sent_pkts": 4, "rcvd_pkts": 4}, "read_ms": 0.7}, and
  // "flag": why, when completions moved no counter; "error" when a read failed.
  nlohmann::json End() override;

 private:
  explicit TrafficWatch(DeviceCounters counters) : counters_(std::move(counters)) {}
  DeviceCounters counters_;
  absl::StatusOr<CounterValues> before_;
  uint64_t completions_before_ = 0;
  double read_ms_ = 0;
  std::string where_;  // "rxe0 port 1"
};

// The "traffic" object of a test for given readings (what End() builds; unit-tested).
nlohmann::json TrafficRecord(uint64_t completions, const std::map<std::string, int64_t>& deltas,
                             const std::string& where);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_COUNTERS_H_
