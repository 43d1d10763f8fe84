#include "reports/wire_verdict.h"

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

void JudgeByWire(const std::vector<std::string>& parts, const Expectation* expectation, TestResult& result) {
  if (parts.empty() || result.status == TestStatus::kSkip) return;
  const std::string wire = absl::StrJoin(parts, "\n");
  if (result.status == TestStatus::kFail || result.status == TestStatus::kXpass) {
    absl::StrAppend(&result.message, result.message.empty() ? "" : "\n", wire);
    return;
  }
  // A pass, or an xfail whose own message is kept: judged again with the wire's parts.
  const bool was_xfail = result.status == TestStatus::kXfail;
  result.status = TestStatus::kFail;
  result.message = was_xfail ? absl::StrCat(result.message, "\n", wire) : wire;
  result.expectation_reason.clear();
  result.expectation_reference.clear();
  ApplyExpectation(expectation, result);
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
