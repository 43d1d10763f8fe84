#include "cli/expectation_flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runner/test_selection.h"
#include "walk/walk.h"

ABSL_FLAG(std::string, expectations, "",
          "Expected deviations to apply (default: capabilities/expectations/<driver>.json for the device's driver)");
ABSL_FLAG(bool, no_expectations, false, "Apply no expectation file: report raw outcomes");

namespace rdmacheck {

std::vector<std::string> ExpectableNames() {
  std::vector<std::string> names = RegisteredTestNames();
  for (std::string& name : walk::ExpectationNames()) names.push_back(std::move(name));
  return names;
}

absl::StatusOr<std::optional<ExpectationFile>> SelectedExpectations(const std::string& driver) {
  const std::string path = absl::GetFlag(FLAGS_expectations);
  if (absl::GetFlag(FLAGS_no_expectations)) {
    if (!path.empty()) return absl::InvalidArgumentError("--expectations and --no_expectations exclude each other");
    return std::optional<ExpectationFile>();
  }
  absl::StatusOr<std::optional<ExpectationFile>> file =
      path.empty() ? ExpectationsForDriver(driver) : absl::StatusOr<std::optional<ExpectationFile>>(LoadExpectations(path));
  if (!file.ok() || !*file) return file;
  std::vector<std::string> stale = StaleEntries(**file, ExpectableNames());
  if (!stale.empty()) {
    return absl::InvalidArgumentError(absl::StrCat((*file)->path, ": ", absl::StrJoin(stale, "; ")));
  }
  return file;
}

std::string ExpectationsInUse(const std::optional<ExpectationFile>& file) {
  if (file) return file->path;
  return absl::GetFlag(FLAGS_no_expectations) ? "none (--no_expectations)" : "none";
}

}  // namespace rdmacheck
