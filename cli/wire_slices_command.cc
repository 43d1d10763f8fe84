// rdmacheck wire-slices: cuts a wire lab capture into per-test slices (reports/wire_slices.h)
// and writes each test's slice into the run's results.json (a field "wire" per test), judges
// each test by the wire violations in its slice (reports/wire_verdict.h; exit 1 when the run
// now has a failure, as `run`'s exit code), with the wire's
// facts under environment "wire" (both nodes' kernels: different ones make the run an
// interop result). Also merges the passing tests' opcode sequences into --opcodes
// (default <results dir>/../opcodes.json), which `rdmacheck list` shows. Run by
// scripts/wire-lab.sh after both nodes ended; needs tshark.
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "harness/child_process.h"
#include "wire/tshark.h"
#include "reports/report_model.h"  // ReadJsonFile
#include "reports/wire_slices.h"
#include "reports/wire_verdict.h"
#include "capabilities/expectations/expectations.h"
#include "results/results.h"

ABSL_FLAG(std::string, capture, "", "wire-slices: the link's capture (pcap)");
ABSL_FLAG(std::string, link, "", "wire-slices: the link's name (rxe, siw)");
ABSL_FLAG(std::string, kernel_a, "", "wire-slices: node A's kernel (serve)");
ABSL_FLAG(std::string, kernel_b, "", "wire-slices: node B's kernel (run --peer)");
ABSL_FLAG(std::string, wire_check, "", "wire-slices: `rdmacheck wire check --format=json` output of the capture");
ABSL_FLAG(std::string, impairment, "",
          "wire-slices: the wire lab's impairment (JSON: profile, netem, what it did per node), kept in the "
          "environment as \"impairment\"");
ABSL_DECLARE_FLAG(std::string, lab_failure);  // cli/wire_watch_command.cc: the stall `wire watch` wrote
ABSL_FLAG(std::string, opcodes, "", "wire-slices: the opcode sequences file `list` reads (default: next to the run dir)");

