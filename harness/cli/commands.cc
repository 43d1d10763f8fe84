#include "harness/cli/commands.h"

#include <iostream>

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, format, "text", "Output format: text or json (list also: md)");
ABSL_FLAG(std::string, out, "", "Where to write: a directory for run (default out/<device>), a file for probe (default stdout)");

namespace rdmacheck {
namespace {
std::vector<absl::string_view> With(std::vector<absl::string_view> flags, std::vector<absl::string_view> more) {
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}
}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"devices", "devices [--format=text|json]",
       "list RDMA devices: transport, link layer, port states, GID table", {"format"}, DevicesCommand},
      {"run", "run [--device=D] [--out=DIR] [--suites=a,b] [--gtest_filter=PATTERN] [--capabilities=FILE]",
       "probe the device, run the conformance suites on it, write results.json and junit.xml",
       With(kSelectionFlags, {"out", "suites", "capabilities", "test_timeout"}), RunCommand},
      {"probe", "probe [--device=D] [--format=text|json] [--out=FILE]",
       "print the device's capability profile: declared and observed", With(kSelectionFlags, {"format", "out"}),
       ProbeCommand},
      {"list", "list [--format=text|json|md] [--check]",
       "print the catalogue of tests: what each checks, its reference, what it needs", {"format", "check"},
       ListCommand},
      {"__child", "__child --events=FILE --gtest_filter=TESTS", "runs tests for `run` (internal)",
       With(kSelectionFlags, {"capabilities", "events"}), ChildCommand, /*hidden=*/true},
  };
  return commands;
}

int UsageError(absl::string_view message) {
  std::cerr << "rdmacheck: " << message << std::endl;
  return kExitUsage;
}

int UsageError(const absl::Status& status) { return UsageError(status.message()); }

}  // namespace rdmacheck
