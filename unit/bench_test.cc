// The arithmetic and bookkeeping of `rdmacheck bench`: latency percentiles, perftest's
// output read back, the benchmark JSON, and which changes `report diff` calls regressions.
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "bench/bench_report.h"
#include "bench/datapath_bench.h"
#include "bench/echo_side.h"
#include "bench/perftest.h"
#include "bench/stats.h"
#include "testing/status_matchers.h"

namespace rdmacheck {
namespace {

using ::testing::HasSubstr;

TEST(BenchStatsTest, NearestRankPercentiles) {
  std::vector<double> samples;
  for (int i = 100; i >= 1; --i) samples.push_back(i);  // 1..100, unsorted
  LatencySummary s = SummarizeLatency(samples);
  EXPECT_EQ(s.min, 1);
  EXPECT_EQ(s.median, 50);
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(SummarizeLatency({7}).p99, 7);
  EXPECT_EQ(SummarizeLatency({}).median, 0);
}

TEST(BenchStatsTest, MibPerSecond) {
  EXPECT_DOUBLE_EQ(MibPerSecond(2 * 1024 * 1024, 0.5), 4.0);
  EXPECT_EQ(MibPerSecond(100, 0), 0);
}

// Output as perftest 4.5 (Debian 12) prints it.
constexpr char kSendLat[] = R"(
---------------------------------------------------------------------------------------
                    Send Latency Test
 Dual-port       : OFF          Device         : rxe0
---------------------------------------------------------------------------------------
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]
 64      1000          11.52          95.23        13.10               14.02             3.11              29.70                   95.23
---------------------------------------------------------------------------------------
)";
constexpr char kWriteBw[] = R"(
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      1000             512.33             498.71               0.007979
---------------------------------------------------------------------------------------
)";

TEST(PerftestParseTest, LatencyRowGivesMinMedianP99) {
  ASSERT_OK_AND_ASSIGN(BenchPoint p, ParsePerftestOutput("ib_send_lat", kSendLat));
  EXPECT_EQ(p.op, "send");
  EXPECT_EQ(p.metric, "latency");
  EXPECT_EQ(p.size, 64u);
  EXPECT_EQ(p.iterations, 1000);
  EXPECT_DOUBLE_EQ(p.min_us, 11.52);
  EXPECT_DOUBLE_EQ(p.median_us, 13.10);
  EXPECT_DOUBLE_EQ(p.p99_us, 29.70);
}

TEST(PerftestParseTest, BandwidthRowGivesTheAverage) {
  ASSERT_OK_AND_ASSIGN(BenchPoint p, ParsePerftestOutput("ib_write_bw", kWriteBw));
  EXPECT_EQ(p.op, "write");
  EXPECT_EQ(p.metric, "bandwidth");
  EXPECT_EQ(p.size, 65536u);
  EXPECT_DOUBLE_EQ(p.mib_per_s, 498.71);
}

TEST(PerftestParseTest, NoResultRowIsAnError) {
  absl::StatusOr<BenchPoint> p = ParsePerftestOutput("ib_read_bw", " Couldn't connect to 10.0.0.1:18515\n");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("no result row"));
}

TEST(PerftestParseTest, ZeroBandwidthIsAFailedMeasurement) {
  constexpr char kZero[] = R"(
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      1000             0.00               0.00                 0.000000
)";
  absl::StatusOr<BenchPoint> p = ParsePerftestOutput("ib_read_bw", kZero);
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("measurement failed"));
}

TEST(PerftestArgsTest, IwarpUsesRdmaCmRoceUsesTheGidIndex) {
  PerftestRun run{"ib_write_bw", "siw0", 0, true, "10.77.2.1", 4096, 500};
  EXPECT_THAT(PerftestClientArgs(run), ::testing::IsSupersetOf({"-R", "10.77.2.1", "-s", "4096", "-n", "500"}));
  EXPECT_THAT(PerftestServerArgs(run), ::testing::Not(::testing::Contains("10.77.2.1")));
  run.rdma_cm = false;
  run.gid_index = 1;
  EXPECT_THAT(PerftestClientArgs(run), ::testing::IsSupersetOf({"-x", "1"}));
  EXPECT_THAT(PerftestClientArgs(run), ::testing::Not(::testing::Contains("-R")));
}

BenchPoint Latency(uint32_t size, double median) {
  BenchPoint p;
  p.tool = "rdmacheck";
  p.op = "send";
  p.metric = "latency";
  p.size = size;
  p.iterations = 10;
  p.min_us = median / 2;
  p.median_us = median;
  p.p99_us = median * 2;
  return p;
}

BenchPoint Bandwidth(uint32_t size, double mib) {
  BenchPoint p;
  p.tool = "rdmacheck";
  p.op = "write";
  p.metric = "bandwidth";
  p.size = size;
  p.iterations = 10;
  p.mib_per_s = mib;
  return p;
}

BenchRun MakeRun(std::vector<BenchPoint> points) {
  BenchRun run;
  run.device = "rxe0";
  run.transport = "InfiniBand";
  run.method = "manual";
  run.points = std::move(points);
  return run;
}

