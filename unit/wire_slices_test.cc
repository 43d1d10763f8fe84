// reports/wire_slices.h and runner/wire_marks.h: a capture cut into per-test slices by the
// marks each test sends on its wire, from tshark's field output.
#include "reports/wire_slices.h"

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "reports/presentation.h"
#include "runner/wire_marks.h"

namespace rdmacheck {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;
using ::testing::UnorderedElementsAre;

// One line of tshark's output (columns of kWireSliceFields).
std::string Line(int number, const std::string& source, const std::string& bth = "", const std::string& qp = "",
                 const std::string& rdmap = "", const std::string& mark = "", const std::string& icmp = "") {
  const std::string port = mark.empty() ? "4791" : "9";
  return absl::StrJoin({std::to_string(number), source, icmp, port, absl::BytesToHexString(mark), bth, qp, rdmap,
                        std::string(), std::string()},
                       "\t");
}

constexpr char kB[] = "10.88.1.2";
constexpr char kA[] = "10.88.1.1";

std::string Capture() {
  return absl::StrJoin(
      {
          Line(1, kB, "0x64", "0x000001"),  // a CM MAD before any test: in no slice
          Line(2, kB, "", "", "", WireMarkPayload(true, "DatapathTest.Send")),
          Line(3, kB, "0x04", "0x000011"), Line(4, kA, "0x11", "0x000012"),
          Line(5, kB, "0x04", "0x000011"), Line(6, kB, "0x04", "0x000011"),
          Line(7, kA, "", "", "", "", "3"),  // ICMP port unreachable quoting a mark: dropped
          Line(8, kB, "", "", "", WireMarkPayload(false, "DatapathTest.Send")),
          Line(9, kB, "", "", "", WireMarkPayload(true, "PdTest.Alloc")),
          Line(10, kB, "", "", "", WireMarkPayload(false, "PdTest.Alloc")),
          Line(11, kB, "", "", "", WireMarkPayload(true, "ReadTest.Read")),
          Line(12, kB, "0x0c", "0x000013"), Line(13, kA, "0x0d,0x0f", "0x000014,0x000014"),
      },
      "\n");
}

TEST(WireSlicesTest, MarksCutTheCaptureIntoTests) {
  std::map<std::string, WireSlice> slices = SliceByMarks(ParseWireFrames(Capture()));
  ASSERT_EQ(slices.size(), 3u);
  const WireSlice& send = slices["DatapathTest.Send"];
  EXPECT_EQ(send.start_mark, 2);
  EXPECT_EQ(send.end_mark, 8);
  EXPECT_EQ(send.first_packet, 3);
  EXPECT_EQ(send.last_packet, 6);
  EXPECT_EQ(send.packets, 4);
  EXPECT_THAT(send.opcodes, UnorderedElementsAre(Pair("B>A RC SEND Only", 3), Pair("A>B RC Acknowledge", 1)));
  EXPECT_THAT(send.sequence, ElementsAre("B>A RC SEND Only", "A>B RC Acknowledge", "B>A RC SEND Only x2"));
}

TEST(WireSlicesTest, TestWithoutPacketsHasAnEmptySlice) {
  std::map<std::string, WireSlice> slices = SliceByMarks(ParseWireFrames(Capture()));
  EXPECT_EQ(slices["PdTest.Alloc"].packets, 0);
  EXPECT_THAT(slices["PdTest.Alloc"].sequence, IsEmpty());
}

TEST(WireSlicesTest, SliceWithoutEndMarkRunsToTheCapturesEnd) {
  std::map<std::string, WireSlice> slices = SliceByMarks(ParseWireFrames(Capture()));
  const WireSlice& read = slices["ReadTest.Read"];
  EXPECT_EQ(read.end_mark, 0);
  EXPECT_THAT(read.sequence, ElementsAre("B>A RC RDMA READ Request", "A>B RC RDMA READ Response First",
                                         "A>B RC RDMA READ Response Last"));
  nlohmann::json j = SliceToJson(read, "rxe", nlohmann::json());
  EXPECT_EQ(j["filter"], "frame.number >= 11 && frame.number <= 13");
}

// An impaired wire drops and duplicates marks like any datagram (the 1 % loss run lost one
// test's end mark, and the violations of the next two tests were taken for its own).
std::string CaptureLosingMarks() {
  return absl::StrJoin(
      {
          Line(1, kB, "", "", "", WireMarkPayload(true, "A.EndMarkLost")),
          Line(2, kB, "0x04", "0x000011"),
          Line(3, kB, "", "", "", WireMarkPayload(true, "B.Duplicated")),
          Line(4, kB, "", "", "", WireMarkPayload(true, "B.Duplicated")),
          Line(5, kB, "0x04", "0x000012"),
          Line(6, kB, "", "", "", WireMarkPayload(false, "B.Duplicated")),
          Line(7, kB, "", "", "", WireMarkPayload(false, "B.Duplicated")),
          Line(8, kB, "0x04", "0x000013"),  // C.StartMarkLost's start mark never came
          Line(9, kA, "0x11", "0x000014"),
          Line(10, kB, "", "", "", WireMarkPayload(false, "C.StartMarkLost")),
      },
      "\n");
}

TEST(WireSlicesTest, LostEndMarkEndsAtTheNextTestsStart) {
  std::map<std::string, WireSlice> slices = SliceByMarks(ParseWireFrames(CaptureLosingMarks()));
  const WireSlice& a = slices["A.EndMarkLost"];
  EXPECT_EQ(a.start_mark, 1);
  EXPECT_EQ(a.end_mark, 3);
  EXPECT_TRUE(a.mark_lost);
  EXPECT_EQ(a.packets, 1);
  nlohmann::json check = {{"violations", {{{"frame", 2}, {"rule", "psn"}}, {{"frame", 8}, {"rule", "icrc"}}}}};
  nlohmann::json j = SliceToJson(a, "rxe", check);
  ASSERT_EQ(j["violations"].size(), 1u);
  EXPECT_EQ(j["violations"][0]["frame"], 2);
  EXPECT_EQ(j["mark_lost"], true);
}

TEST(WireSlicesTest, DuplicatedMarksCountOnce) {
  std::map<std::string, WireSlice> slices = SliceByMarks(ParseWireFrames(CaptureLosingMarks()));
  const WireSlice& b = slices["B.Duplicated"];
  EXPECT_EQ(b.start_mark, 3);
  EXPECT_EQ(b.end_mark, 6);
  EXPECT_FALSE(b.mark_lost);
  EXPECT_EQ(b.packets, 1);
}

TEST(WireSlicesTest, LostStartMarkBeginsWhereThePreviousTestEnded) {
  std::map<std::string, WireSlice> slices = SliceByMarks(ParseWireFrames(CaptureLosingMarks()));
  ASSERT_EQ(slices.size(), 3u);
  const WireSlice& c = slices["C.StartMarkLost"];
  EXPECT_EQ(c.start_mark, 6);
  EXPECT_EQ(c.end_mark, 10);
  EXPECT_TRUE(c.mark_lost);
  EXPECT_EQ(c.packets, 2);
  EXPECT_THAT(c.sequence, ElementsAre("B>A RC SEND Only", "A>B RC Acknowledge"));
}

TEST(WireSlicesTest, ViolationsInsideTheSliceAreAttached) {
  std::map<std::string, WireSlice> slices = SliceByMarks(ParseWireFrames(Capture()));
  nlohmann::json check = {{"violations", {{{"frame", 5}, {"rule", "psn"}}, {{"frame", 12}, {"rule", "icrc"}}}}};
  nlohmann::json j = SliceToJson(slices["DatapathTest.Send"], "rxe", check);
  ASSERT_EQ(j["violations"].size(), 1u);
  EXPECT_EQ(j["violations"][0]["rule"], "psn");
  EXPECT_FALSE(SliceToJson(slices["PdTest.Alloc"], "rxe", check).contains("violations"));
}

TEST(WireSlicesTest, OpcodeNames) {
  EXPECT_EQ(RoceOpcodeName(0x04, 0x11), "RC SEND Only");
  EXPECT_EQ(RoceOpcodeName(0x64, 1), "UD SEND Only (QP1: CM MAD)");
  EXPECT_EQ(RoceOpcodeName(0x2a, 0x11), "UC RDMA WRITE Only");
  EXPECT_EQ(RoceOpcodeName(0x12, 0x11), "RC ATOMIC Acknowledge");
  EXPECT_EQ(RoceOpcodeName(0x1f, 0x11), "BTH opcode 0x1f");
  EXPECT_EQ(RdmapOpcodeName(1), "RDMAP RDMA Read Request");
  EXPECT_EQ(RdmapOpcodeName(7), "RDMAP Terminate");
}

TEST(WireMarksTest, DestinationMustBeIpv4AndPort) {
  EXPECT_TRUE(MakeWireMarker("10.88.1.1:9").ok());
  EXPECT_FALSE(MakeWireMarker("10.88.1.1").ok());
  EXPECT_FALSE(MakeWireMarker("host:9").ok());
  EXPECT_FALSE(MakeWireMarker("10.88.1.1:70000").ok());
}

}  // namespace
}  // namespace rdmacheck

