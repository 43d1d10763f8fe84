#include "cli/commands.h"

#include <iostream>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/flag_parser.h"
#include "gtest/gtest.h"

ABSL_FLAG(std::string, format, "text", "Output format: text or json (list and report diff also: md)");
ABSL_FLAG(std::string, out, "",
          "Where to write: a directory for run (default out/<device>), report (default out) and walk (default out/walk), a file for probe "
          "and fleet profile (default stdout)");
ABSL_FLAG(std::string, profile, "",
          "health, fleet report: a machine profile, what every node of its machine type must show (docs/machine-profile.md); "
          "a node below it fails");

namespace rdmacheck {
namespace {
std::vector<absl::string_view> With(std::vector<absl::string_view> flags, std::vector<absl::string_view> more) {
  flags.insert(flags.end(), more.begin(), more.end());
  return flags;
}
}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"devices", "devices [--format=text|json]",
       "list RDMA devices: transport, link layer, port states, GID table", {"format"}, DevicesCommand},
      {"doctor", "doctor [--device=D] [--format=text|json]",
       "what stops RDMA from working here: one verdict line, then each check with its fix (exit 0 ready, "
       "1 problems, 2 cannot tell)",
       {"device", "format", "timeout_multiplier"}, DoctorCommand},
      {"health", "health [--devices=D1,D2] [--out=DIR] [--timeout_multiplier=X] [--profile=FILE]",
       "node health check for Slurm's HealthCheckProgram: doctor, probe and a handful of traffic tests per device, "
       "then the machine profile; one line, exit 1 on a broken NIC or a node below its profile",
       {"devices", "out", "timeout_multiplier", "profile", "link_flap_state"}, HealthCommand},
      {"run", "run [--device=D] [--out=DIR] [--suites=a,b] [--gtest_filter=PATTERN] [--capabilities=FILE] [--expectations=FILE | --no_expectations] [--peer=HOST:PORT] [--jobs=N] [--floor=off]",
       "probe the device, run the conformance suites on it (and the floor: RC SEND, WRITE, READ), write results.json and junit.xml",
       With(kSelectionFlags, {"out", "suites", "capabilities", "test_timeout", "expectations", "no_expectations", "peer", "jobs", "strict",
                        "impaired_wire", "floor", "link_flap_state"}), RunCommand},
      {"serve", "serve [--device=D] [--listen=PORT]",
       "two-host mode: serve the peer side of `run --peer=HOST:PORT` (the passive endpoint of every pair)",
       With(kSelectionFlags, {"listen"}), ServeCommand},
      {"probe", "probe [--device=D] [--format=text|json] [--out=FILE] [--expect=FACTS]",
       "print the device's capability profile: declared and observed", With(kSelectionFlags, {"format", "out", "expect"}),
       ProbeCommand},
      {"list", "list [--format=text|json|md] [--check]",
       "print the catalogue of tests: what each checks, its reference, what it needs", {"format", "check", "opcodes"},
       ListCommand},
      {"plan", "plan [--manpages=DIR] [--run=DIR] [--format=text|json|md] | plan --check | plan --write-plan [--out=DIR]",
       "the conformance plan: per verb, the promises of rdma-core's man pages that tests check, cannot check on the "
       "device, or leave untested; --write-plan writes the versioned test plan (docs/plan.md)",
       {"format", "manpages", "run", "check", "write_plan", "out"}, PlanCommand},
      {"report", "report [--out=DIR] RUN_DIR... | report diff [--format=text|json|md] OLD NEW",
       "write report.{json,md,html} over run directories (default --out=out); `diff` exits 1 on a regression",
       {"out", "format", "bench_threshold"}, ReportCommand},
      {"bench", "bench [--device=D] [--sizes=64,4096,...] [--iters=N] [--compare-perftest | --peer=HOST:PORT] [--poll=busy|event] [--out=FILE]",
       "datapath latency and bandwidth over a loopback pair (or with --peer, to `rdmacheck serve` on another host); "
       "--compare-perftest runs perftest beside it",
       With(kSelectionFlags, {"out", "sizes", "iters", "bw_bytes", "compare_perftest", "peer", "poll"}), BenchCommand},
      {"wire",
       "wire check [--format=text|json] [--path_mtu=BYTES] [--retry_cnt=N] [--wire_reorders] CAPTURE.pcap | wire rules | "
       "wire watch [--stall_after=S] [--lab_failure=FILE] NAME,MAC_A,CAPTURE_A,MAC_B,CAPTURE_B...",
       "check the RoCEv2 and iWARP packets of a capture against the wire rules (exit 1: a violation, each with its "
       "frame, rule and spec reference); `wire rules` lists them; `wire watch` stops at a lab link that stalls",
       {"format", "path_mtu", "retry_cnt", "wire_reorders", "stall_after", "lab_failure"}, WireCommand},
      {"fleet", "fleet rounds --nodes=a,b,... [--max_rounds=K --seed=S] | fleet report [--out=DIR] [--nodes=a,b,...] "
                "[--slow_fraction=F] [--profile=FILE] DIR... | fleet profile --learn [--machine_type=T] [--out=FILE] DIR...",
       "many nodes: the pairwise schedule (n-1 rounds of n/2 disjoint pairs), the fleet report over their runs "
       "(outliers against the fleet's majority, pairs against the fleet's median, nodes against a machine profile; "
       "exit 1 on trouble), and a machine profile learned from a healthy fleet",
       {"nodes", "max_rounds", "seed", "format", "out", "slow_fraction", "profile", "learn", "machine_type"}, FleetCommand},
      {"walk", "walk [--device=D] [--seed=N] [--steps=N] [--weights=create=3,destroy=2,...] [--out=DIR] | walk --replay=walk.json",
       "a seeded random walk over the device's verbs (create, destroy, QP moves, posts, polls) checked against a model; "
       "writes walk.json, and walk-min.json shrunk to a finding (exit 1 on a finding)",
       With(kSelectionFlags, {"seed", "steps", "time", "weights", "out", "replay", "shrink_runs", "fail_alloc", "expectations",
                                         "no_expectations"}),
       WalkCommand},
      {"wire-slices", "wire-slices --capture=PCAP --link=NAME [--kernel_a=K --kernel_b=K] [--wire_check=JSON] RESULTS_JSON",
       "cut a wire lab capture into per-test slices in results.json (scripts/wire-lab.sh)",
       {"capture", "link", "kernel_a", "kernel_b", "wire_check", "opcodes", "lab_failure", "impairment"}, WireSlicesCommand, /*hidden=*/true},
      {"__child", "__child --events=FILE --gtest_filter=TESTS", "runs tests for `run` (internal)",
       With(kSelectionFlags, {"capabilities", "events", "peer", "impaired_wire"}), ChildCommand, /*hidden=*/true},
  };
  return commands;
}

int RunCommandLine(const std::vector<std::string>& args) {
  constexpr absl::string_view kFilter = "--gtest_filter=";
  std::vector<std::string> rest;
  for (const std::string& arg : args) {
    if (absl::StartsWith(arg, kFilter)) {  // an exec'd child's was taken out by InitGoogleTest
      GTEST_FLAG_SET(filter, arg.substr(kFilter.size()));
    } else {
      rest.push_back(arg);
    }
  }
  for (const Command& command : Commands()) {
    if (rest.empty() || command.name != rest[0]) continue;
    absl::StatusOr<std::vector<std::string>> positional =
        ParseFlags(std::vector<std::string>(rest.begin() + 1, rest.end()), command.flags);
    if (!positional.ok()) return UsageError(positional.status());
    return command.run(*positional);
  }
  return UsageError(absl::StrCat("unknown command '", rest.empty() ? "" : rest[0], "' (see rdmacheck help)"));
}

int UsageError(absl::string_view message) {
  std::cerr << "rdmacheck: " << message << std::endl;
  return kExitUsage;
}

int UsageError(const absl::Status& status) { return UsageError(status.message()); }

}  // namespace rdmacheck