TEST(BenchJsonTest, RoundTripKeepsPointsAndErrors) {
  BenchRun run = MakeRun({Latency(64, 12.5), Bandwidth(4096, 300)});
  run.perftest.push_back(Bandwidth(4096, 310));
  run.perftest.back().tool = "ib_write_bw";
  run.points[1].error = "timed out";
  ASSERT_OK_AND_ASSIGN(BenchRun back, BenchRunFromJson(BenchRunToJson(run)));
  ASSERT_EQ(back.points.size(), 2u);
  EXPECT_DOUBLE_EQ(back.points[0].median_us, 12.5);
  EXPECT_EQ(back.points[1].error, "timed out");
  ASSERT_EQ(back.perftest.size(), 1u);
  EXPECT_EQ(back.perftest[0].tool, "ib_write_bw");
  EXPECT_FALSE(BenchRunFromJson(nlohmann::json{{"points", 3}}).ok());
}

TEST(BenchJsonTest, APeerRunSaysWhereTheRemoteSideRan) {
  BenchRun run = MakeRun({Latency(64, 12.5)});
  EXPECT_FALSE(BenchRunToJson(run).contains("peer"));  // loopback
  EXPECT_THAT(BenchTable(run), HasSubstr("loopback"));
  run.peer = "hostb:18515";
  ASSERT_OK_AND_ASSIGN(BenchRun back, BenchRunFromJson(BenchRunToJson(run)));
  EXPECT_EQ(back.peer, "hostb:18515");
  EXPECT_THAT(BenchTable(back), HasSubstr("to the peer hostb:18515"));
}

TEST(BenchBudgetTest, GrowsWithTheWorkSoALargePointIsNotCutShort) {
  EXPECT_NEAR(absl::ToDoubleSeconds(PointBudget("bandwidth", 64, 1000)), 31.0, 0.01);  // 30 s + 1000 x 1 ms
  // 3000 round trips of 1 MiB move 6000 MiB: 600 s at the 10 MiB/s floor.
  EXPECT_EQ(PointBudget("latency", 1 << 20, 3000), absl::Seconds(30 + 3 + 600));
}

TEST(EchoJobTest, RoundTripsThroughTheSideChannelForm) {
  const EchoJob job{"sink", 4096, 1000, 512};
  ASSERT_OK_AND_ASSIGN(EchoJob back, EchoJobFromJson(ToJson(job)));
  EXPECT_EQ(back.kind, "sink");
  EXPECT_EQ(back.size, 4096u);
  EXPECT_EQ(back.iterations, 1000);
  EXPECT_EQ(back.depth, 512);
}

TEST(EchoJobTest, RefusesWhatTheServerCannotRun) {
  EXPECT_EQ(EchoJobFromJson(ToJson(EchoJob{"atomic", 8, 10, 0})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(EchoJobFromJson(ToJson(EchoJob{"write", 0, 10, 0})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(EchoJobFromJson(ToJson(EchoJob{"send", 64, -1, 8})).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(EchoJobFromJson(nlohmann::json{{"kind", "send"}}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(BenchDiffTest, WorseBeyondTheThresholdIsARegression) {
  const BenchRun before = MakeRun({Latency(64, 10), Bandwidth(4096, 100), Bandwidth(65536, 100)});
  const BenchRun after = MakeRun({Latency(64, 10.5), Bandwidth(4096, 80), Bandwidth(65536, 150)});
  std::vector<BenchChange> changes = DiffBench({before}, {after}, 0.10);
  ASSERT_EQ(changes.size(), 3u);
  EXPECT_TRUE(changes[0].regression);  // regressions first: 4 KiB bandwidth -20%
  EXPECT_EQ(changes[0].after.size, 4096u);
  EXPECT_NEAR(changes[0].change, -0.2, 1e-9);
  EXPECT_FALSE(changes[1].regression);  // latency +5%: within 10%
  EXPECT_FALSE(changes[2].regression);  // bandwidth +50%: better
  EXPECT_THAT(BenchChangesText(changes, 0.10), HasSubstr("1 of 3 points regressed by more than 10%"));
}

TEST(BenchDiffTest, HigherLatencyAndAFailedPointAreRegressions) {
  BenchRun after = MakeRun({Latency(64, 12), Bandwidth(4096, 100)});
  after.points[1].error = "completion error";
  std::vector<BenchChange> changes = DiffBench({MakeRun({Latency(64, 10), Bandwidth(4096, 100)})}, {after}, 0.10);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_TRUE(changes[0].regression);
  EXPECT_TRUE(changes[1].regression);
}

TEST(BenchSectionTest, ShowsPerftestBesideWithTheRatio) {
  BenchRun run = MakeRun({Bandwidth(4096, 300)});
  BenchPoint theirs = Bandwidth(4096, 600);
  theirs.tool = "ib_write_bw";
  run.perftest.push_back(theirs);
  std::optional<ExtraSection> section = BenchSection({run});
  ASSERT_TRUE(section.has_value());
  EXPECT_EQ(section->id, "bench");
  EXPECT_THAT(section->markdown, HasSubstr("| write bandwidth | 4 KiB | 300.0 MiB/s |  | 600.0 MiB/s (ib_write_bw) | 0.50 |"));
  EXPECT_THAT(section->html, HasSubstr("<td>0.50</td>"));
  EXPECT_THAT(BenchTable(run), HasSubstr("0.50"));
  EXPECT_FALSE(BenchSection({}).has_value());
}

}  // namespace
}  // namespace rdmacheck
