// What the fleet report reads of a run directory, and no more.
//
// A device run's results.json is ~0.9 MB for ~1,000 tests, and most of it is text the
// fleet never shows: each test repeats its catalogue entry (purpose, reference, needs:
// ~40% of the file), the indentation (~17%), the counters around it (traffic, ~10%; the
// fleet reads only whether they were flagged), its timings, its expectation's reason and
// its kernel-log lines. SkimResults copies the document without those members of each
// test (of "traffic" it keeps "flag"), finding where each ends but decoding nothing, so
// the JSON parser sees about a quarter of the file.
// Everything else is kept as written: results.json's schema is unchanged, and a member the
// fleet does not know of stays. A dropped member is not validated (a broken string inside
// a test's purpose goes unnoticed); the structure around it and everything kept are.
//
//   absl::StatusOr<DeviceRun> run = LoadFleetRun("nodes/node17/mlx5_0");
#ifndef RDMACHECK_REPORTS_FLEET_RESULTS_SKIM_H_
#define RDMACHECK_REPORTS_FLEET_RESULTS_SKIM_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "reports/report_model.h"

namespace rdmacheck {

// The results.json text `results_json` without what the fleet does not read (above);
// an error when its structure is broken.
absl::StatusOr<std::string> SkimResults(absl::string_view results_json);

// The run in `dir` as LoadRunDir (report_model.h) loads it, but its tests without the
// members SkimResults drops (purpose, reference, needs, expectation, kernel_log and timings
// empty; traffic holding at most its flag). Errors name the file, as LoadRunDir's do.
absl::StatusOr<DeviceRun> LoadFleetRun(const std::string& dir);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_FLEET_RESULTS_SKIM_H_
