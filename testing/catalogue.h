// The test catalogue: what each test checks, where the expectation comes from, and which
// capabilities it needs. One line above each test:
//
//   RDMACHECK_ABOUT(PdTest, DeallocWithLiveMrFailsBusy,
//                   "ibv_dealloc_pd refuses a PD that an MR still uses", "ibv_alloc_pd(3)");
//   TEST_F(PdTest, DeallocWithLiveMrFailsBusy) { ... }
//
// Capabilities listed after the reference (Cap::kAtomics, ...) are enforced by DeviceTest:
// the test is skipped, with the evidence, when the device lacks one. For TEST_P, name the
// pattern (fixture and test name without instantiation prefix or parameter suffix).
// A test that must have the device to itself under `run --jobs=N` (it takes a device-wide
// or process-wide resource that tests running beside it would share: limits, memlock, huge
// pages) says so, and why, next to its entry:
//
//   RDMACHECK_RUNS_ALONE(MrSizeTest, HugePageBuffer, "the lab reserves 8 huge pages: ...");
//
// `rdmacheck list` prints the catalogue; `rdmacheck list --check` fails when a test has no
// entry or an entry (or a RUNS_ALONE mark) names no test.
#ifndef RDMACHECK_TESTING_CATALOGUE_H_
#define RDMACHECK_TESTING_CATALOGUE_H_

#include <string>
#include "absl/strings/string_view.h"
#include <utility>
#include <vector>

#include "capabilities/profile/cap.h"

namespace rdmacheck {

struct TestAbout {
  std::string fixture;
  std::string name;
  std::string purpose;
  std::string reference;
  std::vector<Cap> needs;
  std::string file;
  int line = 0;
};

bool RegisterAbout(TestAbout about);
const std::vector<TestAbout>& Catalogue();

// ("Prefix/Fixture", "Name/param") -> ("Fixture", "Name"): the catalogue key of a gtest test.
std::pair<std::string, std::string> CatalogueKey(absl::string_view test_suite, absl::string_view test_name);

// The entry for a gtest test, or nullptr.
const TestAbout* FindAbout(absl::string_view test_suite, absl::string_view test_name);

// Why a test must run with no other test on the device (RDMACHECK_RUNS_ALONE), or nullptr.
struct RunsAlone {
  std::string fixture;
  std::string name;
  std::string why;
  std::string file;
  int line = 0;
};
bool RegisterRunsAlone(RunsAlone mark);
const std::vector<RunsAlone>& RunsAloneMarks();
const RunsAlone* FindRunsAlone(absl::string_view test_suite, absl::string_view test_name);

// "suites/pd/pd_test.cc" -> "pd": the rdmacheck suite is the folder a test lives in.
std::string SuiteOfFile(absl::string_view path);

}  // namespace rdmacheck

#define RDMACHECK_ABOUT_CONCAT_INNER_(a, b) a##b
#define RDMACHECK_ABOUT_CONCAT_(a, b) RDMACHECK_ABOUT_CONCAT_INNER_(a, b)
#define RDMACHECK_ABOUT(fixture, name, purpose, reference, ...)                          \
  [[maybe_unused]] static const bool RDMACHECK_ABOUT_CONCAT_(rdmacheck_about_, __COUNTER__) = \
      ::rdmacheck::RegisterAbout({#fixture, #name, purpose, reference, {__VA_ARGS__}, __FILE__, __LINE__})

#define RDMACHECK_RUNS_ALONE(fixture, name, why)                                                   \
  [[maybe_unused]] static const bool RDMACHECK_ABOUT_CONCAT_(rdmacheck_alone_, __COUNTER__) = \
      ::rdmacheck::RegisterRunsAlone({#fixture, #name, why, __FILE__, __LINE__})

#endif  // RDMACHECK_TESTING_CATALOGUE_H_
