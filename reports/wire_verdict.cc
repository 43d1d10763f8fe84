#include "reports/wire_verdict.h"

#include <algorithm>
#include <map>

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

namespace {

// Whether `entries` together absorb `parts`: each part is claimed by the first entry whose
// rule and signature match it (Expectation::AbsorbsWire of that part alone), and no entry
// claims more than its count. `claimed`: the entries that claimed a part, in order;
// `unknown`: why not, when not.
bool AbsorbedTogether(const std::vector<const Expectation*>& entries, const std::vector<std::string>& parts,
                      std::vector<const Expectation*>& claimed, std::string& unknown) {
  std::map<const Expectation*, int> claims;
  for (const std::string& part : parts) {
    const Expectation* by = nullptr;
    std::string why;
    for (const Expectation* e : entries) {
      if (e->AbsorbsWire({part}, &why)) {
        by = e;
        break;
      }
    }
    if (by == nullptr) {
      unknown = why;
      return false;
    }
    if (++claims[by] == 1) claimed.push_back(by);
  }
  for (const Expectation* e : claimed) {
    if (claims[e] > e->absorbs) {
      unknown = absl::StrCat(claims[e], " violations, the entry absorbs at most ", e->absorbs, " per test (rule ",
                             e->wire_rule, ")");
      return false;
    }
  }
  return true;
}

std::string Described(const Expectation& e) {
  return absl::StrCat(e.reason, "; rule ", e.wire_rule, ", signature /", e.signature, "/, at most ", e.absorbs,
                      " per test");
}

}  // namespace

void JudgeByWire(const std::vector<std::string>& parts, const Expectation* wire_entry, TestResult& result) {
  std::vector<const Expectation*> entries;
  if (wire_entry != nullptr) entries.push_back(wire_entry);
  JudgeByWire(parts, entries, result);
}

void JudgeByWire(const std::vector<std::string>& parts, const std::vector<const Expectation*>& wire_entries,
                 TestResult& result) {
  const bool judged_pass = result.status == TestStatus::kPass || result.status == TestStatus::kXfail;
  if (result.status == TestStatus::kSkip || (parts.empty() && !judged_pass)) return;
  if (parts.empty()) {
    auto fails = std::find_if(wire_entries.begin(), wire_entries.end(),
                              [](const Expectation* e) { return e->kind == ExpectationKind::kFails; });
    if (fails == wire_entries.end()) return;
    result.status = TestStatus::kXpass;
    Append(result.message, absl::StrCat("no wire violation, but the expectation file lists one: ", (*fails)->reason,
                                        " (stale entry, or the driver was fixed)"));
    return;
  }
  if (!judged_pass) {  // a failure (or an xpass) already: the wire adds what it saw
    Append(result.message, Shown(parts));
    return;
  }
  std::string unknown;
  std::vector<const Expectation*> claimed;
  if (!AbsorbedTogether(wire_entries, parts, claimed, unknown)) {
    if (result.status == TestStatus::kPass) result.message.clear();
    result.status = TestStatus::kFail;
    result.expectation_reason.clear();
    result.expectation_reference.clear();
    std::vector<std::string> known;
    for (const Expectation* e : wire_entries) known.push_back(Described(*e));
    Append(result.message, wire_entries.empty() ? Shown(parts)
                                                : absl::StrCat("not the known wire deviation (",
                                                               absl::StrJoin(known, " | "), ": ", unknown,
                                                               "): ", Shown(parts)));
    return;
  }
  std::vector<std::string> whys, references;
  for (const Expectation* e : claimed) {
    whys.push_back(absl::StrCat(e->kind == ExpectationKind::kFlaky ? "flaky on the wire: " : "on the wire: ", e->reason));
    references.push_back(e->reference);
  }
  const std::string why = absl::StrJoin(whys, "; ");
  const std::string reference = absl::StrJoin(references, "; ");
  if (result.status == TestStatus::kPass) {
    result.message.clear();
    result.expectation_reason = why;
    result.expectation_reference = reference;
  } else {
    absl::StrAppend(&result.expectation_reason, "; ", why);
    absl::StrAppend(&result.expectation_reference, "; ", reference);
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
