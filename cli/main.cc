// rdmacheck: one binary for every subcommand and every suite. See commands.h.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "gtest/gtest.h"
#include "cli/commands.h"
#include "cli/flag_parser.h"

#ifndef RDMACHECK_VERSION  // set by CMake from project(... VERSION)
#define RDMACHECK_VERSION "unknown"
#endif

namespace rdmacheck {
namespace {

void PrintHelp() {
  std::cout << "usage: rdmacheck COMMAND [flags]\n\ncommands:\n";
  for (const Command& c : Commands()) {
    if (!c.hidden) std::cout << "  " << c.name << std::string(10 - std::min<size_t>(c.name.size(), 9), ' ') << c.summary << "\n";
  }
  std::cout << "\n`rdmacheck COMMAND --help` shows a command's flags; `rdmacheck --version` the version. Exit "
               "codes: 0 ok, 1 failures found, 2 could not run.\n";
}

bool IsHelp(absl::string_view arg) { return arg == "--help" || arg == "-h" || arg == "-?"; }

int Main(int argc, char** argv) {
  // --help is ours: GoogleTest would print its own help for it.
  bool help = false;
  std::vector<char*> gtest_argv;
  for (int i = 0; i < argc; ++i) {
    if (i > 0 && IsHelp(argv[i])) {
      help = true;
    } else {
      gtest_argv.push_back(argv[i]);
    }
  }
  int gtest_argc = static_cast<int>(gtest_argv.size());
  gtest_argv.push_back(nullptr);
  // GoogleTest takes its own flags (--gtest_filter, ...) out of argv; that also registers
  // the parameterised tests, which `run` and `list` enumerate.
  ::testing::InitGoogleTest(&gtest_argc, gtest_argv.data());
  std::vector<std::string> args(gtest_argv.begin() + 1, gtest_argv.begin() + gtest_argc);
  if (help && (args.empty() || args[0] == "help")) {
    PrintHelp();
    return kExitOk;
  }
  if (!args.empty() && (args[0] == "--version" || args[0] == "version")) {
    std::cout << "rdmacheck " << RDMACHECK_VERSION << "\n";
    return kExitOk;
  }
  if (args.empty() || args[0] == "help") {
    PrintHelp();
    return args.empty() ? kExitUsage : kExitOk;
  }
  for (const Command& command : Commands()) {
    if (help && command.name == args[0]) {
      std::cout << "usage: rdmacheck " << command.usage << "\n\n" << command.summary << "\n\nflags:\n"
                << FlagsHelp(command.flags);
      return kExitOk;
    }
  }
  return RunCommandLine(args);
}

}  // namespace
}  // namespace rdmacheck

int main(int argc, char** argv) { return rdmacheck::Main(argc, argv); }
