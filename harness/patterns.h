// Byte patterns for checking what arrived.
//
//   FillPattern(buffer.subspan(0, n), Pattern::Seeded(7));
//   ...transfer...
//   EXPECT_OK(CheckPattern(target.subspan(0, n), Pattern::Seeded(7)));
//
// A seeded pattern never contains a zero byte, differs from seed to seed, and changes with
// the position inside the region (its period is far beyond any message size rdmacheck
// uses), so a transfer that left zeros, moved data, repeated a chunk or delivered another
// message's bytes is caught. Positions count from the start of the region, so a region
// filled at one offset checks out at any other offset it was copied to.
// A constant pattern is for "these bytes did not change" checks (canaries).
#ifndef RDMACHECK_HARNESS_PATTERNS_H_
#define RDMACHECK_HARNESS_PATTERNS_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace rdmacheck {

class Pattern {
 public:
  static Pattern Seeded(uint32_t seed) { return Pattern(false, seed); }
  static Pattern Constant(uint8_t byte) { return Pattern(true, byte); }

  // The byte at `position` of a region holding this pattern.
  uint8_t At(size_t position) const;

  bool constant() const { return constant_; }
  uint32_t value() const { return value_; }  // the seed, or the constant byte
  std::string ToString() const;             // "seeded(7)", "constant(0x00)"

 private:
  Pattern(bool constant, uint32_t value) : constant_(constant), value_(value) {}
  bool constant_;
  uint32_t value_;
};

void FillPattern(absl::Span<uint8_t> bytes, Pattern pattern);

// OK when `bytes` hold `pattern`; otherwise DataLoss naming the first differing byte and
// how many differ: "byte 17 of 1000 is 0x00, expected 0x5a (983 bytes differ)".
absl::Status CheckPattern(absl::Span<const uint8_t> bytes, Pattern pattern);

}  // namespace rdmacheck

#endif  // RDMACHECK_HARNESS_PATTERNS_H_
