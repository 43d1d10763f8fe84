#include "harness/patterns.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace rdmacheck {

uint8_t Pattern::At(size_t position) const {
  if (constant_) return static_cast<uint8_t>(value_);
  // A 32-bit integer hash of (seed, position): cheap, and no short period that a shifted
  // or repeated chunk could hide in.
  uint32_t x = static_cast<uint32_t>(position) * 0x9e3779b1u ^ (value_ + 1) * 0x85ebca77u ^
               static_cast<uint32_t>(static_cast<uint64_t>(position) >> 32);
  x ^= x >> 15;
  x *= 0x2c1b3c6du;
  x ^= x >> 12;
  const uint8_t b = static_cast<uint8_t>(x >> 24);
  return b != 0 ? b : static_cast<uint8_t>((x & 0xfe) | 1);  // never zero
}

std::string Pattern::ToString() const {
  return constant_ ? absl::StrFormat("constant(0x%02x)", value_) : absl::StrCat("seeded(", value_, ")");
}

void FillPattern(absl::Span<uint8_t> bytes, Pattern pattern) {
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = pattern.At(i);
}

absl::Status CheckPattern(absl::Span<const uint8_t> bytes, Pattern pattern) {
  size_t first = bytes.size();
  size_t differ = 0;
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (bytes[i] != pattern.At(i)) {
      if (differ++ == 0) first = i;
    }
  }
  if (differ == 0) return absl::OkStatus();
  return absl::DataLossError(absl::StrFormat("byte %d of %d is 0x%02x, expected 0x%02x (%s; %d bytes differ)", first,
                                             bytes.size(), bytes[first], pattern.At(first), pattern.ToString(),
                                             differ));
}

}  // namespace rdmacheck
