// The wire checker on captures it did not make: public captures from other RDMA stacks
// (hardware NICs, native InfiniBand, captures with no RDMA at all), each in
// unit/testdata/wire/real/ with its source and licence (SOURCES.md) and the verdict a
// careful reader finds in its frames (NAME.verdict.json, written from `tshark -V`, never
// from this checker's output): the packet counts per kind, the exit code of `wire check`,
// and every (rule, frame) that breaks a rule. Each capture names the misreading it guards
// against: a test here fails when the checker counts, skips or flags what the reader did not.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <utility>

#include "cli/commands.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "testing/status_matchers.h"
#include "wire/check_capture.h"

namespace rdmacheck {
namespace {

namespace fs = std::filesystem;

const fs::path kReal = fs::path(RDMACHECK_SOURCE_DIR) / "unit/testdata/wire/real";

std::vector<std::string> RealCaptures() {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(kReal)) {
    if (e.path().extension() == ".json") names.push_back(e.path().stem().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

nlohmann::json Verdict(const std::string& name) {
  std::ifstream in(kReal / (name + ".verdict.json"));
  return nlohmann::json::parse(in);
}

std::string CaptureOf(const std::string& name) {
  for (const char* ext : {".pcap", ".pcapng", ".erf"}) {
    if (fs::exists(kReal / (name + ext))) return (kReal / (name + ext)).string();
  }
  return (kReal / name).string();
}

class RealCaptureTest : public ::testing::TestWithParam<std::string> {};

// The packets of each kind the reader counted are the ones the rules read (a RoCEv2 frame
// tshark names after its source port, IP over InfiniBand, a capture with no RDMA), and the
// (rule, frame) pairs flagged are exactly the ones the reader found: nothing missed, nothing
// invented. One tshark run per capture: CI pays for each.
TEST_P(RealCaptureTest, MatchesTheReadersVerdict) {
  const nlohmann::json verdict = Verdict(GetParam());
  ASSERT_OK_AND_ASSIGN(WireReport report, CheckCapture(CaptureOf(GetParam())));
  const nlohmann::json json = WireReportJson(report);
  for (const auto& [kind, count] : verdict["counts"].items()) {
    EXPECT_EQ(json[kind], count) << kind << "\n" << WireReportText(report);
  }
  std::set<std::pair<std::string, int64_t>> expected, found;
  for (const nlohmann::json& v : verdict["violations"]) {
    expected.insert({v["rule"].get<std::string>(), v["frame"].get<int64_t>()});
  }
  for (const WireViolation& v : report.violations) found.insert({v.rule, v.frame});
  EXPECT_EQ(found, expected) << WireReportText(report);
}

// `wire check` exits as the reader expects: 0 clean, 1 a violation, 2 nothing to check.
TEST_P(RealCaptureTest, WireCheckExitCode) {
  const nlohmann::json verdict = Verdict(GetParam());
  EXPECT_EQ(WireCommand({"check", CaptureOf(GetParam())}), verdict["exit"].get<int>());
}

INSTANTIATE_TEST_SUITE_P(Real, RealCaptureTest, ::testing::ValuesIn(RealCaptures()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The bar: at least eight captures the project did not make, each with a verdict
// and a line in SOURCES.md saying where it comes from and under which licence.
TEST(RealCapturesTest, EightOrMoreWithSourceAndLicence) {
  const std::vector<std::string> names = RealCaptures();
  EXPECT_GE(names.size(), 8u);
  std::ifstream in(kReal / "SOURCES.md");
  const std::string sources((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const std::string& name : names) {
    EXPECT_THAT(sources, ::testing::HasSubstr(fs::path(CaptureOf(name)).filename().string())) << name;
  }
}

}  // namespace
}  // namespace rdmacheck
