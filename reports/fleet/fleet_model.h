// The fleet report's model: many nodes' runs, judged against the fleet's majority.
//
// Input: run directories (results.json + capabilities.json, and bench.json where `bench`
// ran), found under the directories given, as the Slurm batch script and the Kubernetes
// jobs leave them (ci/slurm/, ci/kubernetes/). A run belongs to the node named by its
// results.json environment "hostname"; a run with a "peer" (`run --peer=HOST:PORT`) is the
// cross-node run of the pair (HOST serving, hostname running), not a node's own run.
//
// Per node: its verdict, worst first —
//   fail       a test failed or xpassed (incl. BrokenCapability.*) in one of its own runs,
//              or it is below the machine profile given (--profile: fleet_profile.h)
//   missing    named in --nodes but no run found, or it lacks a device most nodes have, or
//              a device of it lacks a capability most devices of its kind have (below)
//   incomplete a run that did not finish (results.json "complete": false: a kernel panic,
//              a lab failure), named with the reason its results give, if any
//   outlier    everything passed, but it differs from the fleet's majority
//   healthy
// The first three are trouble (`fleet report` exits 1); an outlier is a finding.
// A device lacks a capability when its probe found it absent ("unsupported") while more
// than half of the fleet's devices of its kind — the same driver and model (PCI vendor and
// part id, where the profile has them) — found it present ("supported"). One of two is no
// majority: in a fleet of two the node without it stays an outlier (ties, below).
// Apart from the verdict, a node is an *outlier* when it stands out from the majority: a
// test status, capability, version or traffic flag unlike most nodes' (a failing test the
// rest pass), a device most nodes have, or no results at all where the others have some. A
// failure every node shares makes no outlier (it points at the test or the software, not
// at a node); in a fleet of two the broken node is the outlier (ties: see below).
// A node without results says why where its job could: `trouble.txt` in its directory
// (<root>/<node>/trouble.txt, one line per device whose run left no results.json, written
// by ci/slurm/rdmacheck-fleet.sbatch); with no such directory, that its step never ran.
// The majority is taken per device name (every node's "mlx5_0" together), item by item:
// each test's status, each capability's outcome, the versions (driver, firmware, kernel,
// rdma-core), the settings a run chose (active MTU, GID index and type, link layer: drift),
// the port's link as the kernel states it (rate, netdev MTU, PCIe link; these against the
// devices of the same name and kind only, so another NIC model is not drift; a key no run
// recorded is no difference),
// whether the device's counters moved with a test's traffic (a traffic flag).
// When outcomes tie, the healthier one is taken as the majority (pass over xfail over skip
// over not run over fail), so in a fleet of two the broken node is the one named.
//
// Per pair: the cross-node verdict, and each benchmark point (operation, metric, size)
// against the fleet's median of that point over all pairs: speed = bandwidth / median, or
// median latency / latency; below `slow_fraction` the pair is slow.
// A pair whose path MTU (environment "path_mtu") is below both ports' active MTUs
// ("active_mtu", "peer_active_mtu") is named too: it ran at less than the path carries.
// At the smaller of the two it is as it should be.
//
// The runs are read one at a time and dropped (fleet_tally.h): the report keeps a small
// digest per run (FleetRun) and tallies per test and capability, so its memory grows with
// the catalogue and the number of runs, not with the size of each run's results.
#ifndef RDMACHECK_REPORTS_FLEET_FLEET_MODEL_H_
#define RDMACHECK_REPORTS_FLEET_FLEET_MODEL_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "machine/machine_profile.h"
#include "machine/node_facts.h"
#include "results/bench_result.h"
#include "results/results.h"
#include "reports/report_model.h"

