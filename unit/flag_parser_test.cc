// Flag parsing: each command takes its own flags; bad values are usage errors.
#include "cli/flag_parser.h"

#include "absl/flags/flag.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/selection_flags.h"
#include "testing/status_matchers.h"
#include "harness/timeouts.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class FlagParserTest : public ::testing::Test {
 protected:
  void TearDown() override {
    absl::SetFlag(&FLAGS_device, "");
    absl::SetFlag(&FLAGS_port, 0);
    absl::SetFlag(&FLAGS_gid_index, -1);
    absl::SetFlag(&FLAGS_timeout_multiplier, 1.0);
  }
  const std::vector<absl::string_view> accepted_ = {"device", "port", "gid_index", "timeout_multiplier"};
};

TEST_F(FlagParserTest, SetsValuesInAllForms) {
  ASSERT_THAT(ParseFlags({"--device=rxe0", "--port", "2", "-gid_index=3", "pos"}, accepted_),
              IsOkAndHolds(ElementsAre("pos")));
  EXPECT_EQ(absl::GetFlag(FLAGS_device), "rxe0");
  EXPECT_EQ(absl::GetFlag(FLAGS_port), 2);
  EXPECT_EQ(absl::GetFlag(FLAGS_gid_index), 3);
}

TEST_F(FlagParserTest, DashesInANameMeanUnderscores) {
  ASSERT_THAT(ParseFlags({"--gid-index=4", "--timeout-multiplier", "2"}, accepted_), IsOkAndHolds(ElementsAre()));
  EXPECT_EQ(absl::GetFlag(FLAGS_gid_index), 4);
  EXPECT_EQ(absl::GetFlag(FLAGS_timeout_multiplier), 2.0);
}

TEST_F(FlagParserTest, DoubleDashEndsFlags) {
  EXPECT_THAT(ParseFlags({"--device=a", "--", "--port=1"}, accepted_), IsOkAndHolds(ElementsAre("--port=1")));
  EXPECT_EQ(absl::GetFlag(FLAGS_port), 0);
}

TEST_F(FlagParserTest, FlagNotAcceptedByTheCommandIsAnError) {
  absl::StatusOr<std::vector<std::string>> r = ParseFlags({"--out=x"}, accepted_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("unknown flag --out"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("--device"));
}

TEST_F(FlagParserTest, BadValueNamesFlagAndValue) {
  absl::StatusOr<std::vector<std::string>> r = ParseFlags({"--port=abc"}, accepted_);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("--port=abc"));
}

TEST_F(FlagParserTest, MissingValueIsAnError) {
  EXPECT_FALSE(ParseFlags({"--device"}, accepted_).ok());
}

TEST_F(FlagParserTest, SelectionRequestRejectsOutOfRangeValues) {
  ASSERT_OK(ParseFlags({"--port=300"}, accepted_));
  EXPECT_FALSE(SelectionRequestFromFlags().ok());
  ASSERT_OK(ParseFlags({"--port=1", "--gid_index=-5"}, accepted_));
  EXPECT_FALSE(SelectionRequestFromFlags().ok());
  ASSERT_OK(ParseFlags({"--port=1", "--gid_index=2"}, accepted_));
  absl::StatusOr<SelectionRequest> request = SelectionRequestFromFlags();
  ASSERT_OK(request);
  EXPECT_EQ(request->port, 1);
  EXPECT_EQ(request->gid_index, 2u);
}

TEST_F(FlagParserTest, NonDefaultFlagsAreForwarded) {
  ASSERT_OK(ParseFlags({"--timeout_multiplier=4"}, accepted_));
  EXPECT_THAT(NonDefaultFlags({"device", "timeout_multiplier"}), ElementsAre("--timeout_multiplier=4"));
}

}  // namespace
}  // namespace rdmacheck
