// `rdmacheck report diff OLD NEW`: what changed between two reports of the same devices —
// the check a CI job runs after upgrading a kernel, rdma-core or a VM image.
//
// Devices are paired by name (two one-device reports pair whatever their names). A
// regression is:
//   - a test that was passed, skipped or xfail and is now failed or xpass;
//   - a capability the probe saw supported that is now unsupported or broken;
//   - a device of OLD that NEW does not have.
// Everything else that changed is listed but is not a regression: fixed tests, new or
// removed tests (a new test that fails is shown first among them), newly skipped tests, a
// capability gained or no longer probed.
#ifndef RDMACHECK_REPORTS_REPORT_DIFF_H_
#define RDMACHECK_REPORTS_REPORT_DIFF_H_

#include <optional>
#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "reports/report_model.h"

namespace rdmacheck {

// The order changes are listed in: what needs attention first.
enum class ChangeKind {
  kRegression,  // newly failing
  kNewFailing,  // a test OLD did not have, failing in NEW
  kFixed,       // failed or xpass before, passes (or xfails) now
  kChanged,     // any other change of outcome (e.g. pass -> skip)
  kAdded,       // a test only NEW has
  kRemoved,     // a test only OLD has
};
const char* ChangeKindName(ChangeKind kind);

struct TestChange {
  ChangeKind kind = ChangeKind::kChanged;
  std::string device;  // as NEW names it ("rxe0", or "rxe0 -> rxe1" when a pair differs in name)
  std::string suite;
  std::string test;
  std::optional<TestStatus> before, after;  // empty: the side did not run the test
  std::string message;                      // NEW's failure message, or the skip reason
};

struct CapabilityChange {
  std::string device;
  std::string capability;
  std::string before, after;  // outcomes; "" when not probed on that side
  bool regression = false;
};

struct ReportDiff {
  std::vector<TestChange> tests;               // by ChangeKind, then device and run order
  std::vector<CapabilityChange> capabilities;  // regressions first
  std::vector<std::string> devices_removed;    // in OLD only: a regression
  std::vector<std::string> devices_added;      // in NEW only
  int unchanged_tests = 0;

  int Regressions() const;  // regressed tests + lost capabilities + removed devices
  bool Regressed() const { return Regressions() > 0; }
};

ChangeKind ClassifyChange(std::optional<TestStatus> before, std::optional<TestStatus> after);
bool IsCapabilityRegression(const std::string& before, const std::string& after);

ReportDiff DiffReports(const Report& before, const Report& after);

// One screen for a terminal or a CI log: regressions first, each with its message's first line.
std::string DiffToText(const ReportDiff& diff, const std::string& old_name, const std::string& new_name);
std::string DiffToMarkdown(const ReportDiff& diff, const std::string& old_name, const std::string& new_name);
nlohmann::json DiffToJson(const ReportDiff& diff, const std::string& old_name, const std::string& new_name);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_REPORT_DIFF_H_
