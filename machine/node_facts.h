// What a machine profile is checked against: one node's devices, as their runs recorded
// them (results.json "environment", capabilities.json), and the benchmark points of the
// pairs it took part in. A few hundred bytes per device, so a fleet of thousands keeps
// them all (the fleet report reads each run once and drops it: reports/fleet/fleet_tally.h).
//
//   absl::StatusOr<DeviceFacts> facts = LoadDeviceFacts("/tmp/rdmacheck-health/mlx5_0");
#ifndef RDMACHECK_MACHINE_NODE_FACTS_H_
#define RDMACHECK_MACHINE_NODE_FACTS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "results/bench_result.h"

namespace rdmacheck {

// One device of a node. An empty string or 0 is a value its run did not record.
struct DeviceFacts {
  std::string device;      // "mlx5_0"
  std::string kind;        // DeviceKind: "mlx5 15b3:101d"
  std::string firmware;    // environment fw_ver
  std::string port_rate;   // environment port_rate: "200 Gb/sec (4X HDR)"
  int active_mtu = 0;      // environment active_mtu
  int netdev_mtu = 0;      // environment netdev_mtu
  std::string gid_type;    // environment gid_type
  std::string link_layer;  // environment link_layer
  std::map<std::string, std::string> capabilities;  // capabilities.json observed: name -> outcome
  // environment link_flaps (doctor/link_flaps.h): the port's downs in the window before the
  // run; -1 when it recorded none (the counter unavailable, an older run).
  int link_port = 0, link_downs = -1, link_flap_window_s = 0;
};

// A pair's run (`bench --peer`): `client` measured against `server`'s `serve`.
struct PairFacts {
  std::string server, client;
  std::string device;  // the client's
  std::vector<BenchPoint> points;
};

struct NodeFacts {
  std::string host;
  std::vector<DeviceFacts> devices;
  std::vector<PairFacts> pairs;  // the pairs it served or ran as the client
};

// The devices whose capabilities should agree, and a profile's nics.models: the driver and,
// where the probe read them, the PCI vendor and part ids: "mlx5 15b3:101d"; the driver
// alone otherwise ("rxe"). `environment` is results.json's, `identity` capabilities.json's.
std::string DeviceKind(const nlohmann::json& environment, const nlohmann::json& identity);

// A device's facts from its run: results.json's device name and environment, and its
// capabilities.json document. `only`, when given, keeps just those capabilities (what a
// profile checks), so a fleet's facts stay small.
DeviceFacts DeviceFactsOf(const std::string& device, const nlohmann::json& environment,
                          const nlohmann::json& capabilities, const std::vector<std::string>* only = nullptr);
// The same from a run directory (DIR/results.json, DIR/capabilities.json); errors name the file.
absl::StatusOr<DeviceFacts> LoadDeviceFacts(const std::string& dir);

// A benchmark point as the fleet report names it and a profile's "pairs" are keyed:
// "write bandwidth 65536 B", "send latency 64 B".
std::string BenchPointName(const BenchPoint& point);
bool IsBenchPointName(absl::string_view name);  // "<op> bandwidth|latency <size> B"
bool IsLatencyPoint(absl::string_view name);
// The number a profile sets for a point: bandwidth in Gb/s (10^9 bit/s, as port rates are
// given; bench.json holds MiB/s), latency (the median) in microseconds.
double PairFigure(const BenchPoint& point);

}  // namespace rdmacheck

#endif  // RDMACHECK_MACHINE_NODE_FACTS_H_
