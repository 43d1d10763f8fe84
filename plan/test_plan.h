// The versioned test plan: every test of the catalogue under its group (its suite), with
// its stable number (test_ids.h), its status, purpose, references, procedure and the
// promises it checks. `rdmacheck plan --write-plan` writes it as test-plan.md and
// test-plan.json.
//
// Status: mandatory for the floor (the RC SEND, RDMA WRITE and RDMA READ bodies every run
// holds, runner/run_floor.h) and the transport's core: a test that needs no capability
// beyond an RC QP connected by hand or by rdma_cm with WRITE and READ, which every
// transport rdmacheck runs on carries. Every other test is informative: it checks an
// optional capability, and a device without it is not at fault.
#ifndef RDMACHECK_PLAN_TEST_PLAN_H_
#define RDMACHECK_PLAN_TEST_PLAN_H_

#include <string>
#include <vector>

#include "nlohmann/json.hpp"
#include "plan/checks.h"
#include "plan/test_ids.h"
#include "testing/catalogue.h"

namespace rdmacheck {

struct PlannedTest {
  int id = 0;         // 0: no number yet (run `plan --write-plan`)
  std::string group;  // the suite: "pd", "datapath", ...
  std::string test;   // "Fixture.Name"
  bool mandatory = false;
  std::string status_why;  // "floor: RC SEND", "core: needs rc_qp", "needs atomics"
  const TestAbout* about = nullptr;
  std::vector<std::string> promises;
  std::vector<std::string> sections;  // cited IBTA / RFC sections
};

// Tests in group order, then by number.
std::vector<PlannedTest> BuildTestPlan(const TestIds& ids, const std::vector<TestAbout>& catalogue,
                                       const Checks& checks);

std::string TestPlanMarkdown(const std::vector<PlannedTest>& plan, int version);
nlohmann::json TestPlanJson(const std::vector<PlannedTest>& plan, int version);

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_TEST_PLAN_H_
