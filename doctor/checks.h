// The doctor's checks: each judges HostFacts (facts.h) and says, per finding, what is
// wrong and the command or setting that fixes it. Pure functions, unit tested on made-up
// hosts (unit/doctor_checks_test.cc).
//
//   problem  RDMA (or the suites) cannot work as things are    -> exit 1
//   warning  works, but a risk or a limit the user should know -> exit 0
//   ok       checked and fine (kept, so the report shows what was checked)
//   unknown  could not be checked here (no privilege, no interface); never a problem
//
// The verdict: "problems" when any finding is a problem; "cannot tell" when the device
// list itself could not be read; else "ready".
#ifndef RDMACHECK_DOCTOR_CHECKS_H_
#define RDMACHECK_DOCTOR_CHECKS_H_

#include <string>
#include <vector>

#include "doctor/facts.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

enum class Severity { kOk, kWarning, kProblem, kUnknown };
const char* SeverityName(Severity severity);  // "ok", "warning", "problem", "unknown"

struct Finding {
  std::string check;   // "uverbs_permissions", ...
  std::string device;  // "" for host-wide checks
  Severity severity = Severity::kOk;
  std::string what;  // one line
  std::string fix;   // a command or setting; "" when nothing to fix
};

enum class Verdict { kReady, kProblems, kCannotTell };

struct Diagnosis {
  Verdict verdict = Verdict::kReady;
  std::string headline;  // the one verdict line
  std::vector<Finding> findings;
};

Diagnosis Diagnose(const HostFacts& facts);

int ExitCode(Verdict verdict);  // 0 ready, 1 problems, 2 cannot tell
std::string DiagnosisText(const Diagnosis& diagnosis);
nlohmann::json DiagnosisJson(const Diagnosis& diagnosis);

}  // namespace rdmacheck

#endif  // RDMACHECK_DOCTOR_CHECKS_H_
