#include "capabilities/system/port_facts.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "capabilities/system/sysfs_file.h"

namespace rdmacheck {

PortFacts ReadPortFacts(const std::string& device, uint32_t port, const std::string& netdev, const std::string& sysfs) {
  PortFacts facts;
  const std::string ib = absl::StrCat(sysfs, "/class/infiniband/", device);
  if (std::string rate = ReadSysfsLine(absl::StrCat(ib, "/ports/", port, "/rate")); !rate.empty()) facts.rate = rate;
  int mtu = 0;
  if (!netdev.empty() && absl::SimpleAtoi(ReadSysfsLine(absl::StrCat(sysfs, "/class/net/", netdev, "/mtu")), &mtu)) {
    facts.netdev_mtu = mtu;
  }
  // Only a PCI function has these; both or nothing, so a half-read link is not recorded.
  const std::string speed = ReadSysfsLine(ib + "/device/current_link_speed");
  const std::string width = ReadSysfsLine(ib + "/device/current_link_width");
  if (!speed.empty() && !width.empty()) facts.pcie_link = absl::StrCat(speed, " x", width);
  return facts;
}

}  // namespace rdmacheck