namespace rdmacheck {
namespace {

TEST(WireSlicesTest, AWireCheckReportsViolationsAreItsViolationsNotItsFaults) {
  // A test that provokes an RNR NAK on purpose put a fault on the wire, not a violation.
  const nlohmann::json check = {
      {"faults", {{{"frame", 181}, {"kind", "RNR NAK"}, {"detail", "timer 1"}}}},
      {"flows", {{{"first_frame", 1}, {"last_frame", 200}}}},
      {"violations", {{{"frame", 190}, {"rule", "roce.psn"}, {"message", "gap"}}}}};
  const std::vector<nlohmann::json> found = ViolationsOf(check);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0]["frame"], 190);
}

// A stalled link (issue 39): on that link only tests whose slice ended before the stall in
// node A's capture stay the device's; the test in flight and every later one are not run.
TEST(ApplyLabFailureTest, OnlyTestsThatEndedBeforeTheStallStayTheDevices) {
  std::map<std::string, WireSlice> slices;
  slices["A.Before"].end_mark = 90;
  slices["A.InFlight"].end_mark = 0;  // its end mark never reached node A
  slices["A.After"].end_mark = 150;
  RunResults run;
  for (const char* name : {"A.Before", "A.InFlight", "A.After", "A.Unmarked"}) {
    TestResult t;
    t.name = name;
    t.status = TestStatus::kFail;
    run.tests.push_back(t);
  }
  const nlohmann::json failure = {{"reason", "the lab's wire stalled: link siw: ..."},
                                  {"link", "siw"},
                                  {"capture_a_frames_before", 100}};
  ApplyLabFailure(failure, "siw", slices, run);
  ASSERT_EQ(run.tests.size(), 1u);
  EXPECT_EQ(run.tests[0].name, "A.Before");
  EXPECT_FALSE(run.complete);
  EXPECT_EQ(run.environment["lab_failure"]["not_run"],
            nlohmann::json({"A.InFlight", "A.After", "A.Unmarked"}));
  EXPECT_EQ(run.environment["lab_failure"]["reason"], "the lab's wire stalled: link siw: ...");
}

