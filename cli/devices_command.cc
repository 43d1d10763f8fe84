// rdmacheck devices: what RDMA devices this host has, and the choices a run would make.
#include <iostream>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "harness/device.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {
namespace {

nlohmann::json DeviceJson(const DeviceInfo& info) {
  nlohmann::json ports = nlohmann::json::array();
  for (const PortInfo& p : info.ports) {
    nlohmann::json gids = nlohmann::json::array();
    for (const GidEntry& g : p.gids) {
      gids.push_back({{"index", g.index}, {"gid", g.Address()}, {"type", g.TypeName()}, {"netdev", g.netdev}});
    }
    ports.push_back({{"port", p.num},
                     {"state", PortStateName(p.attr.state)},
                     {"link_layer", LinkLayerName(p.attr.link_layer)},
                     {"max_mtu", MtuBytes(p.attr.max_mtu)},
                     {"active_mtu", MtuBytes(p.attr.active_mtu)},
                     {"gids", gids}});
  }
  auto chosen_port = ChoosePort(info.ports);
  nlohmann::json j = {{"name", info.name},
                      {"transport", TransportName(info.transport)},
                      {"node_type", ibv_node_type_str(info.node_type)},
                      {"ports", ports}};
  if (chosen_port.ok()) {
    j["default_port"] = *chosen_port;
    auto gid = ChooseGid(info.ports[*chosen_port - 1].gids, info.transport);
    if (gid.ok()) j["default_gid_index"] = *gid;
  }
  return j;
}

void PrintText(const nlohmann::json& d) {
  std::cout << absl::StrFormat("%s  transport %s  node %s  ports %d\n", d["name"].get<std::string>(),
                               d["transport"].get<std::string>(), d["node_type"].get<std::string>(), d["ports"].size());
  for (const auto& p : d["ports"]) {
    bool is_default = d.value("default_port", 0) == p["port"].get<int>();
    std::cout << absl::StrFormat("  port %d: %s  link %s  mtu active %d max %d%s\n", p["port"].get<int>(),
                                 p["state"].get<std::string>(), p["link_layer"].get<std::string>(),
                                 p["active_mtu"].get<int>(), p["max_mtu"].get<int>(), is_default ? "  (default)" : "");
    for (const auto& g : p["gids"]) {
      bool default_gid = is_default && d.value("default_gid_index", -1) == g["index"].get<int>();
      std::cout << absl::StrFormat("    gid %-3d %-40s %-7s %s%s\n", g["index"].get<int>(), g["gid"].get<std::string>(),
                                   g["type"].get<std::string>(), g["netdev"].get<std::string>(),
                                   default_gid ? "  (default)" : "");
    }
  }
}

}  // namespace

int DevicesCommand(const std::vector<std::string>& positional) {
  if (!positional.empty()) return UsageError("devices takes no arguments");
  const std::string format = absl::GetFlag(FLAGS_format);
  if (format != "text" && format != "json") return UsageError("--format must be text or json");
  absl::StatusOr<std::vector<std::string>> names = DeviceNames();
  if (!names.ok()) return UsageError(names.status());
  if (names->empty()) {
    return UsageError(NoDeviceError());
  }
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& name : *names) {
    absl::StatusOr<ContextPtr> context = OpenDevice(name);
    if (!context.ok()) return UsageError(context.status());
    absl::StatusOr<DeviceInfo> info = Describe(context->get());
    if (!info.ok()) return UsageError(info.status());
    all.push_back(DeviceJson(*info));
  }
  if (format == "json") {
    std::cout << all.dump(2) << std::endl;
  } else {
    for (const auto& d : all) PrintText(d);
  }
  return kExitOk;
}

}  // namespace rdmacheck
