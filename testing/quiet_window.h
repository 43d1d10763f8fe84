// How long a test watches for a completion or an event that must NOT come.
//
// "Nothing came" only means something if the window is long compared with how fast this
// device delivers what does come. So the window is sized from the device's own completion
// latency, measured once per test process: the median of kLatencySamples SEND round trips
// (post a 64-byte SEND, poll its send completion and the peer's receive completion) on an
// RC pair of the device under test, times kQuietFactor, between kShortestQuiet and
// LocalEventWait(). Where no RC pair can be made the window is the old fixed 200 ms
// (scaled), and the window says so. Every absence message states the window:
//
//   const QuietWindow quiet = QuietWindowForCompletions();
//   EXPECT_THAT(DrainCompletions(cq, quiet.duration), IsEmpty()) << "a send ran in SQD " << quiet;
//   // -> "... within 12ms (8 x 1.5ms, the median of 8 SEND round trips measured on this device)"
#ifndef RDMACHECK_TESTING_QUIET_WINDOW_H_
#define RDMACHECK_TESTING_QUIET_WINDOW_H_

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace rdmacheck {

inline constexpr int kLatencySamples = 8;
inline constexpr int kQuietFactor = 8;
inline constexpr absl::Duration kShortestQuiet = absl::Milliseconds(10);  // scheduling jitter of a loaded host

// The median of kLatencySamples SEND round trips, measured at the first call in this
// process (later calls return the same answer); an error when no pair could be measured.
absl::StatusOr<absl::Duration> MeasuredCompletionLatency();

struct QuietWindow {
  absl::Duration duration;
  std::string basis;  // how it was sized
};
// Printed as "within 12ms (8 x 1.5ms, the median of 8 SEND round trips measured on this device)".
std::ostream& operator<<(std::ostream& out, const QuietWindow& window);

QuietWindow QuietWindowForCompletions();

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_QUIET_WINDOW_H_
