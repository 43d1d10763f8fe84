// The wire lab's stall watch (wire/link_watch.h, wire/pcap_tail.h): a direction whose
// frames stop arriving is stalled within the bound; a slow direction, an idle one and one
// still draining are not.
#include "wire/link_watch.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "wire/pcap_tail.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);
absl::Time At(double seconds) { return kStart + absl::Seconds(seconds); }
const absl::Duration kBound = absl::Seconds(10);

TEST(DirectionWatchTest, FramesThatNeverArriveStallTheDirectionAfterTheBound) {
  DirectionWatch w(kStart);
  w.Observe(At(1), 100, 100);
  w.Observe(At(2), 101, 100);  // the segment node A retransmits, unanswered
  w.Observe(At(5), 103, 100);
  EXPECT_FALSE(w.Stalled(At(11.9), kBound));
  w.Observe(At(12), 104, 100);
  EXPECT_TRUE(w.Stalled(At(12), kBound));
  EXPECT_EQ(w.waiting(), 4);
  EXPECT_EQ(w.waiting_since(), At(2));
}

TEST(DirectionWatchTest, AnIdleDirectionNeverStalls) {
  DirectionWatch w(kStart);
  w.Observe(At(1), 10, 10);
  w.Observe(At(600), 10, 10);
  EXPECT_FALSE(w.Stalled(At(600), kBound));
}

TEST(DirectionWatchTest, ASlowReceiverThatKeepsTakingFramesIsNotStalled) {
  DirectionWatch w(kStart);
  w.Observe(At(0), 1000, 0);  // a burst, then the receiver drains it one frame a second
  for (int s = 1; s <= 30; ++s) {
    w.Observe(At(s), 1000, s);
    EXPECT_FALSE(w.Stalled(At(s), kBound)) << "at " << s << " s";
  }
  w.Observe(At(41), 1000, 30);  // then it stops taking any
  EXPECT_TRUE(w.Stalled(At(41), kBound));
}

TEST(DirectionWatchTest, FramesThatArriveLateButWithinTheBoundAreInFlight) {
  DirectionWatch w(kStart);
  w.Observe(At(1), 5, 0);
  w.Observe(At(9), 5, 5);
  w.Observe(At(30), 5, 5);
  EXPECT_FALSE(w.Stalled(At(30), kBound));
  EXPECT_EQ(w.waiting(), 0);
}

TEST(DirectionWatchTest, TheLineNamesTheLinkTheDirectionAndTheTime) {
  DirectionWatch w(kStart);
  w.Observe(At(78.3), 14, 0);
  const std::string line = StallLine("siw", "B", "A", w, kStart, At(90));
  EXPECT_THAT(line, HasSubstr("link siw: node B -> node A stopped carrying frames at"));
  EXPECT_THAT(line, HasSubstr("(78.3 s into the run): 14 frames sent by node B never reached node A"));
}

// A pcap as QEMU's filter-dump writes it: global header, then records.
class PcapTailTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "/pcap_tail_" + ::testing::UnitTest::GetInstance()->current_test_info()->name() +
            ".pcap";
    std::remove(path_.c_str());
  }
  void TearDown() override { std::remove(path_.c_str()); }
  static std::string Le32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
  static std::string GlobalHeader(uint32_t link_type = 1) {
    return Le32(0xa1b2c3d4) + std::string("\x02\x00\x04\x00", 4) + Le32(0) + Le32(0) + Le32(65535) + Le32(link_type);
  }
  static std::string Record(uint8_t source_last_byte, uint32_t length = 60) {
    std::string frame(length, '\0');
    for (int i = 0; i < 5; ++i) frame[6 + i] = "\x52\x54\x00\x88\x02"[i];
    frame[11] = static_cast<char>(source_last_byte);
    return Le32(1'800'000'000) + Le32(500'000) + Le32(length) + Le32(length) + frame;
  }
  void Append(const std::string& bytes) {
    std::ofstream(path_, std::ios::binary | std::ios::app) << bytes;
  }
  std::string path_;
};

TEST_F(PcapTailTest, CountsFramesBySourceAsTheFileGrows) {
  const MacAddress a = *ParseMac("52:54:00:88:02:01"), b = *ParseMac("52:54:00:88:02:02");
  PcapTail tail(path_);
  ASSERT_TRUE(tail.Poll().ok());  // not written yet: nothing, no error
  EXPECT_EQ(tail.frames(), 0);
  Append(GlobalHeader() + Record(1) + Record(2) + Record(1));
  const std::string cut = Record(2);
  Append(cut.substr(0, 30));  // the writer is in the middle of a record
  ASSERT_TRUE(tail.Poll().ok());
  EXPECT_EQ(tail.frames_from(a), 2);
  EXPECT_EQ(tail.frames_from(b), 1);
  Append(cut.substr(30));
  ASSERT_TRUE(tail.Poll().ok());
  EXPECT_EQ(tail.frames_from(b), 2);
  EXPECT_EQ(tail.frames(), 4);
  EXPECT_DOUBLE_EQ(tail.first_time(), 1'800'000'000.5);
}

TEST_F(PcapTailTest, AFileThatIsNotAnEthernetPcapIsAnError) {
  Append(GlobalHeader(/*link_type=*/101));
  EXPECT_FALSE(PcapTail(path_).Poll().ok());
  std::remove(path_.c_str());
  Append(std::string(24, 'x'));
  EXPECT_FALSE(PcapTail(path_).Poll().ok());
}

TEST(ParseMacTest, ReadsSixHexBytesAndRefusesTheRest) {
  EXPECT_EQ(MacToString(*ParseMac("52:54:00:88:0A:ff")), "52:54:00:88:0a:ff");
  EXPECT_FALSE(ParseMac("52:54:00:88:0a").ok());
  EXPECT_FALSE(ParseMac("52:54:00:88:0a:zz").ok());
  EXPECT_FALSE(ParseMac("52:54:00:88:0a:123").ok());
}

}  // namespace
}  // namespace rdmacheck
