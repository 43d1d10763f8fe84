// Machines of one type, "gpu-a", for the machine profile tests (unit/machine_*_test.cc):
// the facts of a node that meets GpuA() exactly, the same node as runs the fleet report
// reads, and a pair's benchmark at a given speed.
#ifndef RDMACHECK_UNIT_MACHINE_FIXTURES_H_
#define RDMACHECK_UNIT_MACHINE_FIXTURES_H_

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "machine/machine_profile.h"
#include "machine/node_facts.h"
#include "results/bench_result.h"
#include "unit/report_fixtures.h"

namespace rdmacheck::fixtures {

inline constexpr double kGbPerMiB = 1048576.0 * 8 / 1e9;  // node_facts.h PairFigure's unit

// What every gpu-a node must show: two ConnectX-7 on 200 Gb/s RoCEv2, jumbo frames.
inline MachineProfile GpuA() {
  MachineProfile p;
  p.machine_type = "gpu-a";
  p.nic_count = 2;
  p.nic_models = {"mlx5 15b3:101d"};
  p.port_rate = "200 Gb/sec (4X HDR)";
  p.active_mtu = 4096;
  p.netdev_mtu = 9000;
  p.gid_type = "RoCEv2";
  p.link_layer = "Ethernet";
  p.min_firmware = "28.39.1002";
  p.capabilities = {"rc_qp", "rdma_read", "atomics"};
  p.pairs["write bandwidth 65536 B"] = {180.0, 0.1};
  p.pairs["send latency 64 B"] = {3.0, 0.1};
  p.link_flaps = LinkFlapLimit{2, 3600};
  return p;
}

// One device of a gpu-a node exactly as GpuA() asks.
inline DeviceFacts GpuADevice(const std::string& device) {
  DeviceFacts d;
  d.device = device;
  d.kind = "mlx5 15b3:101d";
  d.firmware = "28.39.1002";
  d.port_rate = "200 Gb/sec (4X HDR)";
  d.active_mtu = 4096;
  d.netdev_mtu = 9000;
  d.gid_type = "RoCEv2";
  d.link_layer = "Ethernet";
  d.capabilities = {{"rc_qp", "supported"}, {"rdma_read", "supported"}, {"atomics", "supported"}, {"odp", "unsupported"}};
  d.link_port = 1;
  d.link_downs = 0;
  d.link_flap_window_s = 3600;
  return d;
}

// A pair's benchmark: WRITE bandwidth in Gb/s, SEND latency in us.
inline BenchRun PairPoints(double write_gb_per_s, double send_latency_us) {
  BenchRun b;
  b.device = "mlx5_0";
  b.points.push_back({"rdmacheck", "send", "latency", 64, 1000, send_latency_us, send_latency_us, send_latency_us, 0, ""});
  b.points.push_back({"rdmacheck", "write", "bandwidth", 65536, 100, 0, 0, 0, write_gb_per_s / kGbPerMiB, ""});
  return b;
}

// A node that meets GpuA(), with one pair at the profile's speed.
inline NodeFacts GpuANode(const std::string& host = "node-a") {
  NodeFacts node;
  node.host = host;
  node.devices = {GpuADevice("mlx5_0"), GpuADevice("mlx5_1")};
  node.pairs.push_back({host, "node-b", "mlx5_0", PairPoints(180.0, 3.0).points});
  return node;
}

// `facts` as the run the fleet report reads: results.json's environment and
// capabilities.json's identity and observed outcomes. `peer`: a pair's run, served by it.
inline DeviceRun MachineRun(const std::string& host, const DeviceFacts& facts, const std::string& peer = "") {
  // The kind back into its parts: "mlx5 15b3:101d" -> driver mlx5, vendor 0x15b3, part 0x101d.
  char driver[32] = {};
  unsigned vendor = 0, part = 0;
  std::sscanf(facts.kind.c_str(), "%31s %x:%x", driver, &vendor, &part);
  std::map<std::string, std::string> observed(facts.capabilities.begin(), facts.capabilities.end());
  DeviceRun run = RunOf(facts.device, {Result("device", "DeviceTest.Opens", TestStatus::kPass)}, observed);
  run.source = absl::StrCat("fleet/", peer.empty() ? "nodes/" + host : "pairs/" + peer + "--" + host, "/", facts.device);
  run.results.environment = {{"hostname", host},        {"driver", driver},
                             {"fw_ver", facts.firmware}, {"port_rate", facts.port_rate},
                             {"active_mtu", facts.active_mtu}, {"netdev_mtu", facts.netdev_mtu},
                             {"gid_type", facts.gid_type},     {"link_layer", facts.link_layer},
                             {"kernel", "6.1.0-56-amd64"},     {"rdma_core", "44.0-2"}};
  if (!peer.empty()) run.results.environment["peer"] = peer + ":18515";
  if (facts.link_downs >= 0) {
    run.results.environment["link_flaps"] = {
        {"port", facts.link_port}, {"downs", facts.link_downs}, {"window_s", facts.link_flap_window_s}};
  }
  nlohmann::json caps = run.capabilities;
  caps["identity"].update({{"driver", driver}, {"vendor_id", vendor}, {"vendor_part_id", part}});
  (void)SetCapabilities(caps, run);
  return run;
}

}  // namespace rdmacheck::fixtures

#endif  // RDMACHECK_UNIT_MACHINE_FIXTURES_H_
