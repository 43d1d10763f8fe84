#include "wire/pcap_tail.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"

namespace rdmacheck {
namespace {

// The classic pcap format (tcpdump's pcap-savefile(5)): a 24-byte global header, then per
// frame a 16-byte record header (seconds, sub-seconds, captured length, wire length).
constexpr size_t kGlobalHeader = 24, kRecordHeader = 16;
constexpr uint32_t kMagicMicros = 0xa1b2c3d4, kMagicNanos = 0xa1b23c4d;
constexpr uint32_t kLinkTypeEthernet = 1;
constexpr uint32_t kMaxRecord = 256 * 1024;  // a larger captured length is a corrupt file

uint32_t Read32(const unsigned char* p, bool swapped) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return swapped ? __builtin_bswap32(v) : v;
}

}  // namespace

absl::StatusOr<MacAddress> ParseMac(absl::string_view text) {
  std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  MacAddress mac{};
  if (parts.size() != mac.size()) return absl::InvalidArgumentError(absl::StrCat("not a MAC address: '", text, "'"));
  for (size_t i = 0; i < mac.size(); ++i) {
    uint32_t byte = 0;
    if (parts[i].size() != 2 || !absl::SimpleHexAtoi(parts[i], &byte)) {
      return absl::InvalidArgumentError(absl::StrCat("not a MAC address: '", text, "'"));
    }
    mac[i] = static_cast<uint8_t>(byte);
  }
  return mac;
}

std::string MacToString(const MacAddress& mac) {
  return absl::StrFormat("%02x:%02x:%02x:%02x:%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4], mac[5]);
}

int64_t PcapTail::frames_from(const MacAddress& source) const {
  auto it = by_source_.find(source);
  return it == by_source_.end() ? 0 : it->second;
}

absl::Status PcapTail::Poll() {
  std::ifstream in(path_, std::ios::binary);
  if (!in) return absl::OkStatus();  // not created yet
  unsigned char header[kGlobalHeader];
  if (!header_read_) {
    if (!in.read(reinterpret_cast<char*>(header), kGlobalHeader)) return absl::OkStatus();
    const uint32_t magic = Read32(header, false);
    swapped_ = magic == __builtin_bswap32(kMagicMicros) || magic == __builtin_bswap32(kMagicNanos);
    const uint32_t native = Read32(header, swapped_);
    if (native != kMagicMicros && native != kMagicNanos) {
      return absl::InvalidArgumentError(absl::StrCat(path_, ": not a pcap file (magic ", absl::Hex(magic), ")"));
    }
    nanos_ = native == kMagicNanos;
    if (const uint32_t link = Read32(header + 20, swapped_); link != kLinkTypeEthernet) {
      return absl::InvalidArgumentError(absl::StrCat(path_, ": link type ", link, ", not Ethernet"));
    }
    header_read_ = true;
    offset_ = kGlobalHeader;
  }
  in.seekg(static_cast<std::streamoff>(offset_));
  unsigned char record[kRecordHeader];
  std::vector<char> frame;
  while (in.read(reinterpret_cast<char*>(record), kRecordHeader)) {
    const uint32_t captured = Read32(record + 8, swapped_);
    if (captured > kMaxRecord) {
      return absl::InvalidArgumentError(absl::StrCat(path_, ": a record of ", captured, " bytes at offset ", offset_));
    }
    frame.resize(captured);
    if (!in.read(frame.data(), captured)) break;  // the writer is still at it
    offset_ += kRecordHeader + captured;
    ++frames_;
    if (frames_ == 1) {
      first_time_ = Read32(record, swapped_) + Read32(record + 4, swapped_) / (nanos_ ? 1e9 : 1e6);
    }
    if (captured >= 12) {  // destination MAC, then the source MAC
      MacAddress source;
      std::memcpy(source.data(), frame.data() + 6, source.size());
      ++by_source_[source];
    }
  }
  return absl::OkStatus();
}

}  // namespace rdmacheck
