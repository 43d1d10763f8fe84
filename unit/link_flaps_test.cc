// Link flaps counted across health checks (doctor/link_flaps.h): the downs within a window
// are the link_downed counter's increments since the window's baseline, a reset counter
// counts from zero, and the state file keeps what the next window needs.
#include "doctor/link_flaps.h"

#include <fstream>

#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'800'000'000);

TEST(LinkFlapsTest, DownsAreTheIncrementsWithinTheWindow) {
  LinkFlapHistory h;
  h.Add("rxe0/1", kT0, 5);                          // before the window: the baseline
  h.Add("rxe0/1", kT0 + absl::Minutes(50), 6);
  h.Add("rxe0/1", kT0 + absl::Minutes(70), 9);
  EXPECT_EQ(h.DownsWithin("rxe0/1", kT0 + absl::Minutes(70), absl::Hours(1)), 4u);  // 5 -> 9
  EXPECT_EQ(h.DownsWithin("rxe0/1", kT0 + absl::Minutes(70), absl::Minutes(15)), 3u);  // 6 -> 9
  EXPECT_EQ(h.DownsWithin("mlx5_0/1", kT0, absl::Hours(1)), 0u);
}

TEST(LinkFlapsTest, ACounterThatWentBackwardsCountsFromZero) {
  LinkFlapHistory h;
  h.Add("rxe0/1", kT0, 40);
  h.Add("rxe0/1", kT0 + absl::Minutes(5), 2);  // the device was re-added: 2 downs since
  EXPECT_EQ(h.DownsWithin("rxe0/1", kT0 + absl::Minutes(5), absl::Hours(1)), 2u);
}

TEST(LinkFlapsTest, DownsMadeOnPurposeAreExcused) {
  LinkFlapHistory h;
  h.Add("rxe0/1", kT0, 0);
  h.Add("rxe0/1", kT0 + absl::Minutes(10), 2, /*excused=*/2);  // a run's link tests
  h.Add("rxe0/1", kT0 + absl::Minutes(20), 3);                 // a real flap
  EXPECT_EQ(h.DownsWithin("rxe0/1", kT0 + absl::Minutes(20), absl::Hours(1)), 1u);
}

TEST(LinkFlapsTest, TheStateFileKeepsTheWindowAndItsBaseline) {
  const std::string path = ::testing::TempDir() + "/link-flaps/state.json";
  LinkFlapHistory h;
  for (int i = 0; i < 6; ++i) h.Add("rxe0/1", kT0 + absl::Minutes(20 * i), 10 + 2 * i, i % 2);
  const absl::Time now = kT0 + absl::Minutes(100);
  ASSERT_TRUE(h.Save(path, now - absl::Hours(1)).ok());
  absl::StatusOr<LinkFlapHistory> back = LinkFlapHistory::Load(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->samples().at("rxe0/1").size(), 4u);  // minutes 40 (baseline), 60, 80, 100
  EXPECT_EQ(back->DownsWithin("rxe0/1", now, absl::Hours(1)), h.DownsWithin("rxe0/1", now, absl::Hours(1)));
}

TEST(LinkFlapsTest, NoFileIsAnEmptyHistoryAMalformedOneAnError) {
  EXPECT_TRUE(LinkFlapHistory::Load(::testing::TempDir() + "/no-such-state.json").ok());
  const std::string bad = ::testing::TempDir() + "/bad-state.json";
  std::ofstream(bad) << R"({"ports": {"rxe0/1": [[1, -2]]}})";
  absl::StatusOr<LinkFlapHistory> h = LinkFlapHistory::Load(bad);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("a sample is [unix seconds, link_downed]"), std::string::npos);
}

}  // namespace
}  // namespace rdmacheck
