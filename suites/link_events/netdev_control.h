// Changing the network under a port for the link event tests, and putting it back on every
// path: RAII guards around ip(8).
//
//   ASSERT_OK_AND_ASSIGN(auto down, LinkDown::Take(netdev, context(), port()));  // ip link set dev X down
//   ... IBV_EVENT_PORT_ERR, ibv_query_port DOWN ...
//   ASSERT_OK(down->Restore());   // ip link set dev X up, then the port ACTIVE and its GID table as before
//
//   ASSERT_OK_AND_ASSIGN(auto address, AddedAddress::Add(netdev, "198.51.100.77/32"));
//   ... IBV_EVENT_GID_CHANGE, the GID appears ...
//   ASSERT_OK(address->Remove());
//
// A guard that goes out of scope unrestored (an ASSERT left the test) restores in its
// destructor and records a test failure if it cannot. The tests that use these run alone
// (RDMACHECK_RUNS_ALONE): while the link is down no other test on the device could pass.
#ifndef RDMACHECK_SUITES_LINK_EVENTS_NETDEV_CONTROL_H_
#define RDMACHECK_SUITES_LINK_EVENTS_NETDEV_CONTROL_H_

#include <infiniband/verbs.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "harness/device.h"

namespace rdmacheck {

// Runs `ip ARGS...` bounded (10 s scaled); an error carries its output.
absl::Status RunIp(const std::vector<std::string>& args);

// The port's state (ibv_query_port), and a bounded wait for one.
absl::StatusOr<ibv_port_attr> QueryPort(ibv_context* context, uint8_t port);
absl::StatusOr<ibv_port_attr> WaitPortState(ibv_context* context, uint8_t port, ibv_port_state state,
                                            absl::Duration timeout);

// GID tables compared entry by entry: "" when equal, else what differs.
std::string GidTableDifference(const std::vector<GidEntry>& before, const std::vector<GidEntry>& now);

class LinkDown {
 public:
  // Reads the port's GID table (what Restore() waits for), then takes `netdev` down.
  static absl::StatusOr<std::unique_ptr<LinkDown>> Take(const std::string& netdev, ibv_context* context, uint8_t port);
  // Takes the link up and waits (30 s scaled) for the port to be ACTIVE and its GID table
  // to be what it was (IPv6 link-local addresses are removed on down and come back).
  absl::Status Restore();
  ~LinkDown();
  LinkDown(const LinkDown&) = delete;
  LinkDown& operator=(const LinkDown&) = delete;

 private:
  LinkDown(std::string netdev, ibv_context* context, uint8_t port, std::vector<GidEntry> gids)
      : netdev_(std::move(netdev)), context_(context), port_(port), gids_(std::move(gids)) {}
  std::string netdev_;
  ibv_context* context_;
  uint8_t port_;
  ibv_port_attr port_attr_{};
  std::vector<GidEntry> gids_;
  bool restored_ = false;
};

class AddedAddress {
 public:
  // `ip addr add CIDR dev NETDEV` (IPv6: nodad, usable at once).
  static absl::StatusOr<std::unique_ptr<AddedAddress>> Add(const std::string& netdev, const std::string& cidr);
  absl::Status Remove();  // `ip addr del`
  ~AddedAddress();
  AddedAddress(const AddedAddress&) = delete;
  AddedAddress& operator=(const AddedAddress&) = delete;

 private:
  AddedAddress(std::string netdev, std::string cidr) : netdev_(std::move(netdev)), cidr_(std::move(cidr)) {}
  std::string netdev_;
  std::string cidr_;
  bool removed_ = false;
};

}  // namespace rdmacheck

#endif  // RDMACHECK_SUITES_LINK_EVENTS_NETDEV_CONTROL_H_
