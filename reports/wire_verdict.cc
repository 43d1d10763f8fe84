#include "reports/wire_verdict.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {

std::vector<std::string> WireFailureParts(const std::vector<nlohmann::json>& violations, const std::string& capture) {
  std::vector<std::string> parts;
  for (const nlohmann::json& v : violations) {
    const int64_t frame = v.contains("frame") ? v.value("frame", int64_t{0}) : v.value("packet", int64_t{0});
    std::string part = absl::StrCat(capture, ":", frame, ": ", v.value("rule", "wire"), ": ", v.value("message", ""));
    if (v.contains("reference")) absl::StrAppend(&part, " (", v.value("reference", ""), ")");
    parts.push_back(std::move(part));
  }
  return parts;
}

namespace {

// The parts as a message shows them: the first kShownWireParts, then how many more.
std::string Shown(const std::vector<std::string>& parts) {
  const size_t shown = std::min(parts.size(), kShownWireParts);
  std::string text = absl::StrJoin(parts.begin(), parts.begin() + shown, "\n");
  if (parts.size() > shown) absl::StrAppend(&text, "\n... and ", parts.size() - shown, " more wire violations");
  return text;
}

void Append(std::string& message, const std::string& text) {
  absl::StrAppend(&message, message.empty() ? "" : "\n", text);
}

}  // namespace

void JudgeByWire(const std::vector<std::string>& parts, const Expectation* wire_entry, TestResult& result) {
  const bool judged_pass = result.status == TestStatus::kPass || result.status == TestStatus::kXfail;
  if (result.status == TestStatus::kSkip || (parts.empty() && !judged_pass)) return;
  if (parts.empty()) {
    if (wire_entry == nullptr || wire_entry->kind != ExpectationKind::kFails) return;
    result.status = TestStatus::kXpass;
    Append(result.message, absl::StrCat("no wire violation, but the expectation file lists one: ", wire_entry->reason,
                                        " (stale entry, or the driver was fixed)"));
    return;
  }
  if (!judged_pass) {  // a failure (or an xpass) already: the wire adds what it saw
    Append(result.message, Shown(parts));
    return;
  }
  std::string unknown;
  const bool known = wire_entry != nullptr && wire_entry->AbsorbsWire(parts, &unknown);
  if (!known) {
    if (result.status == TestStatus::kPass) result.message.clear();
    result.status = TestStatus::kFail;
    result.expectation_reason.clear();
    result.expectation_reference.clear();
    Append(result.message, wire_entry == nullptr
                               ? Shown(parts)
                               : absl::StrCat("not the known wire deviation (", wire_entry->reason, "; rule ",
                                              wire_entry->wire_rule, ", signature /", wire_entry->signature,
                                              "/, at most ", wire_entry->absorbs, " per test: ", unknown,
                                              "): ", Shown(parts)));
    return;
  }
  const std::string why = absl::StrCat(wire_entry->kind == ExpectationKind::kFlaky ? "flaky on the wire: " : "on the wire: ",
                                       wire_entry->reason);
  if (result.status == TestStatus::kPass) {
    result.message.clear();
    result.expectation_reason = why;
    result.expectation_reference = wire_entry->reference;
  } else {
    absl::StrAppend(&result.expectation_reason, "; ", why);
    absl::StrAppend(&result.expectation_reference, "; ", wire_entry->reference);
  }
  result.status = TestStatus::kXfail;
  Append(result.message, Shown(parts));
}

TestResult WireOutsideTestsResult(const std::vector<std::string>& parts) {
  TestResult r;
  r.suite = "wire";
  r.name = kWireOutsideTests;
  r.status = TestStatus::kFail;
  r.message = absl::StrCat("packets outside every test's slice broke wire rules:\n", absl::StrJoin(parts, "\n"));
  r.purpose = "every packet on the wire between the tests follows the RoCEv2 / iWARP rules (rdmacheck wire rules)";
  r.reference = "IBTA Vol 1 ch. 9, Annex A17; RFC 5040, 5041, 5044";
  return r;
}

}  // namespace rdmacheck
