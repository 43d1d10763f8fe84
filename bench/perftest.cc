#include "bench/perftest.h"

#include <chrono>
#include <thread>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "harness/child_process.h"

namespace rdmacheck {
namespace {

std::string LastLine(const std::string& text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n', absl::SkipWhitespace());
  return lines.empty() ? "(no output)" : std::string(absl::StripAsciiWhitespace(lines.back()));
}

std::vector<std::string> CommonArgs(const PerftestRun& run) {
  std::vector<std::string> args = {run.program,
                                   "-d", run.device,
                                   "-s", absl::StrCat(run.size),
                                   "-n", absl::StrCat(run.iterations),
                                   "-p", absl::StrCat(run.tcp_port),
                                   "-F"};  // no CPU frequency warning: rdmacheck compares, it does not tune
  if (run.rdma_cm) {
    args.push_back("-R");
  } else if (run.gid_index >= 0) {
    args.insert(args.end(), {"-x", absl::StrCat(run.gid_index)});
  }
  return args;
}

// A point of `program` with what it measures filled in.
BenchPoint PointOf(absl::string_view program) {
  BenchPoint p;
  p.tool = std::string(program);
  p.op = program == "ib_send_lat" ? "send" : program == "ib_write_bw" ? "write" : "read";
  p.metric = absl::EndsWith(program, "_lat") ? "latency" : "bandwidth";
  return p;
}

}  // namespace

std::string PerftestProgram(absl::string_view op, absl::string_view metric) {
  if (metric == "latency" && op == "send") return "ib_send_lat";
  if (metric == "bandwidth" && op == "write") return "ib_write_bw";
  if (metric == "bandwidth" && op == "read") return "ib_read_bw";
  return "";
}

// The server listens on every address (with --bind_source_ip, perftest 4.5's rdma_cm
// server never accepts on siw).
std::vector<std::string> PerftestServerArgs(const PerftestRun& run) { return CommonArgs(run); }

std::vector<std::string> PerftestClientArgs(const PerftestRun& run) {
  std::vector<std::string> args = CommonArgs(run);
  args.push_back(run.server_address);
  return args;
}

absl::StatusOr<BenchPoint> ParsePerftestOutput(absl::string_view program, absl::string_view output) {
  const bool latency = absl::EndsWith(program, "_lat");
  bool header_seen = false;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (absl::StrContains(line, "#bytes")) {
      header_seen = true;
      continue;
    }
    if (!header_seen) continue;
    std::vector<absl::string_view> f = absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
    uint32_t size = 0;
    if (f.size() < (latency ? 8u : 4u) || !absl::SimpleAtoi(f[0], &size)) continue;
    BenchPoint p = PointOf(program);
    p.size = size;
    bool ok = absl::SimpleAtoi(f[1], &p.iterations);
    if (latency) {  // #bytes #iterations t_min t_max t_typical t_avg t_stdev 99% 99.9%
      ok = ok && absl::SimpleAtod(f[2], &p.min_us) && absl::SimpleAtod(f[4], &p.median_us) &&
           absl::SimpleAtod(f[7], &p.p99_us);
    } else {  // #bytes #iterations BW_peak BW_average MsgRate
      ok = ok && absl::SimpleAtod(f[3], &p.mib_per_s);
    }
    if (!ok) return absl::InvalidArgumentError(absl::StrCat(program, ": unreadable result row: ", line));
    // perftest prints 0.00 when its own measurement failed (seen with ib_read_bw on rxe):
    // no figure to compare against, not an infinitely slow device.
    if ((latency ? p.median_us : p.mib_per_s) <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(program, " reported 0 for ", size, " B: its measurement failed"));
    }
    return p;
  }
  return absl::InvalidArgumentError(absl::StrCat(program, " printed no result row"));
}

BenchPoint RunPerftest(const PerftestRun& run, absl::Duration budget) {
  BenchPoint failed = PointOf(run.program);
  failed.size = run.size;
  failed.iterations = run.iterations;
  const auto deadline = std::chrono::steady_clock::now() + absl::ToChronoNanoseconds(budget);
  absl::StatusOr<ChildProcess> server = SpawnChild(PerftestServerArgs(run), Stderr::kWithStdout);
  if (!server.ok()) {
    failed.error = std::string(server.status().message());
    return failed;
  }
  // The server needs a moment to listen; a client that finds nobody is tried again.
  std::string client_output;
  std::string client_timed_out = "timed out";  // and where it is stuck, if it outlived SIGKILL
  int client_exit = -1;
  for (int attempt = 0; attempt < 20 && std::chrono::steady_clock::now() < deadline; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    absl::StatusOr<ChildProcess> client = SpawnChild(PerftestClientArgs(run), Stderr::kWithStdout);
    if (!client.ok()) {
      client_output = std::string(client.status().message());
      break;
    }
    client_exit = FinishChild(*client, deadline);
    client_output = client->output;
    client_timed_out = TimedOut(*client);
    if (client_exit == 0 || !absl::StrContains(client_output, "onnect")) break;
  }
  int server_exit = FinishChild(*server, client_exit == 0 ? deadline : std::chrono::steady_clock::now());
  if (client_exit != 0) {
    failed.error = absl::StrCat(run.program, " client ",
                                client_exit < 0 ? client_timed_out : absl::StrCat("exited ", client_exit), ": ",
                                LastLine(client_output), " (server: ", LastLine(server->output),
                                server->stuck.empty() ? "" : "; ", server->stuck, ")");
    return failed;
  }
  (void)server_exit;
  absl::StatusOr<BenchPoint> point = ParsePerftestOutput(run.program, client_output);
  if (!point.ok()) {
    failed.error = std::string(point.status().message());
    return failed;
  }
  return *point;
}

}  // namespace rdmacheck
