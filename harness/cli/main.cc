// rdmacheck: one binary for every subcommand and every suite. See commands.h.
#include <iostream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "harness/cli/commands.h"
#include "harness/cli/flag_parser.h"

namespace rdmacheck {
namespace {

void PrintHelp() {
  std::cout << "usage: rdmacheck COMMAND [flags]\n\ncommands:\n";
  for (const Command& c : Commands()) {
    if (!c.hidden) std::cout << "  " << c.name << std::string(10 - std::min<size_t>(c.name.size(), 9), ' ') << c.summary << "\n";
  }
  std::cout << "\n`rdmacheck COMMAND --help` shows a command's flags. Exit codes: 0 ok, 1 failures found, "
               "2 could not run.\n";
}

int Main(int argc, char** argv) {
  // GoogleTest takes its own flags (--gtest_filter, ...) out of argv; that also registers
  // the parameterised tests, which `run` and `list` enumerate.
  ::testing::InitGoogleTest(&argc, argv);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    PrintHelp();
    return args.empty() ? kExitUsage : kExitOk;
  }
  for (const Command& command : Commands()) {
    if (command.name != args[0]) continue;
    std::vector<std::string> rest(args.begin() + 1, args.end());
    for (const std::string& a : rest) {
      if (a == "--help" || a == "-h") {
        std::cout << "usage: rdmacheck " << command.usage << "\n\n" << command.summary << "\n\nflags:\n"
                  << FlagsHelp(command.flags);
        return kExitOk;
      }
    }
    absl::StatusOr<std::vector<std::string>> positional = ParseFlags(rest, command.flags);
    if (!positional.ok()) return UsageError(positional.status());
    return command.run(*positional);
  }
  return UsageError("unknown command '" + args[0] + "' (see rdmacheck help)");
}

}  // namespace
}  // namespace rdmacheck

int main(int argc, char** argv) { return rdmacheck::Main(argc, argv); }
