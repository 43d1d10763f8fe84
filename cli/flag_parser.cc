#include "cli/flag_parser.h"

#include <algorithm>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {
namespace {

// Abseil flag names are identifiers; "--compare-perftest" means --compare_perftest.
absl::CommandLineFlag* Find(absl::string_view spelled, const std::vector<absl::string_view>& accepted) {
  std::string name(spelled);
  std::replace(name.begin(), name.end(), '-', '_');
  if (std::find(accepted.begin(), accepted.end(), name) == accepted.end()) return nullptr;
  return absl::FindCommandLineFlag(name);
}

absl::Status Unknown(absl::string_view name, const std::vector<absl::string_view>& accepted) {
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown flag --", name,
      accepted.empty() ? " (this command takes no flags)" : absl::StrCat(" (flags: --", absl::StrJoin(accepted, ", --"), ")")));
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseFlags(const std::vector<std::string>& args,
                                                    const std::vector<absl::string_view>& accepted) {
  std::vector<std::string> positional;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      positional.insert(positional.end(), args.begin() + i + 1, args.end());
      break;
    }
    if (!absl::StartsWith(arg, "-") || arg == "-") {
      positional.push_back(arg);
      continue;
    }
    absl::string_view body = arg;
    body.remove_prefix(absl::StartsWith(arg, "--") ? 2 : 1);
    size_t eq = body.find('=');
    absl::string_view name = body.substr(0, eq);
    absl::CommandLineFlag* flag = Find(name, accepted);
    bool is_bool = flag != nullptr && flag->IsOfType<bool>();
    std::string value;
    if (flag == nullptr && eq == absl::string_view::npos && absl::StartsWith(name, "no")) {
      absl::CommandLineFlag* negated = Find(name.substr(2), accepted);
      if (negated != nullptr && negated->IsOfType<bool>()) {
        flag = negated;
        name = name.substr(2);
        value = "false";
      }
    }
    if (flag == nullptr) return Unknown(name, accepted);
    if (!value.empty()) {
      // --noname
    } else if (eq != absl::string_view::npos) {
      value = std::string(body.substr(eq + 1));
    } else if (is_bool) {
      value = "true";
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return absl::InvalidArgumentError(absl::StrCat("flag --", name, " needs a value"));
    }
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, "=", value, ": ", error));
    }
  }
  return positional;
}

std::vector<std::string> NonDefaultFlags(const std::vector<absl::string_view>& names) {
  std::vector<std::string> out;
  for (absl::string_view name : names) {
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag != nullptr && flag->CurrentValue() != flag->DefaultValue()) {
      out.push_back(absl::StrCat("--", name, "=", flag->CurrentValue()));
    }
  }
  return out;
}

std::string FlagsHelp(const std::vector<absl::string_view>& names) {
  std::string out;
  for (absl::string_view name : names) {
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr) continue;
    absl::StrAppendFormat(&out, "  --%-20s %s (default: %s)\n", name, flag->Help(),
                          flag->DefaultValue().empty() ? "\"\"" : flag->DefaultValue());
  }
  return out;
}

}  // namespace rdmacheck
