#include "testing/catalogue.h"

#include <algorithm>

namespace rdmacheck {
namespace {
std::vector<TestAbout>& Entries() {
  static std::vector<TestAbout> entries;
  return entries;
}
std::vector<RunsAlone>& AloneMarks() {
  static std::vector<RunsAlone> marks;
  return marks;
}
}  // namespace

bool RegisterAbout(TestAbout about) {
  Entries().push_back(std::move(about));
  return true;
}

const std::vector<TestAbout>& Catalogue() { return Entries(); }

std::pair<std::string, std::string> CatalogueKey(absl::string_view test_suite, absl::string_view test_name) {
  absl::string_view fixture = test_suite.substr(test_suite.rfind('/') + 1);  // npos+1 == 0
  absl::string_view name = test_name.substr(0, test_name.find('/'));
  return {std::string(fixture), std::string(name)};
}

const TestAbout* FindAbout(absl::string_view test_suite, absl::string_view test_name) {
  auto [fixture, name] = CatalogueKey(test_suite, test_name);
  for (const TestAbout& about : Entries()) {
    if (about.fixture == fixture && about.name == name) return &about;
  }
  return nullptr;
}

bool RegisterRunsAlone(RunsAlone mark) {
  AloneMarks().push_back(std::move(mark));
  return true;
}

const std::vector<RunsAlone>& RunsAloneMarks() { return AloneMarks(); }

const RunsAlone* FindRunsAlone(absl::string_view test_suite, absl::string_view test_name) {
  auto [fixture, name] = CatalogueKey(test_suite, test_name);
  for (const RunsAlone& mark : AloneMarks()) {
    if (mark.fixture == fixture && mark.name == name) return &mark;
  }
  return nullptr;
}

std::string SuiteOfFile(absl::string_view path) {
  constexpr absl::string_view kMarker = "suites/";
  size_t at = path.rfind(kMarker);
  if (at == absl::string_view::npos) return "other";
  absl::string_view rest = path.substr(at + kMarker.size());
  return std::string(rest.substr(0, rest.find('/')));
}

}  // namespace rdmacheck
