// Wire marks: each test's start and end as a UDP datagram on the wire it runs over, so a
// capture of that wire can be cut into per-test slices exactly (reports/wire_slices.h).
// The test's own window (CLOCK_MONOTONIC in the guest) cannot be compared with a capture's
// timestamps (the host's clock, written by QEMU); a datagram sent on the same NIC just
// before the test starts and just after it ends sits at the right place in the capture.
//
// Enabled by RDMACHECK_WIRE_MARKS=IPv4:PORT (scripts/wire-node.sh sets it to node A's
// address on the wire, port 9 "discard"); the payload is text:
//   "rdmacheck-mark start <GoogleTest full name>" / "rdmacheck-mark end <name>".
#ifndef RDMACHECK_RUNNER_WIRE_MARKS_H_
#define RDMACHECK_RUNNER_WIRE_MARKS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "results/wire_mark.h"  // kWireMarkPrefix

namespace rdmacheck {

inline constexpr char kWireMarksEnv[] = "RDMACHECK_WIRE_MARKS";

// The payload of a mark: kWireMarkPrefix + "start "/"end " + name.
std::string WireMarkPayload(bool start, const std::string& test_name);

// A listener that sends the marks to `destination` ("10.88.1.1:9"); an error for a
// destination that is not IPv4:PORT. A mark that cannot be sent is dropped silently: the
// slices then miss that test, the test itself is unaffected.
absl::StatusOr<std::unique_ptr<::testing::TestEventListener>> MakeWireMarker(const std::string& destination);

}  // namespace rdmacheck

#endif  // RDMACHECK_RUNNER_WIRE_MARKS_H_
