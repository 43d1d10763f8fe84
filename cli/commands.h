// rdmacheck's subcommands. Each lives in its own *_command.cc and is listed in commands.cc.
//
// Exit codes, for every command: 0 success, 1 the command ran and found failures
// (failed tests, a regression), 2 it could not run (bad flags, unknown device, no device,
// unreadable file) — with one line on stderr saying why. `run --peer` only: 3 the peer
// stopped answering and the run stopped early (a lab failure, not the device's; one line
// on stderr, environment.lab_failure in results.json: runner/peer_watch.h).
#ifndef RDMACHECK_CLI_COMMANDS_H_
#define RDMACHECK_CLI_COMMANDS_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"

// Flags several commands share (defined in commands.cc).
ABSL_DECLARE_FLAG(std::string, format);
ABSL_DECLARE_FLAG(std::string, out);
ABSL_DECLARE_FLAG(std::string, profile);  // health, fleet report: a machine profile (machine/machine_profile.h)

namespace rdmacheck {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailures = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitPeerUnreachable = 3;

struct Command {
  absl::string_view name;
  absl::string_view usage;    // "run [--device=D] [--out=DIR] ..."
  absl::string_view summary;  // one line for `rdmacheck help`
  std::vector<absl::string_view> flags;
  int (*run)(const std::vector<std::string>& positional);
  bool hidden = false;  // internal (the child side of `run`)
};

const std::vector<Command>& Commands();

// Runs one command line (args[0] the command, then its flags and arguments) in this
// process, GoogleTest initialised: main() for every command, and `run`'s children forked
// from its fork server (runner/fork_server.h), whose --gtest_filter is applied here.
int RunCommandLine(const std::vector<std::string>& args);

// Prints "rdmacheck: <message>" on stderr and returns kExitUsage.
int UsageError(absl::string_view message);
int UsageError(const absl::Status& status);

// The commands.
int DevicesCommand(const std::vector<std::string>& positional);
int DoctorCommand(const std::vector<std::string>& positional);
int RunCommand(const std::vector<std::string>& positional);
int ChildCommand(const std::vector<std::string>& positional);
int ListCommand(const std::vector<std::string>& positional);
int ProbeCommand(const std::vector<std::string>& positional);
int ReportCommand(const std::vector<std::string>& positional);
int ServeCommand(const std::vector<std::string>& positional);
int BenchCommand(const std::vector<std::string>& positional);
int WireCommand(const std::vector<std::string>& positional);
int WireWatchCommand(const std::vector<std::string>& links);  // `wire watch`, from WireCommand
int WireSlicesCommand(const std::vector<std::string>& positional);
int FleetCommand(const std::vector<std::string>& positional);
int HealthCommand(const std::vector<std::string>& positional);
int WalkCommand(const std::vector<std::string>& positional);
int PlanCommand(const std::vector<std::string>& positional);

// Flags every device command takes.
inline const std::vector<absl::string_view> kSelectionFlags = {"device", "port", "gid_index", "timeout_multiplier"};

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_COMMANDS_H_
