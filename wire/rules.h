// The wire rules: what `rdmacheck wire check` asserts about the packets in a capture, each
// with its id (what a violation names), the transport it applies to and the spec text it
// comes from. The table is the documentation: `rdmacheck wire check --help` and the README
// print it; each rule has a doctored capture in unit/testdata/wire/ that breaks it alone.
#ifndef RDMACHECK_WIRE_RULES_H_
#define RDMACHECK_WIRE_RULES_H_

#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

struct WireRule {
  absl::string_view id;         // "roce.psn"
  absl::string_view transport;  // "roce" (RoCEv2, RoCEv1 and native InfiniBand alike) or "iwarp"
  absl::string_view title;      // what holds on a good wire
  absl::string_view reference;  // "IBTA Vol 1 §9.7.1"
  // "violation": the spec requires it, a breach fails the check (exit 1); "advisory": the
  // spec's wording reads as guidance to a requester, a breach is reported and fails nothing;
  // "note": what the capture shows cannot be judged from where it was taken (loss it cannot
  // place): reported apart (WireReport::notes), fails nothing, and the capture is not clean.
  absl::string_view severity = kViolation;

  static constexpr absl::string_view kViolation = "violation";
  static constexpr absl::string_view kAdvisory = "advisory";
  static constexpr absl::string_view kNote = "note";
};

const std::vector<WireRule>& WireRules();

// The table as JSON: [{"id", "transport", "title", "reference", "severity"}, ...].
nlohmann::json WireRulesJson();

// The rule with `id`; a rule id the checkers use but the table lacks is a programming error
// caught by the unit tests (this returns an entry whose reference says so).
const WireRule& WireRuleById(absl::string_view id);

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_RULES_H_
