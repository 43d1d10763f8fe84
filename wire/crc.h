// The two CRCs on an RDMA wire, both reflected, initial value and final XOR all ones:
// CRC-32 (IEEE 802.3, polynomial 0x04C11DB7) for the RoCEv2 ICRC, CRC-32C (Castagnoli,
// 0x1EDC6F41) for the MPA FPDU CRC.
#ifndef RDMACHECK_WIRE_CRC_H_
#define RDMACHECK_WIRE_CRC_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace rdmacheck {

uint32_t Crc32(absl::string_view bytes);   // Crc32("123456789") == 0xCBF43926
uint32_t Crc32c(absl::string_view bytes);  // Crc32c("123456789") == 0xE3069283

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_CRC_H_
