#include "doctor/link_flaps.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "capabilities/system/device_counters.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

absl::StatusOr<uint64_t> ReadLinkDowned(const std::string& device, uint32_t port) {
  const DeviceCounters counters = DeviceCounters::Find(device, port);
  if (counters.any()) {
    absl::StatusOr<CounterValues> values = counters.Read();
    if (values.ok()) {
      if (auto it = values->find("link_downed"); it != values->end()) return it->second;
    }
  }
  // The PortCounters' LinkDownedCounter is not among the traffic counters DeviceCounters reads.
  const std::string file = absl::StrCat("/sys/class/infiniband/", device, "/ports/", port, "/counters/link_downed");
  std::ifstream in(file);
  uint64_t value = 0;
  if (in >> value) return value;
  return absl::NotFoundError(absl::StrCat(device, " port ", port, " keeps no link_downed counter (", counters.evidence(),
                                          "; no ", file, ")"));
}

absl::StatusOr<LinkFlapHistory> LinkFlapHistory::Load(const std::string& path) {
  LinkFlapHistory history;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return history;
  std::ifstream in(path);
  if (!in) return absl::UnavailableError(absl::StrCat("cannot read ", path));
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("ports") || !j["ports"].is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a link flap history (no \"ports\" object)"));
  }
  for (const auto& [port, list] : j["ports"].items()) {
    for (const nlohmann::json& s : list) {
      if (!s.is_array() || s.size() < 2 || s.size() > 3 || !s[0].is_number_integer() || !s[1].is_number_unsigned() ||
          (s.size() == 3 && !s[2].is_number_unsigned())) {
        return absl::InvalidArgumentError(
            absl::StrCat(path, ": ", port, ": a sample is [unix seconds, link_downed] or [..., excused downs]"));
      }
      history.samples_[port].push_back({s[0].get<int64_t>(), s[1].get<uint64_t>(), s.size() == 3 ? s[2].get<uint64_t>() : 0});
    }
  }
  return history;
}

absl::Status LinkFlapHistory::Save(const std::string& path, absl::Time keep_after) const {
  const int64_t cut = absl::ToUnixSeconds(keep_after);
  nlohmann::json ports = nlohmann::json::object();
  for (const auto& [port, list] : samples_) {
    nlohmann::json kept = nlohmann::json::array();
    for (size_t i = 0; i < list.size(); ++i) {
      const bool baseline = i + 1 < list.size() && list[i + 1].unix_s > cut;
      if (!(list[i].unix_s > cut || baseline || i + 1 == list.size())) continue;
      nlohmann::json sample = {list[i].unix_s, list[i].link_downed};
      if (list[i].excused > 0) sample.push_back(list[i].excused);
      kept.push_back(std::move(sample));
    }
    ports[port] = std::move(kept);
  }
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  {
    std::ofstream out(tmp);
    out << nlohmann::json{{"schema", "rdmacheck.link-flaps/1"}, {"ports", ports}}.dump() << "\n";
    if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", tmp));
  }
  std::filesystem::rename(tmp, path, ec);  // a reader never sees half a file
  if (ec) return absl::UnavailableError(absl::StrCat("cannot write ", path, ": ", ec.message()));
  return absl::OkStatus();
}

void LinkFlapHistory::Add(const std::string& port, absl::Time when, uint64_t link_downed, uint64_t excused) {
  std::vector<Sample>& list = samples_[port];
  list.push_back({absl::ToUnixSeconds(when), link_downed, excused});
  std::stable_sort(list.begin(), list.end(), [](const Sample& a, const Sample& b) { return a.unix_s < b.unix_s; });
}

uint64_t LinkFlapHistory::DownsWithin(const std::string& port, absl::Time now, absl::Duration window) const {
  auto it = samples_.find(port);
  if (it == samples_.end() || it->second.empty()) return 0;
  const std::vector<Sample>& list = it->second;
  const int64_t start = absl::ToUnixSeconds(now - window), end = absl::ToUnixSeconds(now);
  size_t first = 0;  // the baseline: the newest sample at or before the window's start
  for (size_t i = 0; i < list.size(); ++i) {
    if (list[i].unix_s <= start) first = i;
  }
  uint64_t downs = 0;
  for (size_t i = first + 1; i < list.size() && list[i].unix_s <= end; ++i) {
    const uint64_t before = list[i - 1].link_downed, after = list[i].link_downed;
    const uint64_t went_down = after >= before ? after - before : after;  // backwards: a reset, from zero
    downs += went_down > list[i].excused ? went_down - list[i].excused : 0;
  }
  return downs;
}

namespace {

// An exclusive lock on `path`.lock for a read-modify-write of the history: a node's runs and
// health checks sample at the same time (the lab's device tests run rxe0 and siw0 side by side).
class StateLock {
 public:
  explicit StateLock(const std::string& path) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    fd_ = open((path + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ >= 0) flock(fd_, LOCK_EX);
  }
  ~StateLock() {
    if (fd_ >= 0) close(fd_);  // releases the lock
  }
  StateLock(const StateLock&) = delete;
  StateLock& operator=(const StateLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

absl::StatusOr<PortFlaps> SamplePortFlaps(const std::string& state_path, const std::string& device, uint32_t port,
                                          absl::Time now, absl::Duration window, uint64_t excused) {
  StateLock lock(state_path);
  absl::StatusOr<LinkFlapHistory> history = LinkFlapHistory::Load(state_path);
  if (!history.ok()) return history.status();
  PortFlaps f{device, port};
  absl::StatusOr<uint64_t> downed = ReadLinkDowned(device, port);
  if (!downed.ok()) {
    f.why = std::string(downed.status().message());
    return f;
  }
  const std::string key = absl::StrCat(device, "/", port);
  history->Add(key, now, *downed, excused);
  f.counted = true;
  f.downs = history->DownsWithin(key, now, window);
  if (absl::Status saved = history->Save(state_path, now - window); !saved.ok()) return saved;
  return f;
}

absl::StatusOr<std::vector<PortFlaps>> SampleLinkFlaps(const std::vector<std::string>& devices,
                                                       const std::string& state_path, absl::Time now,
                                                       absl::Duration window) {
  std::vector<PortFlaps> out;
  for (const std::string& device : devices) {
    std::vector<uint32_t> ports;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/sys/class/infiniband/" + device + "/ports", ec)) {
      const std::string name = e.path().filename().string();
      if (!name.empty() && std::all_of(name.begin(), name.end(), ::isdigit)) ports.push_back(std::stoul(name));
    }
    std::sort(ports.begin(), ports.end());
    for (uint32_t port : ports) {
      absl::StatusOr<PortFlaps> f = SamplePortFlaps(state_path, device, port, now, window);
      if (!f.ok()) return f.status();
      out.push_back(*std::move(f));
    }
  }
  return out;
}

}  // namespace rdmacheck
