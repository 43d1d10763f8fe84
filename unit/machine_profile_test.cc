// The machine profile's format (machine/machine_profile.h): the documented example loads
// with every field, a profile written out reads back the same, and a bad file — unreadable,
// not JSON, a misspelt field, a wrong type, an impossible value — is refused with one line
// naming the file and the field. Firmware versions compare as numbers, part by part.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/files.h"
#include "machine/dotted_version.h"
#include "machine/machine_profile.h"
#include "unit/machine_fixtures.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

std::string WriteTemp(const std::string& name, const std::string& text) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
  EXPECT_TRUE(WriteFile(path, text).ok());
  return path;
}

// The first ```json block of docs/machine-profile.md: the example a reader copies.
std::string DocumentedExample() {
  std::ifstream in(std::string(RDMACHECK_SOURCE_DIR) + "/docs/machine-profile.md");
  std::stringstream text;
  text << in.rdbuf();
  std::smatch m;
  const std::string doc = text.str();
  if (!std::regex_search(doc, m, std::regex("```json\n([\\s\\S]*?)```"))) return "";
  return m[1];
}

TEST(MachineProfileTest, TheDocumentedExampleLoadsWithEveryField) {
  const std::string example = DocumentedExample();
  ASSERT_FALSE(example.empty()) << "no ```json block in docs/machine-profile.md";
  absl::StatusOr<MachineProfile> p = LoadMachineProfile(WriteTemp("example.json", example));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->machine_type, "gpu-a");
  EXPECT_EQ(p->nic_count, 8);
  EXPECT_THAT(p->nic_models, ::testing::ElementsAre("mlx5 15b3:101d"));
  EXPECT_EQ(p->port_rate, "200 Gb/sec (4X HDR)");
  EXPECT_EQ(p->active_mtu, 4096);
  EXPECT_EQ(p->netdev_mtu, 9000);
  EXPECT_EQ(p->gid_type, "RoCEv2");
  EXPECT_EQ(p->link_layer, "Ethernet");
  EXPECT_EQ(p->min_firmware, "28.39.1002");
  EXPECT_THAT(p->capabilities, ::testing::ElementsAre("rc_qp", "rdma_read", "atomics"));
  ASSERT_EQ(p->pairs.count("write bandwidth 65536 B"), 1u);
  EXPECT_DOUBLE_EQ(p->pairs.at("write bandwidth 65536 B").expect, 180.0);
  EXPECT_DOUBLE_EQ(p->pairs.at("send latency 64 B").tolerance, 0.2);
  ASSERT_TRUE(p->link_flaps.has_value());
  EXPECT_EQ(p->link_flaps->max, 2);
  EXPECT_EQ(p->link_flaps->window_s, 3600);
}

TEST(MachineProfileTest, AnEmptyProfileChecksNothingAndLoads) {
  absl::StatusOr<MachineProfile> p = MachineProfileFromJson(nlohmann::json::object());
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->nic_count || p->active_mtu || p->port_rate || p->min_firmware || p->link_flaps);
  EXPECT_TRUE(p->capabilities.empty() && p->pairs.empty() && p->nic_models.empty());
}

TEST(MachineProfileTest, WhatIsWrittenReadsBackTheSame) {
  MachineProfile written = fixtures::GpuA();
  written.link_flaps = LinkFlapLimit{3, 600};
  absl::StatusOr<MachineProfile> read = LoadMachineProfile(WriteTemp("round.json", MachineProfileText(written)));
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(MachineProfileToJson(*read), MachineProfileToJson(written));
  // The file a person reads starts with what it is.
  EXPECT_THAT(MachineProfileText(written), StartsWith("{\n  \"schema\": \"rdmacheck.machine-profile/1\",\n  \"machine_type\""));
}

struct BadProfile {
  const char* name;
  const char* text;
  const char* says;  // what the one line must name
};

class MachineProfileRefusalTest : public ::testing::TestWithParam<BadProfile> {};

TEST_P(MachineProfileRefusalTest, IsRefusedWithOneLineNamingFileAndField) {
  const std::string path = WriteTemp(std::string(GetParam().name) + ".json", GetParam().text);
  absl::StatusOr<MachineProfile> p = LoadMachineProfile(path);
  ASSERT_FALSE(p.ok()) << GetParam().text;
  const std::string message(p.status().message());
  EXPECT_THAT(message, StartsWith(path + ": "));
  EXPECT_THAT(message, HasSubstr(GetParam().says));
  EXPECT_THAT(message, Not(HasSubstr("\n")));
}

