// The report's section "Mutation score": how many deviations the suites can see. The
// mutation suite (selftest/mutants/, `ctest -L mutation`) makes a real device deviate in one
// way per mutant, in the tests only or (<name>@probe) in the probe too, and runs the tests
// that concern it; a mutant is killed when a test that passed without it fails in an
// ordinary way (no crash, hang, leak or kernel log) and the mutant acted. The section shows
// per device killed / acted / total, the score (killed / total) beside the looser count
// (any failure), whether the control run (library loaded, no deviation) gave a plain run's
// verdicts, and every survivor with what it changes and why no test sees it. Input:
// mutation.json ("rdmacheck.mutation/2", written by selftest/mutants/run_mutants.py beside
// the runs, OUT/<device>/<mutant>/).
//
//   rdmacheck report out/mutation     # the plain runs as the devices, plus this section
#ifndef RDMACHECK_REPORTS_MUTATION_SECTION_H_
#define RDMACHECK_REPORTS_MUTATION_SECTION_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "reports/report_model.h"

namespace rdmacheck {

inline constexpr char kMutationSchema[] = "rdmacheck.mutation/2";

struct MutationRun {
  std::string source;  // the mutation.json read
  nlohmann::json mutation;
  std::vector<std::string> plain_runs;  // DIR/<device>/plain that exist (the unmutated runs)
};

// `input` as a mutation run: a directory holding mutation.json (and no results.json), or a
// mutation.json file. nullopt: `input` is something else (a run directory). An error: it
// is one, but unreadable or of another schema.
absl::StatusOr<std::optional<MutationRun>> LoadMutationRun(const std::string& input);

ExtraSection MutationSection(const std::vector<MutationRun>& runs);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_MUTATION_SECTION_H_
