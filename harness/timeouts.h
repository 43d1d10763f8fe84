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

// How long one completion, CM event or async event may take to arrive: 5 s, scaled.
absl::Duration DefaultWait();

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_TIMEOUTS_H_