namespace rdmacheck {
namespace {

// tshark's field columns for the slicer, bounded in time like the wire check's run.
absl::StatusOr<std::string> TsharkFields(const std::string& capture) {
  std::vector<std::string> args = {"tshark", "-n", "-r", capture, "-T", "fields", "-E", "separator=/t",
                                   "-E", "occurrence=a", "-E", "aggregator=,"};
  for (const std::string& field : kWireSliceFields) args.insert(args.end(), {"-e", field});
  absl::StatusOr<ChildProcess> child = SpawnChild(args, Stderr::kSeparate);
  if (!child.ok()) return absl::InvalidArgumentError(absl::StrCat("cannot run tshark: ", child.status().message()));
  const int status = FinishChild(*child, std::chrono::steady_clock::now() + absl::ToChronoSeconds(TsharkOptions().budget));
  if (status == -1) return absl::DeadlineExceededError(absl::StrCat("tshark ran past its budget on ", capture));
  // Exit 2 with output: the file ends inside a packet (a capture cut short); what came before counts.
  if (status != 0 && !(status == 2 && !child->output.empty())) {
    return absl::InvalidArgumentError(absl::StrCat("tshark could not read ", capture, ": ", child->errors));
  }
  return child->output;
}

}  // namespace

int WireSlicesCommand(const std::vector<std::string>& positional) {
  if (positional.size() != 1) return UsageError("wire-slices takes one results.json");
  const std::string capture = absl::GetFlag(FLAGS_capture), link = absl::GetFlag(FLAGS_link);
  if (capture.empty() || link.empty()) return UsageError("wire-slices needs --capture=PCAP and --link=NAME");
  // Edited as JSON: "wire" is added to each test's record, everything else kept as it is.
  absl::StatusOr<nlohmann::json> results = ReadJsonFile(positional[0]);
  if (!results.ok()) return UsageError(results.status());
  if (!results->contains("tests") || !(*results)["tests"].is_array()) {
    return UsageError(absl::StrCat(positional[0], " is not a results.json (no tests)"));
  }
  absl::StatusOr<std::string> fields = TsharkFields(capture);
  if (!fields.ok()) return UsageError(fields.status());
  nlohmann::json check;
  if (!absl::GetFlag(FLAGS_wire_check).empty()) {
    absl::StatusOr<nlohmann::json> read = ReadJsonFile(absl::GetFlag(FLAGS_wire_check));
    if (!read.ok()) return UsageError(read.status());
    check = *std::move(read);
  }

  const std::map<std::string, WireSlice> slices = SliceByMarks(ParseWireFrames(*fields));
  const std::string a = absl::GetFlag(FLAGS_kernel_a), b = absl::GetFlag(FLAGS_kernel_b);
  absl::StatusOr<RunResults> run = ResultsFromJson(*results);
  if (!run.ok()) return UsageError(absl::StrCat(positional[0], ": ", run.status().message()));
  if (const std::string path = absl::GetFlag(FLAGS_impairment); !path.empty()) {
    absl::StatusOr<nlohmann::json> impairment = ReadJsonFile(path);
    if (!impairment.ok()) return UsageError(impairment.status());
    run->environment["impairment"] = *std::move(impairment);
  }
  if (const std::string path = absl::GetFlag(FLAGS_lab_failure); !path.empty()) {
    absl::StatusOr<nlohmann::json> failure = ReadJsonFile(path);
    if (!failure.ok()) return UsageError(failure.status());
    ApplyLabFailure(*failure, link, slices, *run);
  }
  const nlohmann::json& env = run->environment;
  absl::StatusOr<std::optional<ExpectationFile>> expectations = ExpectationsForDriver(env.value("driver", ""));
  if (!expectations.ok()) return UsageError(expectations.status());
  const std::string capture_name = std::filesystem::path(capture).filename().string();
  run->environment["wire"] = {{"link", link},
                              {"capture", capture_name},
                              {"node_a_kernel", a},
                              {"node_b_kernel", b},
                              {"interop", a != b},
                              {"checked", !check.is_null()}};
  if (!check.is_null() && check.contains("recovery") && check["recovery"].is_object()) {
    run->environment["wire"]["recovery"] = check["recovery"];
  }
  // Top-level too, so the report's environment table names both kernels in rows of their own.
  run->environment["peer_kernel"] = a;
  run->environment["interop"] =
      a == b ? absl::StrCat("no: both nodes on ", a) : absl::StrCat("yes: this node on ", b, ", the peer (serve) on ", a);
  const std::filesystem::path dir = std::filesystem::path(positional[0]).parent_path();
  std::string opcodes_path = absl::GetFlag(FLAGS_opcodes);
  if (opcodes_path.empty()) opcodes_path = (dir.parent_path() / "opcodes.json").string();
  nlohmann::json opcodes = ReadJsonFile(opcodes_path).value_or(nlohmann::json::object());
  int on_wire = 0;
  std::map<std::string, std::pair<int, int>> per_suite;  // suite -> (tests on the wire, tests)
  std::map<std::string, nlohmann::json> wire_of;          // test -> its "wire"
  std::set<int64_t> inside;                               // violations' frames in some test's slice
  for (TestResult& t : run->tests) {
    auto it = slices.find(t.name);
    if (it == slices.end()) continue;
    nlohmann::json& wire = wire_of[t.name] = SliceToJson(it->second, link, check);
    std::vector<nlohmann::json> found;
    if (wire.contains("violations")) found = wire["violations"].get<std::vector<nlohmann::json>>();
    for (const nlohmann::json& v : found) inside.insert(v.value("frame", v.value("packet", int64_t{0})));
    const std::vector<const Expectation*> entries =
        *expectations ? FindWireExpectations(**expectations, t.name, env.value("kernel", ""), env.value("rdma_core", ""))
                      : std::vector<const Expectation*>{};
    JudgeByWire(WireFailureParts(found, capture_name), entries, t);
    ++per_suite[t.suite].second;
    if (it->second.packets == 0) continue;
    ++on_wire;
    ++per_suite[t.suite].first;
    if (t.status == TestStatus::kPass) {
      opcodes[TestBodyName(t.name)][link] = {
          {"test", t.name}, {"device", run->device}, {"sequence", wire["sequence"]}};
    }
  }
  std::vector<nlohmann::json> outside;
  int set_aside = 0;
  const nlohmann::json lab_failure = run->environment.value("lab_failure", nlohmann::json());
  for (const nlohmann::json& v : ViolationsOf(check)) {
    const int64_t frame = v.value("frame", v.value("packet", int64_t{0}));
    if (inside.count(frame)) continue;
    if (SetAsideByLabFailure(lab_failure, slices, frame)) {
      ++set_aside;
    } else {
      outside.push_back(v);
    }
  }
  if (run->environment.contains("lab_failure")) run->environment["lab_failure"]["violations_set_aside"] = set_aside;
  if (!outside.empty()) run->tests.push_back(WireOutsideTestsResult(WireFailureParts(outside, capture_name)));
  *results = ResultsToJson(*run);
  for (nlohmann::json& t : (*results)["tests"]) {
    auto it = wire_of.find(t.value("name", ""));
    if (it != wire_of.end()) t["wire"] = it->second;
  }
  (*results)["environment"]["wire"]["tests_on_wire"] = on_wire;
  nlohmann::json suites = nlohmann::json::object();
  std::vector<std::string> counts;
  for (const auto& [suite, n] : per_suite) {
    suites[suite] = {{"on_wire", n.first}, {"tests", n.second}};
    counts.push_back(absl::StrCat(suite, " ", n.first, "/", n.second));
  }
  (*results)["environment"]["wire"]["suites"] = suites;
  if (absl::Status s = WriteFile(positional[0], results->dump(2) + "\n"); !s.ok()) return UsageError(s);
  if (absl::Status s = WriteFile(opcodes_path, opcodes.dump(2) + "\n"); !s.ok()) return UsageError(s);
  const RunSummary sum = Summarize(run->tests);
  if (run->environment.contains("lab_failure")) {
    std::cout << "rdmacheck wire-slices: " << link << ": the lab failed, "
              << run->environment["lab_failure"]["not_run"].size() << " tests not the device's (not run), "
              << set_aside << " wire violations during or after the failure set aside: "
              << run->environment["lab_failure"]["reason"].get<std::string>() << std::endl;
  }
  std::cout << "rdmacheck wire-slices: " << link << ": " << slices.size() << " tests marked, " << on_wire
            << " with RDMA packets on the wire (" << absl::StrJoin(counts, ", ") << "); judged with the wire: "
            << sum.fail << " failed, " << sum.xfail << " xfail, " << sum.xpass << " xpass; " << positional[0] << ", "
            << opcodes_path << std::endl;
  return ExitCodeFor(sum);
}

}  // namespace rdmacheck
