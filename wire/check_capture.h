// The wire checks' entry point: reads a capture through tshark and checks every rule of
// wire/rules.h on it.
//
//   absl::StatusOr<WireReport> report = CheckCapture("out/wire/rxe.pcap");
//   if (report.ok()) json["wire"] = WireReportJson(*report);   // flows, opcodes, violations
//
// The wire lab calls this on each link's capture and slices the report per test: a test's
// packets are the flows whose DestQP (RoCEv2) or TCP ports (iWARP) its QPs used, or the
// frames whose time falls inside the test's start and end.
#ifndef RDMACHECK_WIRE_CHECK_CAPTURE_H_
#define RDMACHECK_WIRE_CHECK_CAPTURE_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "wire/tshark.h"
#include "wire/wire_report.h"

namespace rdmacheck {

struct WireCheckOptions {
  TsharkOptions tshark;
  uint32_t path_mtu = 0;  // RoCEv2 path MTU in bytes; 0: inferred per connection
  // The RC QPs' retry count (0..7) roce.retry_count holds retransmissions to; -1: the
  // --retry_cnt flag (defined here; default 7, what the harness sets).
  int retry_cnt = -1;
  // The network before the capture point may reorder or duplicate packets (CheckRoce); also
  // the --wire_reorders flag (defined here).
  bool wire_may_reorder = false;
};

// NOT_FOUND when the capture cannot be opened, UNAVAILABLE when tshark cannot read it (or
// is missing), DEADLINE_EXCEEDED when tshark runs past its budget, INVALID_ARGUMENT for a
// retry count outside 0..7.
absl::StatusOr<WireReport> CheckCapture(const std::string& path, const WireCheckOptions& options = {});

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_CHECK_CAPTURE_H_