// What the device did after the stall (rxe with retry_cnt 7 retries without end) and what
// fell in a test the stall took away is the lab's failure; a violation before it, outside
// every test, is still the device's. Another link's capture keeps every violation.
TEST(ApplyLabFailureTest, ViolationsDuringAndAfterTheStallAreSetAside) {
  std::map<std::string, WireSlice> slices;
  slices["A.Before"].start_mark = 10;
  slices["A.Before"].end_mark = 40;
  slices["A.InFlight"].start_mark = 90;  // its end mark never reached node A
  RunResults run;
  for (const char* name : {"A.Before", "A.InFlight"}) {
    TestResult t;
    t.name = name;
    run.tests.push_back(t);
  }
  ApplyLabFailure({{"reason", "stalled"}, {"link", "rxe"}, {"capture_a_frames_before", 100}}, "rxe", slices, run);
  const nlohmann::json& failure = run.environment["lab_failure"];
  EXPECT_FALSE(SetAsideByLabFailure(failure, slices, 50)) << "between tests, before the stall: the device's";
  EXPECT_TRUE(SetAsideByLabFailure(failure, slices, 95)) << "inside the test in flight";
  EXPECT_TRUE(SetAsideByLabFailure(failure, slices, 101)) << "after the stall";

  RunResults other;
  ApplyLabFailure({{"reason", "stalled"}, {"link", "siw"}, {"capture_a_frames_before", 100}}, "rxe", slices, other);
  EXPECT_FALSE(SetAsideByLabFailure(other.environment["lab_failure"], slices, 101));
  EXPECT_FALSE(SetAsideByLabFailure(nlohmann::json(), slices, 101)) << "no lab failure";
}

TEST(ApplyLabFailureTest, TheReportCountsTheViolationsSetAside) {
  RunResults run;
  ApplyLabFailure({{"reason", "the lab's wire stalled"}, {"link", "rxe"}, {"capture_a_frames_before", 9}}, "rxe", {},
                  run);
  EXPECT_THAT(IncompleteRunLine("rxe0", run), ::testing::Not(::testing::HasSubstr("set aside")));
  run.environment["lab_failure"]["violations_set_aside"] = 3;
  EXPECT_THAT(IncompleteRunLine("rxe0", run),
              ::testing::HasSubstr("rxe0: the lab failed, not the device; 0 tests not run, 3 wire violations after it "
                                   "set aside, and none after the failure is the device's: the lab's wire stalled"));
}

TEST(ApplyLabFailureTest, ARunOnAnotherLinkKeepsItsResultsAndIsMarkedIncomplete) {
  std::map<std::string, WireSlice> slices;
  RunResults run;
  run.tests.resize(2);
  ApplyLabFailure({{"reason", "stalled"}, {"link", "siw"}, {"capture_a_frames_before", 5}}, "rxe", slices, run);
  EXPECT_EQ(run.tests.size(), 2u);
  EXPECT_FALSE(run.complete);
  EXPECT_EQ(run.environment["lab_failure"]["not_run"], nlohmann::json::array());
}

}  // namespace
}  // namespace rdmacheck
