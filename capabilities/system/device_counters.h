// The counters a device keeps of its own traffic, read the way `rdma statistic show link`
// and sysfs show them, so that a test's traffic can be proven on the device
// (runner/counters.h takes them before and after each test).
//
// Two sets, both per port:
//   - the hardware counters: netlink RDMA_NLDEV_CMD_STAT_GET (rdma(8) statistic), else
//     sysfs ports/<port>/hw_counters/*: rxe keeps sent_pkts, rcvd_pkts and a dozen error
//     counters (drivers/infiniband/sw/rxe/rxe_hw_counters.c); siw keeps none;
//   - the IBTA PortCounters (Vol 1 16.1.3.5) in sysfs ports/<port>/counters/*, which exist
//     only on devices that answer performance-management MADs (not rxe or siw); only the
//     packet and data counters are read (each read is a MAD to the device).
#ifndef RDMACHECK_CAPABILITIES_SYSTEM_DEVICE_COUNTERS_H_
#define RDMACHECK_CAPABILITIES_SYSTEM_DEVICE_COUNTERS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace rdmacheck {

using CounterValues = std::map<std::string, uint64_t>;  // counter name -> value

class DeviceCounters {
 public:
  // Finds which counter sets `device` port `port` keeps (never fails: none is an answer).
  static DeviceCounters Find(const std::string& device, uint32_t port);

  bool any() const { return netlink_ || !hw_files_.empty() || !pma_files_.empty(); }
  // Where the counters come from, or why there are none, with the paths tried.
  const std::string& evidence() const { return evidence_; }

  // Every counter now. Never called when !any().
  absl::StatusOr<CounterValues> Read() const;

 private:
  bool netlink_ = false;
  uint32_t netlink_index_ = 0, port_ = 0;
  std::vector<std::string> hw_files_;   // sysfs hw_counters, when netlink does not answer
  std::vector<std::string> pma_files_;  // sysfs PortCounters
  std::string evidence_;
};

// after - before for every counter that moved ("sent_pkts" -> 12). A counter that went
// backwards (reset, wrapped) is reported with the negative difference.
std::map<std::string, int64_t> CounterDeltas(const CounterValues& before, const CounterValues& after);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_SYSTEM_DEVICE_COUNTERS_H_
