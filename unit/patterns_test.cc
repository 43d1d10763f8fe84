#include "harness/patterns.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

TEST(PatternTest, SeededPatternHasNoZeroByte) {
  for (uint32_t seed : {0u, 1u, 0xa5u, 0xffffffffu}) {
    std::vector<uint8_t> bytes(1 << 20);
    FillPattern(absl::MakeSpan(bytes), Pattern::Seeded(seed));
    EXPECT_EQ(std::count(bytes.begin(), bytes.end(), 0), 0) << "seed " << seed;
  }
}

TEST(PatternTest, SeedsDiffer) {
  std::vector<uint8_t> a(64), b(64);
  FillPattern(absl::MakeSpan(a), Pattern::Seeded(1));
  FillPattern(absl::MakeSpan(b), Pattern::Seeded(2));
  EXPECT_NE(a, b);
}

TEST(PatternTest, ShiftedChunkIsCaught) {
  // A 1 MiB region whose second 64 KiB repeats the first: a period-64K pattern would pass.
  std::vector<uint8_t> bytes(1 << 20);
  FillPattern(absl::MakeSpan(bytes), Pattern::Seeded(7));
  std::copy(bytes.begin(), bytes.begin() + 65536, bytes.begin() + 65536);
  EXPECT_FALSE(CheckPattern(bytes, Pattern::Seeded(7)).ok());
}

TEST(PatternTest, CheckNamesTheFirstDifference) {
  std::vector<uint8_t> bytes(100);
  FillPattern(absl::MakeSpan(bytes), Pattern::Seeded(3));
  EXPECT_TRUE(CheckPattern(bytes, Pattern::Seeded(3)).ok());
  bytes[17] = 0;
  bytes[40] = 0;
  absl::Status s = CheckPattern(bytes, Pattern::Seeded(3));
  EXPECT_TRUE(absl::IsDataLoss(s));
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("byte 17 of 100 is 0x00"));
  EXPECT_THAT(std::string(s.message()), ::testing::HasSubstr("2 bytes differ"));
}

TEST(PatternTest, ConstantPattern) {
  std::vector<uint8_t> bytes(10, 0xee);
  EXPECT_TRUE(CheckPattern(bytes, Pattern::Constant(0xee)).ok());
  EXPECT_FALSE(CheckPattern(bytes, Pattern::Constant(0)).ok());
  EXPECT_EQ(Pattern::Constant(0).ToString(), "constant(0x00)");
  EXPECT_EQ(Pattern::Seeded(9).ToString(), "seeded(9)");
}

}  // namespace
}  // namespace rdmacheck
