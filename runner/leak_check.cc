#include "runner/leak_check.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "capabilities/system/rdma_netlink.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {
namespace {

// Device contexts ("ctx") are not counted: librdmacm opens a context per device the first
// time an id binds to it and keeps it until the process ends (rdma-core librdmacm/cma.c,
// ucma_get_device), so a context more after an rdma_cm test is not a leak.
constexpr const char* kTypes[] = {"pd", "cq", "qp", "mr", "srq", "cm_id"};

// The output of `command`, or an error when it cannot run or fails.
absl::StatusOr<std::string> Output(const std::string& command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return absl::UnavailableError(absl::StrCat("cannot run ", command));
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), pipe.get())) > 0) out.append(buf, n);
  if (pclose(pipe.release()) != 0) return absl::UnavailableError(absl::StrCat(command, " failed"));
  return out;
}

}  // namespace

absl::StatusOr<int> CountOwnedBy(absl::string_view rdma_json, pid_t pid) {
  nlohmann::json json = nlohmann::json::parse(rdma_json, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_array()) return absl::InvalidArgumentError("rdma resource show: not a JSON list");
  int n = 0;
  for (const nlohmann::json& entry : json) {
    if (entry.is_object() && entry.value("pid", -1) == pid) ++n;
  }
  return n;
}

absl::StatusOr<ObjectCounts> CountProcessObjects(pid_t pid) {
  // RDMA netlink directly; where that fails (a kernel without resource tracking over
  // netlink is not one we know, but a sandbox may forbid the socket), `rdma` itself.
  if (absl::StatusOr<ObjectCounts> counts = CountNetlinkResources(pid); counts.ok()) return counts;
  ObjectCounts counts;
  for (const char* type : kTypes) {
    absl::StatusOr<std::string> out = Output(absl::StrCat("rdma -j resource show ", type, " 2>/dev/null"));
    if (!out.ok()) continue;  // a type this iproute2 or kernel does not track
    absl::StatusOr<int> n = CountOwnedBy(*out, pid);
    if (n.ok()) counts[type] = *n;
  }
  if (counts.empty()) return absl::UnavailableError("`rdma resource show` gave no object counts");
  return counts;
}

std::string DescribeLeak(const ObjectCounts& before, const ObjectCounts& after) {
  std::vector<std::string> leaked, was;
  for (const auto& [type, n] : after) {
    auto it = before.find(type);
    const int base = it == before.end() ? 0 : it->second;
    if (n > base) {
      leaked.push_back(absl::StrCat(n - base, " ", type));
      was.push_back(absl::StrCat(type, " ", base));
    }
  }
  if (leaked.empty()) return "";
  return absl::StrCat(absl::StrJoin(leaked, ", "), " still held after the suite's tests (before: ",
                      absl::StrJoin(was, ", "), ")");
}

std::string CheckForLeaks(pid_t pid, const ObjectCounts& baseline, absl::Duration settle) {
  const absl::Time deadline = absl::Now() + settle;
  std::string leak;
  while (true) {
    absl::StatusOr<ObjectCounts> now = CountProcessObjects(pid);
    if (!now.ok()) return "";  // the counts went away: nothing to compare
    leak = DescribeLeak(baseline, *now);
    if (leak.empty() || absl::Now() > deadline) return leak;
    absl::SleepFor(absl::Milliseconds(100));
  }
}

}  // namespace rdmacheck
