// Every blocking wait in rdmacheck is bounded. The bounds are scaled by
// --timeout_multiplier, because rxe and siw under an emulated CPU are slow.
#ifndef RDMACHECK_HARNESS_TIMEOUTS_H_
#define RDMACHECK_HARNESS_TIMEOUTS_H_

#include "absl/flags/declare.h"
#include "absl/time/time.h"

ABSL_DECLARE_FLAG(double, timeout_multiplier);

namespace rdmacheck {

// `base` times --timeout_multiplier.
absl::Duration Scaled(absl::Duration base);

// How long something that crosses a wire may take to arrive: a completion of traffic, a CM
// event, a peer's reply. 5 s, scaled: a message may be retried, and rxe and siw answer late
// under an emulated CPU.
absl::Duration DefaultWait();

// How long an event the local device produces by itself, at once, may take: a flush of a WR
// posted in ERR, IBV_EVENT_SQ_DRAINED of a queue with nothing in flight, LAST_WQE_REACHED,
// a state change read back. 1 s, scaled. A working device answers in microseconds, so a
// driver that gets fixed still passes well inside it (an xpass stays visible), and a device
// that never raises the event costs one second, not five.
absl::Duration LocalEventWait();

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_TIMEOUTS_H_
