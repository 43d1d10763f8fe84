// The report's section "Kernel log and device counters": per device, whether the kernel
// log was read and which tests it failed (with the kernel's lines), and whether the
// device's counters proved each test's traffic: how many tests moved data, which were
// flagged (traffic that left no trace in the counters), what reading the counters cost.
// Built from results.json alone (runner/kernel_log.h and runner/counters.h wrote it).
#ifndef RDMACHECK_REPORTS_KERNEL_SECTION_H_
#define RDMACHECK_REPORTS_KERNEL_SECTION_H_

#include "reports/report_model.h"

namespace rdmacheck {

// What the section shows for one run (report.json "extra"."kernel"."devices"[i]).
struct KernelFindings {
  std::string kernel_log;        // environment.kernel_log
  std::string traffic_counters;  // environment.traffic_counters
  std::vector<const TestResult*> kernel_failures;  // tests with kernel_log lines
  int with_traffic = 0;          // tests whose work completed on the wire
  int counters_moved = 0;        // tests during which some counter moved (also CM MADs, direct polls)
  std::vector<const TestResult*> flagged;          // ... and moved no counter
  int counted = 0;               // tests with counter readings
  double read_ms_median = 0, read_ms_max = 0;      // counter reads per test (before + after)
};
KernelFindings FindingsOf(const RunResults& results);

ExtraSection KernelSection(const Report& report);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_KERNEL_SECTION_H_
