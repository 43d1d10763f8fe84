#include "suites/link_events/netdev_control.h"

#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "harness/child_process.h"
#include "harness/status.h"
#include "harness/timeouts.h"

namespace rdmacheck {

absl::Status RunIp(const std::vector<std::string>& args) {
  std::vector<std::string> command = {"ip"};
  command.insert(command.end(), args.begin(), args.end());
  const std::string text = absl::StrJoin(command, " ");
  RDMACHECK_ASSIGN_OR_RETURN(ChildProcess child, SpawnChild(command, Stderr::kWithStdout));
  const auto deadline = std::chrono::steady_clock::now() + absl::ToChronoSeconds(Scaled(absl::Seconds(10)));
  const int exit = FinishChild(child, deadline);
  if (exit != 0) {
    return absl::InternalError(absl::StrCat("`", text, "` ", exit < 0 ? TimedOut(child) : absl::StrCat("exited ", exit), ": ",
                                            absl::StripTrailingAsciiWhitespace(child.output)));
  }
  return absl::OkStatus();
}

absl::StatusOr<ibv_port_attr> QueryPort(ibv_context* context, uint8_t port) {
  ibv_port_attr attr{};
  const int rc = ibv_query_port(context, port, &attr);
  if (rc != 0) return ErrnoStatus(rc, absl::StrCat("ibv_query_port(", port, ")"));
  return attr;
}

absl::StatusOr<ibv_port_attr> WaitPortState(ibv_context* context, uint8_t port, ibv_port_state state,
                                            absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (true) {
    RDMACHECK_ASSIGN_OR_RETURN(ibv_port_attr attr, QueryPort(context, port));
    if (attr.state == state) return attr;
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("port ", port, " is ", PortStateName(attr.state), ", not ",
                                                      PortStateName(state), ", after ", absl::FormatDuration(timeout)));
    }
    absl::SleepFor(absl::Milliseconds(20));
  }
}

std::string GidTableDifference(const std::vector<GidEntry>& before, const std::vector<GidEntry>& now) {
  std::vector<std::string> differences;
  auto find = [](const std::vector<GidEntry>& table, uint32_t index) -> const GidEntry* {
    for (const GidEntry& g : table) {
      if (g.index == index) return &g;
    }
    return nullptr;
  };
  for (const GidEntry& g : before) {
    const GidEntry* n = find(now, g.index);
    if (n == nullptr) {
      differences.push_back(absl::StrCat("GID ", g.index, " ", g.Address(), " is gone"));
    } else if (std::memcmp(n->gid.raw, g.gid.raw, 16) != 0 || n->type != g.type) {
      differences.push_back(absl::StrCat("GID ", g.index, " is ", n->Address(), " (", n->TypeName(), "), was ",
                                         g.Address(), " (", g.TypeName(), ")"));
    }
  }
  for (const GidEntry& n : now) {
    if (find(before, n.index) == nullptr) {
      differences.push_back(absl::StrCat("GID ", n.index, " ", n.Address(), " (", n.TypeName(), ") is new"));
    }
  }
  return absl::StrJoin(differences, "; ");
}

absl::StatusOr<std::unique_ptr<LinkDown>> LinkDown::Take(const std::string& netdev, ibv_context* context,
                                                         uint8_t port) {
  RDMACHECK_ASSIGN_OR_RETURN(ibv_port_attr attr, QueryPort(context, port));
  RDMACHECK_ASSIGN_OR_RETURN(std::vector<GidEntry> gids, ReadGidTable(context, attr, port));
  std::unique_ptr<LinkDown> down(new LinkDown(netdev, context, port, std::move(gids)));
  down->port_attr_ = attr;
  absl::Status status = RunIp({"link", "set", "dev", netdev, "down"});
  if (!status.ok()) {
    down->restored_ = true;  // nothing to restore, but try the up anyway in case it half-happened
    (void)RunIp({"link", "set", "dev", netdev, "up"});
    return status;
  }
  return down;
}

absl::Status LinkDown::Restore() {
  restored_ = true;
  RDMACHECK_RETURN_IF_ERROR(RunIp({"link", "set", "dev", netdev_, "up"}));
  const absl::Duration timeout = Scaled(absl::Seconds(30));
  const absl::Time deadline = absl::Now() + timeout;
  RDMACHECK_ASSIGN_OR_RETURN(ibv_port_attr attr, WaitPortState(context_, port_, IBV_PORT_ACTIVE, timeout));
  std::string difference;
  while (true) {
    RDMACHECK_ASSIGN_OR_RETURN(std::vector<GidEntry> gids, ReadGidTable(context_, attr, port_));
    difference = GidTableDifference(gids_, gids);
    if (difference.empty()) return absl::OkStatus();
    if (absl::Now() > deadline) break;
    absl::SleepFor(absl::Milliseconds(100));
  }
  return absl::DeadlineExceededError(absl::StrCat("after `ip link set dev ", netdev_, " up` the GID table is not back ",
                                                  "within ", absl::FormatDuration(timeout), ": ", difference));
}

LinkDown::~LinkDown() {
  if (restored_) return;
  absl::Status status = Restore();
  if (!status.ok()) ADD_FAILURE() << "restoring the link of " << netdev_ << " failed: " << status.message();
}

absl::StatusOr<std::unique_ptr<AddedAddress>> AddedAddress::Add(const std::string& netdev, const std::string& cidr) {
  std::vector<std::string> args = {"addr", "add", cidr, "dev", netdev};
  if (cidr.find(':') != std::string::npos) args.push_back("nodad");
  RDMACHECK_RETURN_IF_ERROR(RunIp(args));
  return std::unique_ptr<AddedAddress>(new AddedAddress(netdev, cidr));
}

absl::Status AddedAddress::Remove() {
  removed_ = true;
  return RunIp({"addr", "del", cidr_, "dev", netdev_});
}

AddedAddress::~AddedAddress() {
  if (removed_) return;
  absl::Status status = Remove();
  if (!status.ok()) ADD_FAILURE() << "removing " << cidr_ << " from " << netdev_ << " failed: " << status.message();
}

}  // namespace rdmacheck
