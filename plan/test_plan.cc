#include "plan/test_plan.h"

#include <algorithm>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "plan/references.h"
#include "runner/run_floor.h"

namespace rdmacheck {
namespace {

// "RcSendSizeTest.SendArrivesIntact" for each body of the floor's filter
// ("*RcSendSizeTest.SendArrivesIntact/*_One:...").
std::set<std::string> FloorBodies() {
  std::set<std::string> bodies;
  for (absl::string_view pattern : absl::StrSplit(FloorInstancesFilter(), ':', absl::SkipEmpty())) {
    absl::ConsumePrefix(&pattern, "*");
    bodies.insert(std::string(pattern.substr(0, pattern.find('/'))));
  }
  return bodies;
}

bool CoreCap(Cap cap) {
  switch (cap) {
    case Cap::kRcQp:
    case Cap::kManualConnect:
    case Cap::kRdmaCm:
    case Cap::kRdmaWrite:
    case Cap::kRdmaRead:
    case Cap::kMemlock:
      return true;
    default:
      return false;
  }
}

std::string Needs(const TestAbout& about) {
  std::vector<std::string> names;
  for (Cap cap : about.needs) names.emplace_back(CapName(cap));
  return absl::StrJoin(names, ", ");
}

std::string Procedure(const PlannedTest& t) {
  std::string needs = t.about->needs.empty()
                          ? "on every device"
                          : absl::StrCat("on a device with ", Needs(*t.about), " (skipped, with the evidence, without)");
  return absl::StrCat("`rdmacheck run --gtest_filter='*", t.test, "*'` ", needs, "; defined at ",
                      t.about->file.substr(t.about->file.find("suites/")), ":", t.about->line);
}

}  // namespace

std::vector<PlannedTest> BuildTestPlan(const TestIds& ids, const std::vector<TestAbout>& catalogue,
                                       const Checks& checks) {
  const std::set<std::string> floor = FloorBodies();
  std::vector<PlannedTest> plan;
  for (const TestAbout& about : catalogue) {
    PlannedTest t;
    t.test = absl::StrCat(about.fixture, ".", about.name);
    t.group = SuiteOfFile(about.file);
    t.about = &about;
    auto id = ids.tests.find(t.test);
    t.id = id == ids.tests.end() ? 0 : id->second;
    auto declared = checks.find(t.test);
    if (declared != checks.end()) t.promises = declared->second;
    t.sections = CitedSections(about.reference);
    std::vector<std::string> optional;
    for (Cap cap : about.needs) {
      if (!CoreCap(cap)) optional.emplace_back(CapName(cap));
    }
    if (floor.count(t.test)) {
      t.mandatory = true;
      t.status_why = "the floor (runner/run_floor.h)";
    } else if (optional.empty()) {
      t.mandatory = true;
      t.status_why = about.needs.empty() ? "core: needs no capability" : absl::StrCat("core: needs ", Needs(about));
    } else {
      t.status_why = absl::StrCat("optional: needs ", absl::StrJoin(optional, ", "));
    }
    plan.push_back(std::move(t));
  }
  std::stable_sort(plan.begin(), plan.end(), [](const PlannedTest& a, const PlannedTest& b) {
    return std::make_pair(a.group, a.id) < std::make_pair(b.group, b.id);
  });
  return plan;
}

std::string TestPlanMarkdown(const std::vector<PlannedTest>& plan, int version) {
  int mandatory = 0;
  for (const PlannedTest& t : plan) mandatory += t.mandatory;
  std::string md = absl::StrCat("# rdmacheck test plan, version ", version, "\n\n", plan.size(), " tests: ", mandatory,
                                " mandatory, ", plan.size() - mandatory,
                                " informative. IDs are stable (plan/ids.json); changes are in plan/CHANGELOG.md.\n");
  std::string group;
  for (const PlannedTest& t : plan) {
    if (t.group != group) {
      group = t.group;
      absl::StrAppend(&md, "\n## ", group, "\n");
    }
    absl::StrAppend(&md, "\n### ", t.id ? ShowId(t.id) : "T-????", " ", t.test, " (", t.mandatory ? "mandatory" : "informative",
                    ")\n\n- Observable result: ", t.about->purpose, "\n- Procedure: ", Procedure(t), "\n- Status: ",
                    t.status_why, "\n- References: ", t.about->reference.empty() ? "-" : t.about->reference, "\n");
    if (!t.promises.empty()) absl::StrAppend(&md, "- Promises checked: ", absl::StrJoin(t.promises, ", "), "\n");
  }
  return md;
}

nlohmann::json TestPlanJson(const std::vector<PlannedTest>& plan, int version) {
  nlohmann::json tests = nlohmann::json::array();
  for (const PlannedTest& t : plan) {
    std::vector<std::string> needs;
    for (Cap cap : t.about->needs) needs.emplace_back(CapName(cap));
    tests.push_back({{"id", t.id ? ShowId(t.id) : ""},
                     {"group", t.group},
                     {"test", t.test},
                     {"status", t.mandatory ? "mandatory" : "informative"},
                     {"status_why", t.status_why},
                     {"purpose", t.about->purpose},
                     {"procedure", Procedure(t)},
                     {"reference", t.about->reference},
                     {"sections", t.sections},
                     {"needs", needs},
                     {"promises", t.promises}});
  }
  return {{"schema", "rdmacheck.test-plan/1"}, {"version", version}, {"tests", tests}};
}

}  // namespace rdmacheck
