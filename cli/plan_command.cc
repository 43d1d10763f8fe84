// rdmacheck plan: the conformance plan. What the man pages of rdma-core promise, per verb,
// and which tests check it (plan/, docs/plan.md); `--write-plan` writes the versioned
// test plan with its stable IDs; `--check` holds the declarations to the tests and pages.
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "plan/checks.h"
#include "plan/coverage.h"
#include "plan/coverage_render.h"
#include "plan/promise_parser.h"
#include "plan/providers.h"
#include "plan/prose.h"
#include "plan/test_ids.h"
#include "plan/test_plan.h"
#include "testing/catalogue.h"

ABSL_DECLARE_FLAG(bool, check);
ABSL_FLAG(std::string, manpages, "/usr/share/man/man3",
          "plan: the directory of rdma-core's man pages (ibv_*.3, rdma_*.3, plain or .gz) to read the promises from");
ABSL_FLAG(std::string, run, "",
          "plan: a run directory (results.json, capabilities.json): promises only tests the device cannot run "
          "check are reported untestable");
ABSL_FLAG(bool, write_plan, false,
          "plan: give new tests their IDs (plan/ids.json, plan/CHANGELOG.md) and write test-plan.md and "
          "test-plan.json to --out (default out/plan)");

namespace rdmacheck {
namespace {

std::string Today() {
  std::time_t now = std::time(nullptr);
  char date[16];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  return date;
}

std::vector<std::string> CatalogueNames() {
  std::vector<std::string> names;
  for (const TestAbout& about : Catalogue()) names.push_back(absl::StrCat(about.fixture, ".", about.name));
  return names;
}

int WritePlan(const std::string& data_dir) {
  const std::string ids_path = absl::StrCat(data_dir, "/ids.json");
  absl::StatusOr<TestIds> ids = LoadTestIds(ids_path);
  if (!ids.ok()) return UsageError(ids.status());
  absl::StatusOr<Checks> checks = LoadChecks(absl::StrCat(data_dir, "/checks.json"));
  if (!checks.ok()) return UsageError(checks.status());
  IdChanges changes = AssignIds(*ids, CatalogueNames());
  if (!changes.empty()) {
    absl::Status saved = SaveTestIds(ids_path, *ids);
    if (saved.ok()) saved = AppendChangeLog(absl::StrCat(data_dir, "/CHANGELOG.md"), ids->version, Today(), changes);
    if (!saved.ok()) return UsageError(saved);
  }
  std::string out = absl::GetFlag(FLAGS_out).empty() ? "out/plan" : absl::GetFlag(FLAGS_out);
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  std::vector<PlannedTest> plan = BuildTestPlan(*ids, Catalogue(), *checks);
  std::ofstream md(absl::StrCat(out, "/test-plan.md")), json(absl::StrCat(out, "/test-plan.json"));
  md << TestPlanMarkdown(plan, ids->version);
  json << TestPlanJson(plan, ids->version).dump(2) << "\n";
  if (!md || !json) return UsageError(absl::StrCat("cannot write the test plan to ", out));
  std::cout << "rdmacheck plan: version " << ids->version << ", " << plan.size() << " tests (" << changes.added.size()
            << " new, " << changes.retired.size() << " retired) -> " << out << "/test-plan.{md,json}" << std::endl;
  return kExitOk;
}

}  // namespace

int PlanCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError("plan takes no arguments");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json" && format != "md") return UsageError("--format must be text, json or md");
  const std::string data_dir = PlanDataDir();
  if (absl::GetFlag(FLAGS_write_plan)) return WritePlan(data_dir);

  absl::StatusOr<PromiseSet> promises = ReadPromiseDir(absl::GetFlag(FLAGS_manpages));
  if (!promises.ok()) return UsageError(promises.status());
  absl::StatusOr<std::vector<ProsePromise>> prose = LoadProsePromises(absl::StrCat(data_dir, "/prose_promises.json"));
  if (!prose.ok()) return UsageError(prose.status());
  std::vector<std::string> dropped = AddProsePromises(*prose, *promises);
  absl::StatusOr<Checks> checks = LoadChecks(absl::StrCat(data_dir, "/checks.json"));
  if (!checks.ok()) return UsageError(checks.status());

  if (absl::GetFlag(FLAGS_check)) {
    std::vector<std::string> problems = UnknownPromises(*checks, *promises);
    for (std::string& p : UndeclaredOrStale(*checks, Catalogue())) problems.push_back(std::move(p));
    absl::StatusOr<TestIds> ids = LoadTestIds(absl::StrCat(data_dir, "/ids.json"));
    if (!ids.ok()) return UsageError(ids.status());
    for (const std::string& test : CatalogueNames()) {
      if (!ids->tests.count(test)) problems.push_back(absl::StrCat(test, " has no plan ID (rdmacheck plan --write-plan)"));
    }
    for (const std::string& p : problems) std::cerr << "rdmacheck plan: " << p << "\n";
    std::cout << "rdmacheck plan: " << promises->by_verb.size() << " verbs, " << promises->PromiseCount()
              << " promises, " << checks->size() << " declarations, " << problems.size() << " problems" << std::endl;
    return problems.empty() ? kExitOk : kExitFailures;
  }

  std::optional<RunEvidence> run;
  if (!absl::GetFlag(FLAGS_run).empty()) {
    absl::StatusOr<RunEvidence> loaded = LoadRunEvidence(absl::GetFlag(FLAGS_run));
    if (!loaded.ok()) return UsageError(loaded.status());
    run = *std::move(loaded);
  }
  Coverage coverage = MeasureCoverage(*promises, *checks, Catalogue(), run ? &*run : nullptr);
  coverage.dropped_prose = dropped;

  // With a run of a known provider: the documented errors of the verbs it implements.
  std::optional<ProviderErrors> errors;
  if (run && !run->driver.empty()) {
    absl::StatusOr<Providers> providers = LoadProviders(absl::StrCat(data_dir, "/providers.json"));
    if (!providers.ok()) return UsageError(providers.status());
    if (auto p = providers->find(run->driver); p != providers->end()) errors = MeasureProviderErrors(coverage, p->second);
  }
  if (format == "json") {
    nlohmann::json out = CoverageJson(coverage);
    if (errors) out["provider_errors"] = ProviderErrorsJson(*errors);
    std::cout << out.dump(2) << std::endl;
  } else if (format == "md") {
    std::cout << CoverageMarkdown(coverage) << (errors ? "\n" + ProviderErrorsMarkdown(*errors) : "") << std::flush;
  } else {
    std::cout << (errors ? ProviderErrorsText(*errors) + "\n" : "") << CoverageText(coverage) << std::flush;
  }
  return kExitOk;
}

}  // namespace rdmacheck
