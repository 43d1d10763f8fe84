// What the Markdown and HTML renderers show the same way: tables of environment and
// declared attributes (rows of text, one cell per device), durations, outcome words.
#ifndef RDMACHECK_REPORTS_PRESENTATION_H_
#define RDMACHECK_REPORTS_PRESENTATION_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "reports/report_model.h"

namespace rdmacheck {

// A labelled row of text, one cell per device ("" where a device has no value).
struct TextRow {
  std::string key;
  std::vector<std::string> cells;
  bool differs = false;
};

// Environment of each run (results.json "environment"): the fields a reader looks for
// first (driver, transport, firmware, kernel, rdma-core, MTU, GID, connection method), then
// any others the run recorded. Structured values are ReadableText (several lines); the
// whole-run counters ("traffic_run_totals") only the ones that moved (MovedCountersText).
std::vector<TextRow> EnvironmentRows(const Report& report);

// What each device declares (capabilities.json "declared"), flattened to dotted keys:
// {"port": {"mtu": 4096}} -> "port.mtu" = "4096"; a list of flags reads "A, B, C". Keys are
// whatever the probe wrote.
std::vector<TextRow> DeclaredRows(const Report& report);

// What the probe measured by trying (capabilities.json "measured": {name: {value, detail}}),
// one row per name; `details` gets the matching "how it was found" texts.
std::vector<TextRow> MeasuredRows(const Report& report, std::vector<TextRow>* details = nullptr);

// A JSON value as one line of text: strings bare, others as compact JSON.
std::string JsonText(const nlohmann::json& value);

// A JSON value as a reader wants it, never a JSON blob: strings bare, a list of plain values
// joined ("A, B, C"), an object one "name = value" line per leaf, nested names dotted
// ({"eth1": {"sent": 441}} -> "eth1.sent = 441"; lines joined by '\n').
std::string ReadableText(const nlohmann::json& value);

// Counters as "name = value" lines, only the ones that moved (zeros left out); "" when none did.
std::string MovedCountersText(const nlohmann::json& counters);

// 1234.5 -> "1.2 s", 12.3 -> "12 ms".
std::string FormatDuration(double ms);

// "12 passed, 1 failed, 3 skipped" (zero counts left out; "no tests" when empty).
std::string CountsText(const RunSummary& summary);

// The anchor of a catalogue entry in both reports: "PdTest.Alloc" -> "cat-PdTest.Alloc".
std::string CatalogueAnchor(const std::string& catalogue_id);

// Skips by capability: "atomics 5, ud_qp 3" (the "(none)" bucket says "other 1").
std::string SkipsText(const RunSummary& summary);

// One sentence for a run that did not finish, for the first lines of a report ("" for one
// that did): "siw0: the lab failed, not the device; 12 tests not run, ...: the lab's wire
// stalled: link siw: ..." (results.json environment "lab_failure", scripts/wire-lab.sh),
// else "siw0: the run did not finish (complete: false); its results stop where it did, after
// 41 results, and do not say why (a node that died, in a kernel panic or a reset, leaves no
// reason)".
std::string IncompleteRunLine(const std::string& device, const RunResults& results);
// IncompleteRunLine of each device whose run did not finish.
std::vector<std::string> IncompleteRunLines(const Report& report);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_PRESENTATION_H_
