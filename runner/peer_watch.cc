#include "runner/peer_watch.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"

namespace rdmacheck {

bool PeerWatch::AfterResult(TestResult& failed) {
  if (failed.status != TestStatus::kFail) return true;
  std::lock_guard<std::mutex> hold(mutex_);
  if (!stopped_.load()) {
    const absl::Time start = absl::Now();
    const absl::Status answer = probe_(window_);
    if (answer.ok()) return true;
    silent_s_ = absl::ToDoubleSeconds(absl::Now() - start);
    after_ = failed.name;
    reason_ = absl::StrCat("the peer ", peer_, " stopped answering its side channel (no answer to a ping for ",
                           absl::StrFormat("%.1f", silent_s_), " s: ", answer.message(), ")");
    stopped_.store(true);
  }
  absl::StrAppend(&failed.message, failed.message.empty() ? "" : "\n\n", reason_);  // a failure part of its own
  failed.abnormal = true;
  return false;
}

nlohmann::json PeerWatch::LabFailure(const std::vector<std::string>& not_run) const {
  return {{"reason", reason_}, {"peer", peer_}, {"after", after_}, {"silent_s", silent_s_}, {"not_run", not_run}};
}

std::vector<std::string> TestsNotRun(const std::vector<RegisteredTest>& planned,
                                     const std::vector<TestResult>& results) {
  std::set<std::string> ran;
  for (const TestResult& r : results) ran.insert(r.name);
  std::vector<std::string> not_run;
  for (const RegisteredTest& t : planned) {
    if (!ran.count(t.name)) not_run.push_back(t.name);
  }
  return not_run;
}

std::vector<RegisteredTest> TestsRun(const std::vector<RegisteredTest>& planned, const nlohmann::json& environment) {
  std::set<std::string> not_run;
  if (environment.contains("lab_failure")) {
    for (const nlohmann::json& name : environment.at("lab_failure").value("not_run", nlohmann::json::array())) {
      if (name.is_string()) not_run.insert(name.get<std::string>());
    }
  }
  std::vector<RegisteredTest> run;
  for (const RegisteredTest& t : planned) {
    if (!not_run.count(t.name)) run.push_back(t);
  }
  return run;
}

std::string LabFailureLine(const nlohmann::json& lab_failure) {
  const nlohmann::json not_run = lab_failure.value("not_run", nlohmann::json::array());
  return absl::StrFormat("rdmacheck: peer %s unreachable (side channel silent for %.1f s) after %s; %d tests not run",
                         lab_failure.value("peer", "?"), lab_failure.value("silent_s", 0.0),
                         lab_failure.value("after", "?"), not_run.size());
}

}  // namespace rdmacheck
