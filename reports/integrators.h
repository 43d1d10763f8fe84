// The hand-over row: per device of a report, the row a compliance (integrators') list
// carries. `rdmacheck report` writes them as integrators.csv and integrators.md next to
// report.json; `rdmacheck report --format=integrators` also prints the CSV.
//
// The columns, in this order (stable: a column is only ever added at the end; docs/report.md):
//   device          the report's label of the device (results.json "device")
//   vendor, model   "pci:0x15b3" / "pci:0x1017" when the run recorded the PCI IDs
//                   (identity or environment "pci_vendor" / "pci_device"); today's runs do
//                   not, so the verbs IDs: "oui:0x02c9" (ibv_device_attr.vendor_id, an IEEE
//                   OUI) and "part:4119" (vendor_part_id, "part:4119 hw:1" with a hw_ver)
//   driver          the kernel driver (rxe, siw, mlx5, ...)
//   transport       InfiniBand, RoCE or iWARP (capabilities.json identity "protocol", else
//                   the transport and link layer: InfiniBand over Ethernet is RoCE)
//   firmware        fw_ver
//   kernel, rdma_core
//   plan_version    the environment's "plan_version" (`rdmacheck plan`), else "unversioned"
//   mandatory_passed, mandatory_total
//                   the run's floor (RunFloor.* in suite "run", runner/run_floor.h): one
//                   verdict per operation every device of its transport must carry (RC SEND,
//                   RDMA WRITE, RDMA READ), or the floor's failure (--floor=off, a suite that
//                   never reported); passed = status pass
//   floor           how the run held its floor (environment "floor": "in the selection",
//                   "added 6 tests (...)", "off (--floor=off): ...")
//   tests_passed, tests_total
//                   every result of the run (skips, xfails and blocked count in the total)
//   deviations      the xfail count: known deviations, each listed in the driver's
//                   expectation file with its reason
//   deviation_tests their test names, "; "-separated, in run order
//   complete        "yes", or "no" for a run that did not finish (its counts stop there)
//   started         when the run started (RFC 3339)
#ifndef RDMACHECK_REPORTS_INTEGRATORS_H_
#define RDMACHECK_REPORTS_INTEGRATORS_H_

#include <string>
#include <vector>

#include "reports/report_model.h"

namespace rdmacheck {

struct IntegratorRow {
  std::string device, vendor, model, driver, transport, firmware, kernel, rdma_core, plan_version;
  int mandatory_passed = 0, mandatory_total = 0;
  std::string floor;
  int tests_passed = 0, tests_total = 0;
  std::vector<std::string> deviation_tests;  // the xfails' test names
  bool complete = true;
  std::string started;
};

inline constexpr char kUnversionedPlan[] = "unversioned";

// One row per device of the report, in the report's order.
std::vector<IntegratorRow> IntegratorRows(const Report& report);

// The columns above, as a header line.
const std::vector<std::string>& IntegratorColumns();

// RFC 4180 CSV: the header, then one line per device (fields quoted where they must be).
std::string IntegratorsCsv(const Report& report);

// The same rows as a Markdown table ("3/3" for passed/total), with the deviations listed
// under it per device.
std::string IntegratorsMarkdown(const Report& report);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_INTEGRATORS_H_
