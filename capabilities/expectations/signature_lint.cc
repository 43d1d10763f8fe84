#include "capabilities/expectations/signature_lint.h"

#include <regex>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/time/time.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

// For each character of a regular expression: its depth in groups where it is syntax (a
// '(' or ')' counts as outside its group), or -1 where it is escaped, an escape's
// backslash, or inside a class ("[|]" is no alternation).
std::vector<int> SyntaxDepths(absl::string_view pattern) {
  std::vector<int> depths(pattern.size(), -1);
  int depth = 0;
  bool in_class = false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c == '\\') {
      ++i;
    } else if (in_class) {
      in_class = c != ']';
    } else if (c == '[') {
      in_class = true;
    } else {
      if (c == ')') --depth;
      depths[i] = depth;
      if (c == '(') ++depth;
    }
  }
  return depths;
}

// The variants of one alternative (no top-level '|'): its first group's alternatives, each
// followed by every variant of what comes after the group.
std::vector<std::string> Variants(absl::string_view s) {
  const std::vector<int> depths = SyntaxDepths(s);
  size_t open = 0;
  while (open < s.size() && !(s[open] == '(' && depths[open] == 0)) ++open;
  size_t close = open + 1;
  while (close < s.size() && !(s[close] == ')' && depths[close] == 0)) ++close;
  if (close >= s.size()) return {std::string(s)};  // no group (or unbalanced: std::regex refuses it)
  absl::string_view inner = s.substr(open + 1, close - open - 1);
  std::string marker;
  if (absl::StartsWith(inner, "?:")) {
    marker = "?:";
    inner.remove_prefix(2);
  }
  // A lookaround is a condition, not text the signature matches: kept whole.
  const bool lookaround = absl::StartsWith(inner, "?");
  const std::vector<std::string> inners =
      lookaround ? std::vector<std::string>{std::string(inner)} : SignatureAlternatives(inner);
  const std::vector<std::string> rests = Variants(s.substr(close + 1));
  std::vector<std::string> out;
  for (const std::string& i : inners) {
    for (const std::string& rest : rests) {
      out.push_back(absl::StrCat(s.substr(0, open + 1), marker, i, ")", rest));
      if (out.size() > kMaxSignatureAlternatives) return out;
    }
  }
  return out;
}

// Texts any failure may print, whatever deviated: the runner's location prefix, gtest's
// frames, and timeouts that say neither what was awaited nor how many arrived.
const std::vector<std::string>& GenericFailureTexts() {
  static const auto* texts = new std::vector<std::string>{
      "suites/pd/pd_test.cc:12: ",
      "/src/suites/qp_state/flush_test.cc:123: Failure",
      "Value of: status.ok()\n  Actual: false\nExpected: true",
      "Expected equality of these values:\n  got\n    Which is: 1\n  want\n    Which is: 2",
      "Expected: (rc) != (0), actual: 0 vs 0",
      "Value of: status\nExpected: is OK\n  Actual: UNKNOWN: x (of type absl::Status)",
      "Google Test trace:",
      "Timed out",
      "DEADLINE_EXCEEDED: timed out after 2s",
      "the call did not return within 2s (child killed)",
      "the peer did not answer in time (ping)",
      "timed out after 250ms waiting for completions",
      "timed out after 250ms waiting for a completion event",
      "timed out after 250ms waiting for an async event",
      "timed out after 250ms waiting for an rdma_cm event",
  };
  return *texts;
}

// What the harness's waits await (harness/completion.cc, connection/cm_events.cc), and
// arrived-of-awaited counts they can report.
constexpr const char* kAwaited[] = {"completions",      "a completion event",        "an async event",
                                    "an rdma_cm event", "RDMA_CM_EVENT_ESTABLISHED", "RDMA_CM_EVENT_CONNECT_REQUEST"};
constexpr std::pair<int, int> kCounts[] = {{0, 1}, {0, 5}, {1, 5}, {4, 5}};

// A probe text in an error message, on one line.
std::string Quoted(absl::string_view text) {
  return absl::StrCat("\"", absl::StrReplaceAll(text, {{"\n", "\\n"}}), "\"");
}

std::string Timeout(const char* what, std::pair<int, int> count) {
  return std::string(WaitTimedOut(absl::Milliseconds(250), what, count.first, count.second).message());
}

// Why `re` matches a harness timeout without naming what was awaited and how many
// arrived, or "".
std::string UnnamedTimeout(const std::regex& re) {
  for (const char* what : kAwaited) {
    for (std::pair<int, int> count : kCounts) {
      const std::string text = Timeout(what, count);
      if (!std::regex_search(text, re)) continue;
      for (const char* other : kAwaited) {
        const std::string also = Timeout(other, count);
        if (other != what && std::regex_search(also, re)) {
          return absl::StrCat("matches a timeout whatever was awaited (", Quoted(text), " and ", Quoted(also),
                              "): name what the test waited for");
        }
      }
      for (std::pair<int, int> other : kCounts) {
        const std::string also = Timeout(what, other);
        if (other.second == count.second && other != count && std::regex_search(also, re)) {
          return absl::StrCat("matches a timeout whatever count arrived (", Quoted(text), " and ", Quoted(also),
                              "): name the count");
        }
      }
    }
  }
  return "";
}

}  // namespace

std::vector<std::string> TopLevelAlternatives(absl::string_view pattern) {
  const std::vector<int> depths = SyntaxDepths(pattern);
  std::vector<std::string> alternatives(1);
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '|' && depths[i] == 0) {
      alternatives.emplace_back();
    } else {
      alternatives.back().push_back(pattern[i]);
    }
  }
  return alternatives;
}

std::vector<std::string> SignatureAlternatives(absl::string_view pattern) {
  std::vector<std::string> out;
  for (const std::string& alternative : TopLevelAlternatives(pattern)) {
    for (std::string& variant : Variants(alternative)) {
      out.push_back(std::move(variant));
      if (out.size() > kMaxSignatureAlternatives) return out;
    }
  }
  return out;
}

std::string SignatureTooBroad(absl::string_view alternative) {
  // What nearly every message contains: nothing, a letter, a digit, a space, a punctuation mark.
  static const char* const kAnything[] = {"", "x", "0", "7", " ", ":", "\n"};
  std::regex re;
  try {
    re = std::regex(alternative.begin(), alternative.end(), std::regex::ECMAScript);
  } catch (const std::regex_error&) {
    return "is not a regular expression of its own";
  }
  for (const char* text : kAnything) {
    if (std::regex_search(text, re)) return absl::StrCat("matches nearly anything (even ", Quoted(text), ")");
  }
  for (const std::string& text : GenericFailureTexts()) {
    if (std::regex_search(text, re)) return absl::StrCat("matches what any failure prints (", Quoted(text), ")");
  }
  return UnnamedTimeout(re);
}

}  // namespace rdmacheck
