// Command-line flags for rdmacheck's subcommands, parsed into Abseil flags.
//
// Each subcommand accepts its own set of flags; anything else is a usage error with a
// one-line message (exit 2), never a silent default. Forms: --name=value, --name value,
// --name / --noname for booleans, and -- to end the flags.
#ifndef RDMACHECK_CLI_FLAG_PARSER_H_
#define RDMACHECK_CLI_FLAG_PARSER_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/status/statusor.h"

namespace rdmacheck {

// Sets the accepted flags named in `args` and returns the positional arguments.
absl::StatusOr<std::vector<std::string>> ParseFlags(const std::vector<std::string>& args,
                                                    const std::vector<absl::string_view>& accepted);

// "--name=value" for each accepted flag whose value differs from its default.
std::vector<std::string> NonDefaultFlags(const std::vector<absl::string_view>& names);

// Help text: one line per flag with its default.
std::string FlagsHelp(const std::vector<absl::string_view>& names);

}  // namespace rdmacheck

#endif  // RDMACHECK_CLI_FLAG_PARSER_H_
