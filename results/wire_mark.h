// The text a wire mark starts with: written by runner/wire_marks.h (a datagram per test
// start and end on the wire), read by reports/wire_slices.h (the capture cut per test).
#ifndef RDMACHECK_RESULTS_WIRE_MARK_H_
#define RDMACHECK_RESULTS_WIRE_MARK_H_

namespace rdmacheck {

inline constexpr char kWireMarkPrefix[] = "rdmacheck-mark ";

}  // namespace rdmacheck

#endif  // RDMACHECK_RESULTS_WIRE_MARK_H_