namespace rdmacheck {

struct FleetOptions {
  double slow_fraction = 0.8;               // a pair below this fraction of the median speed is slow
  std::vector<std::string> expected_nodes;  // --nodes: every node that should have reported
  std::optional<MachineProfile> profile;    // --profile: what every node must show (fleet_profile.h)
};

// One way a node's run differs from the fleet's majority.
struct Difference {
  std::string kind;      // "test", "capability", "version", "setting", "counters", "device"
  std::string subject;   // the test, capability, version key (kernel, fw_ver, ...) or device
  std::string value;     // this node's ("" : none)
  std::string majority;  // the fleet's
};

// What the report keeps of one run: a few hundred bytes, whatever the run's size.
struct FleetRun {
  std::string source;      // the run directory
  std::string device;      // results.json "device"
  std::string host;        // the node that ran it: environment "hostname", else the directory above
  std::string peer;        // a pair's run: the host that served it; "" for a node's own run
  bool complete = true;    // results.json "complete"
  std::string incomplete;  // why it did not finish (presentation.h IncompleteRunLine); "" if it did
  RunSummary summary;
};

// A failed or xpassed test of a node's own run.
struct NodeFailure {
  size_t run = 0;  // index into FleetReport::runs
  std::string device;
  std::string test;
  TestStatus status = TestStatus::kFail;
  std::string line;  // the message's first line (results/failure_line.h)
};

struct NodeDevice {
  size_t run = 0;  // index into FleetReport::runs
  std::string device;
  RunSummary summary;
  std::vector<Difference> differences;
};

enum class NodeVerdict { kFail, kMissing, kIncomplete, kOutlier, kHealthy };
const char* NodeVerdictName(NodeVerdict verdict);  // "fail", "missing", ...

// A capability absent on one device and present on most devices of its kind.
struct MissingCapability {
  size_t run = 0;  // index into FleetReport::runs
  std::string device;
  std::string capability;
  std::string kind;    // "mlx5 15b3:101d": driver, and vendor:part where known
  int present = 0;     // devices of that kind where it is supported
  int of_kind = 0;     // devices of that kind in the fleet
};

struct FleetNode {
  std::string name;
  NodeVerdict verdict = NodeVerdict::kHealthy;
  std::vector<NodeDevice> devices;
  std::vector<std::string> missing_devices;  // devices most nodes have and this one lacks
  std::vector<MissingCapability> missing_capabilities;
  std::vector<NodeFailure> failures;  // every failed or xpassed test, in run order
  std::vector<std::string> notes;  // why it has no results for a device (trouble.txt), or none at all
  std::vector<std::string> profile_violations;  // below options.profile, one line each (machine/profile_check.h)
  // Ports that went down in the window before a run (results.json environment "link_flaps",
  // doctor/link_flaps.h), not counting a conformance run's own link tests: a finding that
  // makes the node an outlier; past a profile's link_flaps.max a violation too.
  std::vector<std::string> flapping_links;  // "rxe0 port 1: went down 3 times in the 3600 s before its run"

  bool outlier = false;            // stands out from the fleet's majority (above)
  int DifferenceCount() const;
};

// One benchmark point of a pair against the fleet.
struct PairPoint {
  BenchPoint point;
  double fleet_median = 0;  // of the headline, over every pair that measured this point
  double speed = 1;         // 1: the median; 0.5: half as fast
  bool slow = false;
};

struct FleetPair {
  std::string server, client;  // `serve` ran on server, `run --peer` on client
  std::string device;          // the client's device
  size_t run = 0;              // index into FleetReport::runs
  RunSummary summary;
  std::vector<PairPoint> bench;
  bool slow = false;
  // Bytes, from the client's results.json environment (0: not recorded): the path MTU its
  // pairs used, its port's active MTU and the serving port's.
  int path_mtu = 0, active_mtu = 0, peer_active_mtu = 0;
  // The evidence a failed pair gives which side is at fault (fault_side.h): its first failed
  // test ("Connect/RcSendTest...: <the failure's first line>"), and the device's error
  // counters that moved during the run (environment traffic_run_totals: retries, sequence
  // errors, RNR, link_downed).
  std::string first_failure;
  std::map<std::string, int64_t> error_counters;
  bool Failed() const { return summary.fail + summary.xpass > 0; }
  // Below both ports' active MTUs: the pair could have used a larger one (a finding, not trouble).
  bool LowPathMtu() const { return path_mtu > 0 && path_mtu < active_mtu && path_mtu < peer_active_mtu; }
  bool Noted() const { return Failed() || slow || LowPathMtu(); }  // listed first in every document
};

struct FleetReport {
  std::string generated;
  FleetOptions options;
  std::vector<FleetRun> runs;     // every run, nodes' and pairs', in the order read
  std::vector<FleetNode> nodes;   // worst first: verdict, then differences and failures
  std::vector<FleetPair> pairs;   // failed first, then slowest

  int CountNodes(NodeVerdict verdict) const;
  std::vector<std::string> Outliers() const;  // the outlier nodes' names, worst first
  int FailedPairs() const;
  int SlowPairs() const;  // slow and not failed (a pair's verdict is one of ok, slow, fail)
  std::vector<const FleetPair*> LowPathMtuPairs() const;
  std::vector<std::string> FlappingNodes() const;  // nodes with a flapping link, worst first
  bool Troubled() const;  // a node failed, is missing or did not finish, or a pair failed or is slow
};

// The fleet from loaded runs (FleetTally, fed each in turn); bench[i] holds run i's
// benchmark runs (may be empty). `generated` is left empty.
FleetReport BuildFleet(std::vector<DeviceRun> runs, const std::vector<std::vector<BenchRun>>& bench,
                       const FleetOptions& options);

// Every run directory (one holding results.json) under `roots`, read one at a time
// (results_skim.h LoadFleetRun) with its bench.json and folded into a FleetTally, and each
// node's notes (trouble.txt). Errors name the file; no run under any root is an
// error unless options name the expected nodes (one root without runs is not: pairs/ of a
// fleet where no pair could run).
// `machines`, when given, receives every node's facts (fleet_profile.h) to learn a profile from.
absl::StatusOr<FleetReport> LoadFleet(const std::vector<std::string>& roots, const FleetOptions& options,
                                      std::vector<NodeFacts>* machines = nullptr);

}  // namespace rdmacheck

#endif  // RDMACHECK_REPORTS_FLEET_FLEET_MODEL_H_
