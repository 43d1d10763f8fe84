// Counts the frames of a pcap file that is still being written (QEMU's filter-dump), by
// the Ethernet source address of each frame: what the link lab's watch needs to know which
// node sent how many frames, and which of them the other end got. Only the pcap record
// headers and the six bytes of the source MAC are read; decoding packets is tshark's job
// (wire/tshark.h).
//
//   PcapTail tail("/out/wire/siw-A.pcap");
//   while (running) {
//     if (absl::Status s = tail.Poll(); !s.ok()) ...   // reads what was appended since
//     int64_t from_b = tail.frames_from(kMacB);
//   }
//
// A record cut at the end of the file is read on a later Poll, once the writer finished it.
#ifndef RDMACHECK_WIRE_PCAP_TAIL_H_
#define RDMACHECK_WIRE_PCAP_TAIL_H_

#include <array>
#include <cstdint>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace rdmacheck {

using MacAddress = std::array<uint8_t, 6>;

// "52:54:00:88:02:01" -> bytes; InvalidArgument for anything else.
absl::StatusOr<MacAddress> ParseMac(absl::string_view text);
std::string MacToString(const MacAddress& mac);

class PcapTail {
 public:
  explicit PcapTail(std::string path) : path_(std::move(path)) {}

  // Reads the records appended since the last call. A file that does not exist yet, or
  // whose global header is not complete yet, is empty (the writer has not started); a file
  // that is not a pcap (bad magic, a link type other than Ethernet) is an error.
  absl::Status Poll();

  int64_t frames() const { return frames_; }
  int64_t frames_from(const MacAddress& source) const;
  // The capture time (seconds since the epoch) of the first frame read, 0 when none.
  double first_time() const { return first_time_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  uint64_t offset_ = 0;  // the next unread record starts here
  bool header_read_ = false;
  bool swapped_ = false;   // the file was written on a host of the other byte order
  bool nanos_ = false;     // nanosecond timestamps (magic a1b23c4d)
  int64_t frames_ = 0;
  double first_time_ = 0;
  std::map<MacAddress, int64_t> by_source_;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_PCAP_TAIL_H_
