// The wire's part of a test's verdict in the two-node lab, as the kernel log has its part:
// a packet that breaks a wire rule (wire/rules.h) inside a test's slice of the capture
// (wire_slices.h) fails that test, whatever its verbs saw. Each violation is one more
// failed assertion of the test, "<link>.pcap:<frame>: <rule>: <what was seen> (<reference>)";
// the driver's on_the_wire expectation for the test (capabilities/expectations/expectations.h) turns
// them into an xfail only when its signature matches every part, so a known wire
// deviation of a driver is named like any other and an unknown one stays a failure.
#ifndef RDMACHECK_REPORTS_WIRE_VERDICT_H_
#define RDMACHECK_REPORTS_WIRE_VERDICT_H_

#include <string>
#include <vector>

#include "capabilities/expectations/expectations.h"
#include "nlohmann/json.hpp"
#include "results/results.h"

namespace rdmacheck {

// "rxe.pcap:17: roce.psn: PSN 0x000071, expected 0x000070 (IBTA Vol 1 9.2)" for each
// violation object of a wire check's JSON ("frame", "rule", "message", "reference").
std::vector<std::string> WireFailureParts(const std::vector<nlohmann::json>& violations, const std::string& capture);

// A message shows at most this many parts ("... and N more wire violations"); the
// expectation is matched against all of them.
inline constexpr size_t kShownWireParts = 12;

// Judges `result` (already judged by its own outcome and expectation) by the wire's
// parts. `wire_entry` is the driver's on_the_wire expectation for the test (may be null):
//   parts it absorbs (Expectation::AbsorbsWire: each of its rule and matching its signature,
//     no more than its count): a pass or an xfail becomes (or stays) an xfail that names the
//     wire deviation too;
//   other parts: a pass or an xfail fails, with the parts ("not the known wire deviation"
//     when an entry exists); a failure or an xpass only gains the parts;
//   no parts, and an entry of kind "fails": a pass or an xfail is an xpass (the wire
//     showed nothing: the entry is stale or the driver was fixed).
// A skip is left as it is.
// Several entries may name one test's deviations (each of its own rule): each part is
// claimed by the first entry that absorbs it, within that entry's count.
void JudgeByWire(const std::vector<std::string>& parts, const std::vector<const Expectation*>& wire_entries,
                 TestResult& result);
void JudgeByWire(const std::vector<std::string>& parts, const Expectation* wire_entry, TestResult& result);

// The run's result for violations outside every test's slice (failed): "Wire.OutsideTests".
inline constexpr char kWireOutsideTests[] = "Wire.OutsideTests";
TestResult WireOutsideTestsResult(const std::vector<std::string>& parts);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_WIRE_VERDICT_H_
