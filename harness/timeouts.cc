#include "harness/timeouts.h"

#include "absl/flags/flag.h"

ABSL_FLAG(double, timeout_multiplier, 1.0,
          "Scales every timeout (completion waits, CM events, per-test watchdog); > 0.");

namespace rdmacheck {

absl::Duration Scaled(absl::Duration base) {
  double m = absl::GetFlag(FLAGS_timeout_multiplier);
  return base * (m > 0 ? m : 1.0);
}

absl::Duration DefaultWait() { return Scaled(absl::Seconds(5)); }

absl::Duration LocalEventWait() { return Scaled(absl::Seconds(1)); }

}  // namespace rdmacheck
