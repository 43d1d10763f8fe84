// rdmacheck_mutants: prints the mutant table as JSON for the driver (run_mutants.py):
// [{"name", "what", "suites", "filter", "devices", "survives"}, ...].
#include <iostream>

#include "nlohmann/json.hpp"
#include "selftest/mutants/mutant.h"

int main() {
  nlohmann::json table = nlohmann::json::array();
  for (const rdmacheck::mutants::Mutant& m : rdmacheck::mutants::AllMutants()) {
    table.push_back({{"name", m.name},
                     {"what", m.what},
                     {"suites", m.suites},
                     {"filter", m.filter},
                     {"devices", m.devices},
                     {"survives", m.survives ? nlohmann::json(m.survives) : nlohmann::json(nullptr)}});
  }
  std::cout << table.dump(2) << "\n";
}
