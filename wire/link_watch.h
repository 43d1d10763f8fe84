// Tells a stalled lab link from a slow one. The wire lab's links are QEMU stream netdevs,
// lossless by design, captured at both ends (each node's QEMU dumps what its NIC sent and
// what it got). Every frame one node sends therefore shows up in the other node's capture
// once the link carried it: a frame sent and not received is in flight (milliseconds) or
// stuck. A direction has stalled when frames sent on it have waited for `bound` and the
// receiving end got no frame of that direction meanwhile: the lab failed, not the device
// (scripts/wire-lab.sh stops the run, and no result after that point is the device's).
//
//   DirectionWatch b_to_a(absl::Now());
//   every 250 ms: b_to_a.Observe(absl::Now(), b_capture.frames_from(mac_b), a_capture.frames_from(mac_b));
//                 if (b_to_a.Stalled(absl::Now(), absl::Seconds(10))) ...
#ifndef RDMACHECK_WIRE_LINK_WATCH_H_
#define RDMACHECK_WIRE_LINK_WATCH_H_

#include <cstdint>
#include <deque>
#include <string>
#include <utility>

#include "absl/time/time.h"

namespace rdmacheck {

class DirectionWatch {
 public:
  explicit DirectionWatch(absl::Time start) : last_progress_(start) {}

  // The counts at `now`: frames the sender's capture shows it sent, frames of that sender
  // the receiver's capture shows arriving. Counts only grow.
  void Observe(absl::Time now, int64_t sent, int64_t received);

  // Frames sent and not (yet) received.
  int64_t waiting() const { return sent_ - received_; }
  // When the oldest of them was first seen sent (meaningful while waiting() > 0).
  absl::Time waiting_since() const { return pending_.empty() ? last_progress_ : pending_.front().second; }
  absl::Time last_progress() const { return last_progress_; }

  // Stalled: frames wait, the oldest for at least `bound`, and none arrived for `bound`.
  bool Stalled(absl::Time now, absl::Duration bound) const;

 private:
  int64_t sent_ = 0, received_ = 0;
  absl::Time last_progress_;  // the receiver's count last grew (or the watch began)
  // (sent count, when first seen) for sent counts not yet reached by the received count.
  std::deque<std::pair<int64_t, absl::Time>> pending_;
};

// The line a stall is reported with: "link siw: node B -> node A stopped carrying frames at
// 12:34:56.7 UTC (78.3 s into the run): 14 frames sent by node B never reached node A (none
// arrived for 10 s)".
std::string StallLine(const std::string& link, const std::string& from, const std::string& to,
                      const DirectionWatch& watch, absl::Time run_start, absl::Time now);

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_LINK_WATCH_H_
