// The report's section "Recovery under impairment": for a run on an impaired wire (the wire
// lab's --impair, impair/README.md), what the impairment did and how the device recovered.
//
// Per device, side by side: the profile and its netem arguments; what netem did on that
// device's link on both nodes (packets sent, dropped); what TCP did (siw runs over it:
// retransmitted segments, DSACKs, checksum errors); the driver's own recovery counters over
// the whole run (rxe: rcvd_seq_err, duplicate_request, completer_retry_err, ...); the
// wire checker's recovery figures where it judged the capture; and the tests' verdicts.
// Built from results.json alone (environment "impairment", "traffic_run_totals", "wire").
// No impaired run in the report: no section.
#ifndef RDMACHECK_REPORTS_RECOVERY_SECTION_H_
#define RDMACHECK_REPORTS_RECOVERY_SECTION_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "reports/report_model.h"

namespace rdmacheck {

// The rows of one impaired run: (what, value), in the order shown.
std::vector<std::pair<std::string, std::string>> RecoveryRows(const RunResults& results);

std::optional<ExtraSection> RecoverySection(const Report& report);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_RECOVERY_SECTION_H_
