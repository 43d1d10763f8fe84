// The expectation file a command applies (--expectations FILE, --no_expectations, or the
// shipped file of the device's driver), checked for stale entries against every name an
// entry may give: the registered tests and the walk's findings ("Walk.modify_qp",
// walk/walk.h ExpectationName). Used by `run`, `walk` and `list --check`.
#ifndef RDMACHECK_CLI_EXPECTATION_FLAGS_H_
#define RDMACHECK_CLI_EXPECTATION_FLAGS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "capabilities/expectations/expectations.h"

namespace rdmacheck {

// Every registered test's full name, then every walk finding's expectation name.
std::vector<std::string> ExpectableNames();

// The file to apply for `driver`, nullopt when none applies (--no_expectations, or no
// shipped file). A file with a stale entry is an error naming it.
absl::StatusOr<std::optional<ExpectationFile>> SelectedExpectations(const std::string& driver);

// What a results' environment says was applied: the file's path, "none (--no_expectations)", "none".
std::string ExpectationsInUse(const std::optional<ExpectationFile>& file);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_EXPECTATION_FLAGS_H_
