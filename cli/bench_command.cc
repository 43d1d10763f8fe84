// rdmacheck bench: datapath latency and bandwidth of one device over a loopback pair, and
// with --compare-perftest perftest's numbers for the same points beside them. With
// --peer=HOST:PORT the pair's remote side is on `rdmacheck serve` there (two hosts, or two
// processes on one). Benchmarks measure; they pass or fail nothing (exit 1 only when a
// measurement could not be made).
//
//   rdmacheck bench --device=rxe0 --compare-perftest     table on stdout, out/rxe0/bench.json
//   rdmacheck bench --device=rxe0 --peer=hostB:18515     against `rdmacheck serve` on hostB
#include <iostream>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "bench/bench_report.h"
#include "bench/datapath_bench.h"
#include "bench/perftest.h"
#include "cli/commands.h"
#include "harness/files.h"
#include "harness/remote/peer_link.h"
#include "harness/selection_flags.h"
#include "harness/timeouts.h"

ABSL_FLAG(std::string, sizes, "64,4096,65536,1048576", "bench: message sizes in bytes, comma-separated");
ABSL_FLAG(int, iters, 1000, "bench: iterations of each latency point");
ABSL_FLAG(int64_t, bw_bytes, 64 << 20,
          "bench: bytes each bandwidth point moves (iterations = bw_bytes / size, within 100..10000)");
ABSL_FLAG(std::string, poll, "busy",
          "bench: how completions are waited for: busy (spin on the CQ, as perftest) or event (sleep on a "
          "completion channel, both sides; for hosts without a core to spare per process, e.g. two emulated guests)");
ABSL_FLAG(bool, compare_perftest, false, "bench: also run perftest (ib_send_lat, ib_write_bw, ib_read_bw) on the device");

namespace rdmacheck {
namespace {

struct Measure {
  const char* op;
  const char* metric;
};
constexpr Measure kMeasures[] = {{"send", "latency"}, {"write", "latency"},   {"read", "latency"},
                                 {"write", "bandwidth"}, {"read", "bandwidth"}, {"send", "bandwidth"}};

absl::StatusOr<std::vector<uint32_t>> ParseSizes(const std::string& text) {
  std::vector<uint32_t> sizes;
  for (absl::string_view part : absl::StrSplit(text, ',', absl::SkipWhitespace())) {
    uint32_t size = 0;
    if (!absl::SimpleAtoi(part, &size) || size == 0 || size > (1u << 30)) {
      return absl::InvalidArgumentError(absl::StrCat("--sizes: '", part, "' is not a size from 1 byte to 1 GiB"));
    }
    sizes.push_back(size);
  }
  if (sizes.empty()) return absl::InvalidArgumentError("--sizes is empty");
  return sizes;
}

int Iterations(const Measure& m, uint32_t size) {
  if (std::string(m.metric) == "latency") return absl::GetFlag(FLAGS_iters);
  return static_cast<int>(std::clamp<int64_t>(absl::GetFlag(FLAGS_bw_bytes) / size, 100, 10000));
}

}  // namespace

int BenchCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError("bench takes no positional arguments: " + positional[0]);
  if (absl::GetFlag(FLAGS_timeout_multiplier) <= 0) return UsageError("--timeout_multiplier must be > 0");
  if (absl::GetFlag(FLAGS_iters) < 1) return UsageError("--iters must be at least 1");
  if (absl::GetFlag(FLAGS_bw_bytes) < 1) return UsageError("--bw_bytes must be at least 1");
  const std::string peer = absl::GetFlag(FLAGS_peer);
  if (!peer.empty() && absl::GetFlag(FLAGS_compare_perftest)) {
    return UsageError("--compare-perftest runs perftest loopback on this host; it cannot be combined with --peer");
  }
  const std::string poll = absl::GetFlag(FLAGS_poll);
  if (poll != "busy" && poll != "event") return UsageError("--poll must be busy or event");
  absl::StatusOr<std::vector<uint32_t>> sizes = ParseSizes(absl::GetFlag(FLAGS_sizes));
  if (!sizes.ok()) return UsageError(sizes.status());
  absl::StatusOr<SelectedDevice> device = OpenSelectedDevice();
  if (!device.ok()) return UsageError(device.status());
  const Selection& selection = device->selection;
  std::unique_ptr<PeerLink> link;
  if (!peer.empty()) {
    absl::StatusOr<std::unique_ptr<PeerLink>> connected = PeerLink::Connect(peer, selection.transport);
    if (!connected.ok()) return UsageError(connected.status());
    link = *std::move(connected);
    std::cerr << "rdmacheck bench: remote side on " << link->Describe() << std::endl;
  }

  BenchRun run;
  run.device = selection.device;
  run.transport = TransportName(selection.transport);
  run.started = absl::FormatTime(absl::RFC3339_sec, absl::Now(), absl::UTCTimeZone());
  run.peer = peer;
  run.poll = poll;
  const uint32_t max_size = *std::max_element(sizes->begin(), sizes->end());
  bool all_measured = true;
  for (const Measure& m : kMeasures) {
    for (uint32_t size : *sizes) {
      const int iterations = Iterations(m, size);
      const absl::Duration budget = PointBudget(m.metric, size, iterations);
      absl::StatusOr<ConnectedPair> pair = BenchPair(device->context.get(), selection, max_size, link.get(), poll == "event");
      if (!pair.ok()) {
        return UsageError(absl::StrCat("cannot connect a ", link ? "pair to the peer" : "loopback pair", ": ",
                                       pair.status().message()));
      }
      run.method = pair->method() == ConnectMethod::kManual ? "manual" : "rdma_cm";
      BenchPoint p = std::string(m.metric) == "latency" ? MeasureLatency(*pair, m.op, size, iterations, budget)
                                                        : MeasureBandwidth(*pair, m.op, size, iterations, budget);
      std::cerr << "rdmacheck bench: " << m.op << " " << m.metric << " " << size << " B: "
                << (p.ok() ? absl::StrCat(p.Headline(), p.metric == "latency" ? " us" : " MiB/s") : p.error)
                << std::endl;
      all_measured = all_measured && p.ok();
      run.points.push_back(p);
      const std::string program = PerftestProgram(m.op, m.metric);
      if (!absl::GetFlag(FLAGS_compare_perftest) || program.empty()) continue;
      PerftestRun perftest;
      perftest.program = program;
      perftest.device = selection.device;
      perftest.gid_index = static_cast<int>(selection.gid.index);
      perftest.rdma_cm = selection.transport == IBV_TRANSPORT_IWARP;
      perftest.size = size;
      perftest.iterations = iterations;
      if (perftest.rdma_cm) {
        absl::StatusOr<sockaddr_storage> address = SelectionAddress(selection);
        if (address.ok()) perftest.server_address = SockaddrToString(*address);
      }
      run.perftest.push_back(RunPerftest(perftest, budget));
    }
  }

  std::cout << BenchTable(run) << std::flush;
  const std::string out =
      absl::GetFlag(FLAGS_out).empty() ? absl::StrCat("out/", selection.device, "/bench.json") : absl::GetFlag(FLAGS_out);
  if (absl::Status s = WriteFile(out, BenchRunToJson(run).dump(2) + "\n"); !s.ok()) return UsageError(s);
  std::cerr << "rdmacheck bench: results in " << out << std::endl;
  return all_measured ? kExitOk : kExitFailures;
}

}  // namespace rdmacheck
