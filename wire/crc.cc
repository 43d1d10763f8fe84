#include "wire/crc.h"

#include <array>

namespace rdmacheck {
namespace {

// The byte-wise table of a reflected CRC with polynomial `reversed`.
std::array<uint32_t, 256> Table(uint32_t reversed) {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ ((c & 1) ? reversed : 0);
    table[i] = c;
  }
  return table;
}

uint32_t Reflected(const std::array<uint32_t, 256>& table, absl::string_view bytes) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char b : bytes) crc = (crc >> 8) ^ table[(crc ^ b) & 0xff];
  return crc ^ 0xffffffffu;
}

}  // namespace

uint32_t Crc32(absl::string_view bytes) {
  static const std::array<uint32_t, 256> table = Table(0xedb88320u);
  return Reflected(table, bytes);
}

uint32_t Crc32c(absl::string_view bytes) {
  static const std::array<uint32_t, 256> table = Table(0x82f63b78u);
  return Reflected(table, bytes);
}

}  // namespace rdmacheck
