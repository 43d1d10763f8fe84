#include "capabilities/system/device_counters.h"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "capabilities/system/rdma_netlink.h"

namespace rdmacheck {
namespace {

// The PortCounters that count traffic (not errors): sysfs names, drivers/infiniband/core/sysfs.c.
constexpr const char* kPmaTraffic[] = {"port_xmit_packets", "port_rcv_packets", "port_xmit_data", "port_rcv_data",
                                       "unicast_xmit_packets", "unicast_rcv_packets"};

std::vector<std::string> CounterFiles(const std::filesystem::path& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    // hw_counters/lifespan is how often the values refresh, not a counter.
    if (entry.is_regular_file(ec) && entry.path().filename() != "lifespan") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

absl::Status ReadFiles(const std::vector<std::string>& files, CounterValues& values) {
  for (const std::string& file : files) {
    std::ifstream in(file);
    uint64_t v = 0;
    if (!(in >> v)) return absl::UnavailableError(absl::StrCat("cannot read ", file));
    values[std::filesystem::path(file).filename().string()] = v;
  }
  return absl::OkStatus();
}

}  // namespace

DeviceCounters DeviceCounters::Find(const std::string& device, uint32_t port) {
  DeviceCounters c;
  c.port_ = port;
  const std::filesystem::path port_dir = absl::StrCat("/sys/class/infiniband/", device, "/ports/", port);
  std::vector<std::string> said;
  absl::StatusOr<NetlinkDevice> nl = QueryNetlinkDevice(device);
  absl::StatusOr<CounterValues> hw = nl.ok() ? QueryNetlinkHwCounters(nl->index, port) : nl.status();
  if (hw.ok() && !hw->empty()) {
    c.netlink_ = true;
    c.netlink_index_ = nl->index;
    said.push_back(absl::StrCat("rdma statistic (netlink): ", hw->size(), " hardware counters"));
  } else {
    said.push_back(absl::StrCat("rdma statistic (netlink): ", hw.ok() ? "no counters" : hw.status().message()));
    c.hw_files_ = CounterFiles(port_dir / "hw_counters");
    said.push_back(absl::StrCat((port_dir / "hw_counters").string(), ": ",
                                c.hw_files_.empty() ? "none" : absl::StrCat(c.hw_files_.size(), " counters")));
  }
  for (const char* name : kPmaTraffic) {
    const std::filesystem::path file = port_dir / "counters" / name;
    std::error_code ec;
    if (std::filesystem::exists(file, ec)) c.pma_files_.push_back(file.string());
  }
  said.push_back(absl::StrCat((port_dir / "counters").string(), ": ",
                              c.pma_files_.empty() ? "no PortCounters" : absl::StrCat(c.pma_files_.size(), " traffic counters")));
  c.evidence_ = absl::StrJoin(said, "; ");
  return c;
}

absl::StatusOr<CounterValues> DeviceCounters::Read() const {
  CounterValues values;
  if (netlink_) {
    absl::StatusOr<CounterValues> hw = QueryNetlinkHwCounters(netlink_index_, port_);
    if (!hw.ok()) return hw.status();
    values = *std::move(hw);
  }
  if (absl::Status s = ReadFiles(hw_files_, values); !s.ok()) return s;
  if (absl::Status s = ReadFiles(pma_files_, values); !s.ok()) return s;
  return values;
}

std::map<std::string, int64_t> CounterDeltas(const CounterValues& before, const CounterValues& after) {
  std::map<std::string, int64_t> deltas;
  for (const auto& [name, value] : after) {
    auto it = before.find(name);
    if (it == before.end() || it->second == value) continue;
    deltas[name] = static_cast<int64_t>(value - it->second);
  }
  return deltas;
}

}  // namespace rdmacheck
