// What an expectation's signature may not match, checked when a file loads (shipped or
// `--expectations FILE`): a signature must name the deviation, so each of its alternatives
// on its own must be narrower than what any failure prints.
//
// The alternatives of a signature are its top-level `|` branches with every group's
// branches multiplied out ("a(b|c)d|e" -> "a(b)d", "a(c)d", "e"; a lookahead is kept
// whole): one broad branch inside a group is as broad as one at the top. Each is refused
// when it
//   - matches nearly anything: "", a letter, a digit, a space, a colon;
//   - matches a text every failure of any test prints: a bare location
//     ("foo_test.cc:12: Failure"), gtest's frames ("Value of:", "Expected equality of these
//     values:"), "Timed out", a harness timeout cut before its count ("timed out after 2s
//     waiting for a completion event");
//   - matches a harness timeout (harness/status.h WaitTimedOut, "waiting for completions:
//     0 of 1 arrived") whatever was awaited, or whatever count arrived: a timeout signature
//     names both.
// What the tests' own messages allow (each assertion's format, the values it can show, the
// other waits of the same test) needs the sources: unit/expectation_lint_test.cc and
// unit/expectation_sites_test.cc check the shipped files against them.
#ifndef RDMACHECK_CAPABILITIES_EXPECTATIONS_SIGNATURE_LINT_H_
#define RDMACHECK_CAPABILITIES_EXPECTATIONS_SIGNATURE_LINT_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace rdmacheck {

// The top-level alternatives of a regular expression ("a|(b|c)|d" -> "a", "(b|c)", "d").
std::vector<std::string> TopLevelAlternatives(absl::string_view pattern);

// Every alternative with its groups' alternatives multiplied out (see above), in order.
// Stops after kMaxSignatureAlternatives + 1: a signature with more is refused.
inline constexpr size_t kMaxSignatureAlternatives = 256;
std::vector<std::string> SignatureAlternatives(absl::string_view pattern);

// Why one alternative (no '|' outside a lookahead) is too broad, or "" when it is not.
std::string SignatureTooBroad(absl::string_view alternative);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_EXPECTATIONS_SIGNATURE_LINT_H_
