#include "capabilities/probes/probe.h"

#include "capabilities/declared/declared.h"
#include "capabilities/declared/identity.h"
#include "capabilities/probes/probes.h"
#include "capabilities/profile/quirks.h"
#include "capabilities/system/rdma_netlink.h"
#include "harness/status.h"

namespace rdmacheck {

absl::StatusOr<Profile> ReadDeclared(ibv_context* context, const Selection& selection) {
  ibv_device_attr_ex attr{};
  if (int rc = ibv_query_device_ex(context, nullptr, &attr); rc != 0) return ErrnoStatus(rc, "ibv_query_device_ex");
  // Netlink only adds names (driver, netdevs); a kernel that refuses it costs nothing else.
  absl::StatusOr<NetlinkDevice> netlink = QueryNetlinkDevice(selection.device);
  const NetlinkDevice* nl = netlink.ok() ? &*netlink : nullptr;
  Profile profile;
  profile.identity = ReadIdentity(context, selection, attr, nl);
  RDMACHECK_ASSIGN_OR_RETURN(profile.declared, ReadDeclaredAttributes(context, attr, nl));
  return profile;
}

absl::StatusOr<Profile> ProbeDevice(ibv_context* context, const Selection& selection) {
  RDMACHECK_ASSIGN_OR_RETURN(Profile profile, ReadDeclared(context, selection));
  const ProbeInput input{selection, profile.declared};
  std::vector<Quirk> noticed;
  for (const ProbeSpec& spec : AllProbes()) {
    ProbeReport report = RunIsolated(spec, input);
    for (auto& [cap, o] : report.observed) profile.observed[cap] = std::move(o);
    for (auto& [name, m] : report.measured) profile.measured[name] = std::move(m);
    for (Quirk& q : report.quirks) noticed.push_back(std::move(q));
  }
  profile.quirks = FindQuirks(profile);
  profile.quirks.insert(profile.quirks.end(), noticed.begin(), noticed.end());
  return profile;
}

}  // namespace rdmacheck
