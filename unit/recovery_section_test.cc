// reports/recovery_section.h: the report's "Recovery under impairment" section.
#include "reports/recovery_section.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Pair;

DeviceRun ImpairedRxe() {
  DeviceRun run;
  run.results.device = "rxe0";
  run.results.environment = {
      {"netdev", "eth1"},
      {"impairment",
       {{"profile", "loss-1"},
        {"netem", "loss random 1%"},
        {"egress_of", "both"},
        {"nodes",
         {{{"node", "A"}, {"netem", {{"eth1", {{"sent", 440}, {"dropped", 6}}}, {"eth2", {{"sent", 71}, {"dropped", 1}}}}},
           {"tcp", {{"TcpRetransSegs", 2}}}},
          {{"node", "B"}, {"netem", {{"eth1", {{"sent", 520}, {"dropped", 4}}}}}, {"tcp", {{"TcpRetransSegs", 3}}}}}}}},
      {"traffic_run_totals", {{"sent_pkts", 434}, {"rcvd_pkts", 415}, {"duplicate_request", 3}, {"completer_retry_err", 5}}}};
  TestResult pass, fail;
  pass.name = "AtomicTest.Cas";
  fail.name = "SrqTest.Send";
  fail.status = TestStatus::kFail;
  run.results.tests = {pass, fail};
  return run;
}

TEST(RecoverySectionTest, NamesWhatNetemTcpAndTheDriverDidOnTheDevicesLink) {
  const auto rows = RecoveryRows(ImpairedRxe().results);
  EXPECT_THAT(rows, Contains(Pair("profile", "loss-1 (netem loss random 1%, egress of both)")));
  EXPECT_THAT(rows, Contains(Pair("netem on eth1, both nodes: sent / dropped", "960 / 10")));  // not eth2's drop
  EXPECT_THAT(rows, Contains(Pair(HasSubstr("TCP, both nodes"), "5 / 0 / 0")));
  EXPECT_THAT(rows, Contains(Pair("driver: duplicate requests answered (responder) (duplicate_request)", "3")));
  EXPECT_THAT(rows, Contains(Pair(HasSubstr("completer_retry_err"), "5")));
  EXPECT_THAT(rows, Contains(Pair(HasSubstr("tests:"), "1 / 1 / 0")));
}

// The wire checker's recovery figures (wire/wire_report.h WireRecovery), as wire slices put
// them into the run's environment.
TEST(RecoverySectionTest, ShowsTheWireCheckersRecoveryFigures) {
  DeviceRun run = ImpairedRxe();
  EXPECT_THAT(RecoveryRows(run.results), Contains(Pair("wire check", "not judged for recovery")));
  run.results.environment["wire"] = {
      {"checked", true},
      {"recovery",
       {{"losses", 7}, {"recovered", 6}, {"recovery_ms", {{"median", 4.5}, {"worst", 210.25}}},
        {"naks", {{"sequence_error", 6}, {"rnr", 2}, {"other", 0}}}, {"retries", 9}, {"resent_packets", 31},
        {"rnr_wait_ms", nullptr}}}};
  const auto rows = RecoveryRows(run.results);
  EXPECT_THAT(rows, Contains(Pair("wire: PSN gaps recovered / seen", "6 / 7")));
  EXPECT_THAT(rows, Contains(Pair("wire: recovery time, median / worst", "4.5 ms / 210.25 ms")));
  EXPECT_THAT(rows, Contains(Pair("wire: NAKs sequence error / RNR / other", "6 / 2 / 0")));
  EXPECT_THAT(rows, Contains(Pair("wire: requester went back / packets resent", "9 / 31")));
  EXPECT_THAT(rows, Contains(Pair("wire: RNR wait, median / worst", "none")));
}

TEST(RecoverySectionTest, OnlyForImpairedRuns) {
  DeviceRun plain;
  plain.results.device = "rxe0";
  EXPECT_FALSE(RecoverySection(BuildReport({plain})).has_value());
  std::optional<ExtraSection> s = RecoverySection(BuildReport({ImpairedRxe(), plain}));
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->data["devices"].size(), 1u);
  EXPECT_THAT(s->markdown, HasSubstr("| netem on eth1, both nodes: sent / dropped | 960 / 10 |"));
  EXPECT_THAT(s->html, HasSubstr("<th>profile</th><td>loss-1 (netem loss random 1%, egress of both)</td>"));
}

}  // namespace
}  // namespace rdmacheck