INSTANTIATE_TEST_SUITE_P(
    Files, MachineProfileRefusalTest,
    ::testing::Values(
        BadProfile{"NotJson", "{\"active_mtu\": 4096,", "not valid JSON: parse error"},
        BadProfile{"NotAnObject", "[4096]", "a machine profile must be a JSON object"},
        BadProfile{"UnknownField", R"({"nic": {"count": 8}})", "unknown field 'nic' (fields: schema, machine_type, nics"},
        BadProfile{"UnknownNestedField", R"({"nics": {"modles": ["mlx5"]}})", "unknown field 'nics.modles'"},
        BadProfile{"UnknownPairField", R"({"pairs": {"send latency 64 B": {"expect": 3, "tol": 0.1}}})",
                   "unknown field 'pairs['send latency 64 B'].tol'"},
        BadProfile{"UnknownLinkFlapsField", R"({"link_flaps": {"max": 2, "window": 60}})", "unknown field 'link_flaps.window'"},
        BadProfile{"WrongSchema", R"({"schema": "rdmacheck.machine-profile/2"})", "schema must be \"rdmacheck.machine-profile/1\""},
        BadProfile{"MtuAsText", R"({"active_mtu": "4096"})", "active_mtu must be 256, 512, 1024, 2048 or 4096"},
        BadProfile{"MtuNotAnIbMtu", R"({"active_mtu": 9000})", "got 9000"},
        BadProfile{"NetdevMtuAsFloat", R"({"netdev_mtu": 9000.5})", "netdev_mtu must be an integer >= 68"},
        BadProfile{"CountAsText", R"({"nics": {"count": "8"}})", "nics.count must be an integer >= 1, got \"8\""},
        BadProfile{"NoNics", R"({"nics": {"count": 0}})", "nics.count must be an integer >= 1, got 0"},
        BadProfile{"ModelsNotAList", R"({"nics": {"models": "mlx5"}})", "nics.models must be a non-empty list of strings"},
        BadProfile{"RateAsNumber", R"({"port_rate": 200})", "port_rate must be a non-empty string, got 200"},
        BadProfile{"FirmwareNoVersion", R"({"min_firmware": "latest"})", "min_firmware must be a dotted version"},
        BadProfile{"CapabilitiesNotAList", R"({"capabilities": "atomics"})", "capabilities must be a non-empty list"},
        BadProfile{"UnknownCapability", R"({"capabilities": ["atomic"]})", "unknown capability 'atomic'"},
        BadProfile{"PointOfAnotherShape", R"({"pairs": {"write bw 65536": {"expect": 180}}})",
                   "pairs['write bw 65536']: not a benchmark point"},
        BadProfile{"PointWithoutExpect", R"({"pairs": {"write bandwidth 65536 B": {"tolerance": 0.1}}})",
                   "pairs['write bandwidth 65536 B'].expect must be a bandwidth in Gb/s > 0"},
        BadProfile{"ToleranceOfAll", R"({"pairs": {"send latency 64 B": {"expect": 3, "tolerance": 1.5}}})",
                   ".tolerance must be in [0, 1), got 1.5"},
        BadProfile{"LinkFlapsWithoutMax", R"({"link_flaps": {"window_s": 60}})", "link_flaps.max must be an integer >= 0"}),
    [](const ::testing::TestParamInfo<BadProfile>& info) { return std::string(info.param.name); });

TEST(MachineProfileTest, AnUnreadableFileIsOneLine) {
  absl::StatusOr<MachineProfile> p = LoadMachineProfile("/nonexistent/gpu-a.json");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(), "cannot read /nonexistent/gpu-a.json");
}

struct VersionOrder {
  const char* lower;
  const char* higher;
};

class DottedVersionTest : public ::testing::TestWithParam<VersionOrder> {};

TEST_P(DottedVersionTest, ComparesPartByPartAsNumbers) {
  const auto lower = DottedVersion(GetParam().lower), higher = DottedVersion(GetParam().higher);
  ASSERT_TRUE(lower && higher);
  EXPECT_LT(CompareVersions(*lower, *higher), 0);
  EXPECT_GT(CompareVersions(*higher, *lower), 0);
  EXPECT_EQ(CompareVersions(*lower, *lower), 0);
}

INSTANTIATE_TEST_SUITE_P(Versions, DottedVersionTest,
                         ::testing::Values(VersionOrder{"28.35.1000", "28.39.1002"},
                                           VersionOrder{"28.39.1002", "28.100.0"},    // not as strings
                                           VersionOrder{"16.35.2000 (MT_0000000012)", "16.35.2001"},
                                           VersionOrder{"28.39", "28.39.1"},          // missing parts are 0
                                           VersionOrder{"0.0.0", "1"}));

TEST(DottedVersionTest, TextWithoutALeadingNumberIsNoVersion) {
  EXPECT_FALSE(DottedVersion(""));
  EXPECT_FALSE(DottedVersion("unknown"));
  EXPECT_EQ(CompareVersions(*DottedVersion("28.39"), *DottedVersion("28.39.0")), 0);
}

}  // namespace
}  // namespace rdmacheck
