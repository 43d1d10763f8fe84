// Link flaps: how many times a port went down within a window, from the kernel's own count
// of it (`link_downed`: rxe's hardware counter, drivers/infiniband/sw/rxe/rxe_hw_counters.c,
// or an HCA's PortCounters LinkDownedCounter, IBTA Vol 1 16.1.3.5). A node health check runs
// every few minutes (Slurm's HealthCheckInterval) and a flap lasts seconds, so each check
// samples the counter and keeps the samples of the window in a small state file; the downs
// within the window are the counter's increments between the samples.
//
//   LinkFlapHistory history = LinkFlapHistory::Load(path);  // absent: empty
//   history.Add("rxe0/1", now, *ReadLinkDowned("rxe0", 1));
//   uint64_t downs = history.DownsWithin("rxe0/1", now, absl::Hours(1));
//   history.Save(path, now - absl::Hours(1));               // keeps what the window needs
//
// A counter that went backwards (a driver reload, a device re-added) restarts the count:
// its new value is what happened since. Downs made on purpose (a conformance run's link
// tests take the port down) are *excused* in the sample that follows them and not counted.
//
// `rdmacheck health` and `rdmacheck run` share the node's history (kDefaultLinkFlapState):
// a run samples its port at its start (results.json environment "link_flaps": the downs of
// the hour before it) and at its end, excusing its link_events tests' downs.
#ifndef RDMACHECK_DOCTOR_LINK_FLAPS_H_
#define RDMACHECK_DOCTOR_LINK_FLAPS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace rdmacheck {

// The port's link_downed counter now: the device's hardware counters, else its
// PortCounters. NotFound (saying where it looked) when the device keeps none (siw).
absl::StatusOr<uint64_t> ReadLinkDowned(const std::string& device, uint32_t port);

// Where a node keeps its history unless told (--link_flap_state).
inline constexpr char kDefaultLinkFlapState[] = "/var/lib/rdmacheck/link-flaps.json";

class LinkFlapHistory {
 public:
  struct Sample {
    int64_t unix_s = 0;
    uint64_t link_downed = 0;
    uint64_t excused = 0;  // downs since the previous sample made on purpose
  };

  // The history in `path`; an absent file is an empty history, an unreadable or malformed
  // one is an error (a health check must not silently forget the flaps it saw).
  static absl::StatusOr<LinkFlapHistory> Load(const std::string& path);
  // Writes the samples, dropping those older than `keep_after` except the newest of them
  // (the baseline the window's first increment is counted from).
  absl::Status Save(const std::string& path, absl::Time keep_after) const;

  void Add(const std::string& port, absl::Time when, uint64_t link_downed, uint64_t excused = 0);
  // The downs of `port` within (now - window, now]: increments from the baseline (the newest
  // sample at or before the window's start, else the oldest in it) to the newest sample,
  // less the excused ones.
  uint64_t DownsWithin(const std::string& port, absl::Time now, absl::Duration window) const;

  const std::map<std::string, std::vector<Sample>>& samples() const { return samples_; }

 private:
  std::map<std::string, std::vector<Sample>> samples_;  // "rxe0/1" -> oldest first
};

// One port's flaps, as a health check reports them.
struct PortFlaps {
  std::string device;
  uint32_t port = 0;
  bool counted = false;  // false: the device keeps no link_downed counter (`why` says so)
  uint64_t downs = 0;    // within the window
  std::string why;
};

// Samples the link_downed counter of `device` port `port` into the history in `state_path`
// (created when absent), saves it, and returns the port's downs within `window` ending
// `now`; `excused`: downs since the previous sample made on purpose. Errors: the state file
// unreadable or unwritable (a port without the counter is a PortFlaps with counted false).
absl::StatusOr<PortFlaps> SamplePortFlaps(const std::string& state_path, const std::string& device, uint32_t port,
                                          absl::Time now, absl::Duration window, uint64_t excused = 0);

// SamplePortFlaps for every port of `devices` (sysfs ports/).
absl::StatusOr<std::vector<PortFlaps>> SampleLinkFlaps(const std::vector<std::string>& devices,
                                                       const std::string& state_path, absl::Time now,
                                                       absl::Duration window);

}  // namespace rdmacheck

#endif  // RDMACHECK_DOCTOR_LINK_FLAPS_H_
