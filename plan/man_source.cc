#include "plan/man_source.h"

#if RDMACHECK_HAVE_ZLIB
#include <zlib.h>
#endif

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace rdmacheck {
namespace {

// Requests whose arguments are not page text.
const std::set<std::string>& SilentRequests() {
  static const auto* silent = new std::set<std::string>{
      "TH", "Dd", "Dt", "Os", "ie", "el", "if", "ftr", "de", "ds", "nr", "so", "hy", "nh", "ad", "na", "in",
      "ti", "ta", "ne", "ll", "bp", "ft", "ps", "vs", "sp", "br", "nf", "fi", "PP", "LP", "P", "RS", "RE",
      "EX", "EE", "Pp", "Bl", "El", "Bd", "Ed", "\\}", "}"};
  return *silent;
}

// "\f[B]", "\fB", "\f(CW": a font change.
size_t FontEscapeLength(absl::string_view s) {
  if (s.size() < 3) return s.size();
  if (s[2] == '[') {
    size_t end = s.find(']', 3);
    return end == absl::string_view::npos ? s.size() : end + 1;
  }
  if (s[2] == '(') return std::min<size_t>(5, s.size());
  return 3;
}

std::string NamedCharacter(absl::string_view name) {
  if (name == "cq" || name == "aq" || name == "oq") return "'";
  if (name == "lq" || name == "rq" || name == "dq") return "\"";
  if (name == "em" || name == "en" || name == "hy" || name == "mi") return "-";
  if (name == "bu") return "o";
  if (name == "ti") return "~";
  if (name == "rs") return "\\";
  if (name == "ha") return "^";
  return "";
}

std::string Unescape(absl::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out.push_back(s[i]);
      continue;
    }
    char c = s[i + 1];
    if (c == 'f') {
      i += FontEscapeLength(s.substr(i)) - 1;
    } else if (c == '[') {
      size_t end = s.find(']', i + 2);
      if (end == absl::string_view::npos) break;
      out += NamedCharacter(s.substr(i + 2, end - i - 2));
      i = end;
    } else if (c == '(') {
      out += NamedCharacter(s.substr(i + 2, 2));
      i += 3;
    } else if (c == '"') {
      break;  // a comment to the end of the line
    } else if (c == '-' || c == 'e' || c == '\\') {
      out.push_back(c == '-' ? '-' : '\\');
      ++i;
    } else if (c == ' ' || c == '~') {
      out.push_back(' ');
      ++i;
    } else {
      ++i;  // \& \| \^ \c and other zero-width escapes
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::string> ReadManSource(const std::string& path) {
#if RDMACHECK_HAVE_ZLIB
  gzFile in = gzopen(path.c_str(), "rb");  // reads plain files as they are
  if (in == nullptr) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::string text;
  char buffer[16384];
  int n;
  while ((n = gzread(in, buffer, sizeof buffer)) > 0) text.append(buffer, n);
  const bool failed = n < 0;
  gzclose(in);
  if (failed) return absl::DataLossError(absl::StrCat("cannot read ", path, ": not a readable (gzip) file"));
  return text;
#else
  // A build without zlib's headers (an image's package build root): plain pages only.
  if (absl::EndsWith(path, ".gz")) {
    return absl::UnimplementedError(absl::StrCat("cannot read ", path, ": this rdmacheck was built without zlib; ",
                                                 "pass --manpages=DIR with uncompressed pages"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
#endif
}

std::string ManLineText(absl::string_view line) {
  if (line.empty()) return "";
  if (line[0] != '.' && line[0] != '\'') return std::string(absl::StripAsciiWhitespace(Unescape(line)));
  absl::string_view request = absl::StripLeadingAsciiWhitespace(line.substr(1));
  if (absl::StartsWith(request, "\\\"")) return "";  // .\" comment
  size_t space = request.find_first_of(" \t");
  std::string name(request.substr(0, space));
  if (SilentRequests().count(name) || name.empty()) return "";
  if (space == absl::string_view::npos) return "";
  std::string args = Unescape(request.substr(space + 1));
  if (name == "TP" || name == "IP") {  // .IP "tag" indent: the tag is text
    if (!args.empty() && args[0] == '"') {
      size_t end = args.find('"', 1);
      args = args.substr(1, end == std::string::npos ? std::string::npos : end - 1);
    } else if (name == "TP") {
      return "";
    }
  }
  args.erase(std::remove(args.begin(), args.end(), '"'), args.end());
  return std::string(absl::StripAsciiWhitespace(args));
}

ManPage ParseManPage(const std::string& name, const std::string& source) {
  ManPage page;
  page.name = name;
  if (absl::StartsWith(absl::StripLeadingAsciiWhitespace(source), ".so ")) return page;
  std::string section;
  int number = 0;
  for (absl::string_view raw : absl::StrSplit(source, '\n')) {
    ++number;
    absl::string_view request = raw;
    if (absl::ConsumePrefix(&request, ".SH") || absl::ConsumePrefix(&request, ".Sh")) {
      section = absl::AsciiStrToUpper(ManLineText(absl::StrCat(".B", request)));
      page.lines.push_back({number, section, ""});
      continue;
    }
    page.lines.push_back({number, section, ManLineText(raw)});
  }
  return page;
}

absl::StatusOr<ManPage> ReadManPage(const std::string& path) {
  std::error_code ec;
  std::string name = std::filesystem::path(path).filename().string();
  if (absl::EndsWith(name, ".gz")) name.resize(name.size() - 3);
  if (std::filesystem::is_symlink(path, ec)) return ManPage{name, {}};
  absl::StatusOr<std::string> source = ReadManSource(path);
  if (!source.ok()) return source.status();
  return ParseManPage(name, *source);
}

}  // namespace rdmacheck
