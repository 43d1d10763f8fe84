#include "doctor/checks.h"

#include <functional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"

namespace rdmacheck {
namespace {

using Findings = std::vector<Finding>;

Finding Make(std::string check, std::string device, Severity severity, std::string what, std::string fix = "") {
  return {std::move(check), std::move(device), severity, std::move(what), std::move(fix)};
}

const UverbsNode* NodeOf(const HostFacts& f, const std::string& device) {
  for (const UverbsNode& n : f.uverbs) {
    if (n.device == device) return &n;
  }
  return nullptr;
}

// Devices the kernel has, against those this process can drive: a container may be given
// the uverbs nodes of some devices only, while sysfs still lists every one of the host's.
void CheckDevices(const HostFacts& f, Findings& out) {
  if (f.sysfs_devices.empty()) {
    out.push_back(Make("devices", "", Severity::kProblem, "no RDMA device in /sys/class/infiniband",
                       "load a driver, or make software devices: scripts/setup-softrdma.sh (rdma link add "
                       "rxe0 type rxe netdev ETH); on a host without RDMA in its kernel: scripts/lab.sh"));
    return;
  }
  std::vector<std::string> usable, unusable;
  for (const std::string& dev : f.sysfs_devices) {
    const UverbsNode* node = NodeOf(f, dev);
    (node && node->present && node->openable ? usable : unusable).push_back(dev);
  }
  out.push_back(Make("devices", "", usable.empty() ? Severity::kProblem : Severity::kOk,
                     absl::StrCat("in sysfs: ", absl::StrJoin(f.sysfs_devices, ", "), "; usable by this process: ",
                                  usable.empty() ? "none" : absl::StrJoin(usable, ", ")),
                     usable.empty() ? "see the uverbs findings below" : ""));
}

bool LookedAt(const HostFacts& f, const std::string& device) {
  for (const DeviceFact& d : f.devices) {
    if (d.name == device) return true;
  }
  return false;
}

// Each device needs its /dev/infiniband/uverbsN, openable read-write.
void CheckUverbsAccess(const HostFacts& f, Findings& out) {
  for (const std::string& dev : f.sysfs_devices) {
    if (!LookedAt(f, dev)) continue;
    const UverbsNode* node = NodeOf(f, dev);
    if (node == nullptr) {
      out.push_back(Make("uverbs_access", dev, Severity::kProblem,
                         "no uverbs device in /sys/class/infiniband_verbs (the driver has no user-space verbs)",
                         "modprobe ib_uverbs"));
    } else if (!node->present) {
      out.push_back(Make("uverbs_access", dev, Severity::kProblem,
                         absl::StrCat("/dev/infiniband/", node->name, " is missing in this mount namespace"),
                         absl::StrCat("in a container, pass it: --device /dev/infiniband/", node->name,
                                      " (and /dev/infiniband/rdma_cm for rdma_cm)")));
    } else if (!node->openable) {
      out.push_back(Make("uverbs_access", dev, Severity::kProblem,
                         absl::StrCat("/dev/infiniband/", node->name, " cannot be opened: ", node->open_error),
                         "run as a user in the node's group (Debian: the rdma group via udev), or as root"));
    } else {
      out.push_back(Make("uverbs_access", dev, Severity::kOk, absl::StrCat("/dev/infiniband/", node->name, " opens")));
    }
  }
}

// A world-writable uverbs node lets every local user create QPs and register memory on
// the device: a shared host's isolation then rests on the driver alone.
void CheckUverbsPermissions(const HostFacts& f, Findings& out) {
  for (const UverbsNode& node : f.uverbs) {
    if (!node.present || !LookedAt(f, node.device)) continue;
    const bool world = node.mode & 0002;
    out.push_back(Make(
        "uverbs_permissions", node.device, world ? Severity::kWarning : Severity::kOk,
        absl::StrFormat("/dev/infiniband/%s mode %04o%s", node.name, node.mode,
                        world ? ": world-writable, every local user can drive the device" : ""),
        world ? absl::StrCat("chmod 0660 /dev/infiniband/", node.name,
                             "; to keep it: a udev rule KERNEL==\"uverbs*\", MODE=\"0660\", GROUP=\"rdma\" in "
                             "/etc/udev/rules.d/")
              : ""));
  }
}

void CheckMemlock(const HostFacts& f, Findings& out) {
  const MemlockLimit& m = f.memlock;
  if (m.Enough()) {
    out.push_back(Make("memlock", "", Severity::kOk,
                       absl::StrCat(m.ToString(), m.cap_ipc_lock ? " (CAP_IPC_LOCK lifts it)" : "",
                                    ": registering memory is not bounded below what the suites pin (",
                                    ByteCount(kMemlockWanted), ")")));
    return;
  }
  out.push_back(Make("memlock", "", Severity::kProblem,
                     absl::StrCat(m.ToString(), " without CAP_IPC_LOCK: memory registration fails (ENOMEM) beyond it; "
                                                "the suites pin up to ",
                                  ByteCount(kMemlockWanted)),
                     "ulimit -l unlimited (persistently: memlock in /etc/security/limits.conf or LimitMEMLOCK= "
                     "in the systemd unit; containers: --ulimit memlock=-1)"));
}

// In exclusive mode a device belongs to one network namespace; its netdev must be here.
void CheckNetns(const HostFacts& f, Findings& out) {
  if (!f.netns_shared) {
    out.push_back(Make("netns_mode", "", Severity::kUnknown, absl::StrCat("RDMA netns mode unknown: ", f.netns_error)));
  } else {
    out.push_back(Make("netns_mode", "", Severity::kOk,
                       *f.netns_shared ? "RDMA netns mode shared (every namespace sees every device)"
                                       : "RDMA netns mode exclusive (a device belongs to one namespace)"));
  }
  for (const DeviceFact& d : f.devices) {
    for (const PortFact& p : d.ports) {
      if (p.netdev.empty()) continue;
      if (p.netdev_here) {
        out.push_back(Make("netdev", d.name, Severity::kOk, absl::StrCat("port ", p.num, " runs over ", p.netdev,
                                                                     " (in this network namespace)")));
      } else {
        out.push_back(Make("netdev", d.name, Severity::kProblem,
                           absl::StrCat("port ", p.num, "'s netdev ", p.netdev,
                                        " is not in this network namespace: rdma_cm cannot use the device here"),
                           absl::StrCat("run in the namespace that has ", p.netdev,
                                        ", or (exclusive mode) rdma dev set ", d.name, " netns NS")));
      }
    }
  }
}

// Port up and MTU: the RDMA MTU must fit the netdev's (RoCE adds 58 bytes of Ethernet-free
// headers: IPv4 20 + UDP 8 + BTH 12 + up to RETH 16 + ICRC 4, rounded up).
void CheckPorts(const HostFacts& f, Findings& out) {
  constexpr int kRoceHeaders = 58;
  for (const DeviceFact& d : f.devices) {
    if (!d.open_error.empty()) {
      out.push_back(Make("port", d.name, Severity::kProblem, absl::StrCat("cannot open or query: ", d.open_error)));
      continue;
    }
    for (const PortFact& p : d.ports) {
      const std::string where = absl::StrCat("port ", p.num);
      if (p.state != "ACTIVE") {
        out.push_back(Make("port_state", d.name, Severity::kProblem, absl::StrCat(where, " is ", p.state),
                           p.netdev.empty() ? "check the link (ibstat)" : absl::StrCat("ip link set ", p.netdev, " up")));
      } else {
        out.push_back(Make("port_state", d.name, Severity::kOk, absl::StrCat(where, " is ACTIVE")));
      }
      if (p.netdev_mtu <= 0 || d.link_layer != "Ethernet") continue;
      const bool roce = d.transport == "InfiniBand";
      if (roce && p.active_mtu + kRoceHeaders > p.netdev_mtu) {
        out.push_back(Make("mtu", d.name, Severity::kProblem,
                           absl::StrCat(where, " active MTU ", p.active_mtu, " does not fit ", p.netdev, "'s MTU ",
                                        p.netdev_mtu, " with the RoCE headers"),
                           absl::StrCat("ip link set ", p.netdev, " mtu ", p.active_mtu + kRoceHeaders, " (or more)")));
      } else {
        out.push_back(Make("mtu", d.name, Severity::kOk,
                           absl::StrCat(where, " active MTU ", p.active_mtu, ", ", p.netdev, " MTU ", p.netdev_mtu)));
      }
    }
  }
}

// rdma_cm over IPv4 needs a RoCEv2 GID carrying an IPv4 address (one appears when the
// netdev gets an address); iWARP needs an address on the netdev.
void CheckGids(const HostFacts& f, Findings& out) {
  for (const DeviceFact& d : f.devices) {
    if (!d.open_error.empty() || d.link_layer != "Ethernet") continue;
    for (const PortFact& p : d.ports) {
      const bool roce = d.transport == "InfiniBand";
      int v2_ipv4 = 0;
      for (const GidFact& g : p.gids) v2_ipv4 += g.type == "RoCEv2" && g.ipv4;
      const std::string netdev = p.netdev.empty() ? "the netdev" : p.netdev;
      if (p.gids.empty()) {
        out.push_back(Make("gid_table", d.name, Severity::kProblem, absl::StrCat("port ", p.num, ": the GID table is empty"),
                           absl::StrCat("ip link set ", netdev, " up; ip addr add ADDR/PREFIX dev ", netdev)));
      } else if (roce && v2_ipv4 == 0) {
        out.push_back(Make("gid_table", d.name, Severity::kProblem,
                           absl::StrCat("port ", p.num, ": ", p.gids.size(),
                                        " GIDs, none RoCEv2 with an IPv4 address: rdma_cm over IPv4 cannot use it"),
                           absl::StrCat("ip addr add ADDR/PREFIX dev ", netdev)));
      } else {
        out.push_back(Make("gid_table", d.name, Severity::kOk,
                           absl::StrCat("port ", p.num, ": ", p.gids.size(), " GIDs",
                                        roce ? absl::StrCat(", ", v2_ipv4, " RoCEv2 with IPv4") : "")));
      }
    }
  }
}

void CheckRdmaCm(const HostFacts& f, Findings& out) {
  for (const DeviceFact& d : f.devices) {
    if (!d.cm) continue;
    const CmFact& cm = *d.cm;
    if (cm.address.empty()) {
      out.push_back(Make("rdma_cm", d.name, Severity::kProblem, "no IP address on the device's netdev to bind rdma_cm to",
                         "ip addr add ADDR/PREFIX dev NETDEV"));
    } else if (!cm.bind_error.empty()) {
      out.push_back(Make("rdma_cm", d.name, Severity::kProblem, absl::StrCat("rdma_bind_addr(", cm.address, "): ", cm.bind_error),
                         "modprobe rdma_ucm; in a container also pass /dev/infiniband/rdma_cm"));
    } else if (cm.bound_device != d.name) {
      out.push_back(Make("rdma_cm", d.name, Severity::kProblem,
                         absl::StrCat(cm.address, " belongs to ", cm.bound_device.empty() ? "no device" : cm.bound_device,
                                      " for rdma_cm, not to ", d.name),
                         "give each RDMA device its own netdev and address (one device per IP)"));
    } else if (!cm.resolve_error.empty()) {
      out.push_back(Make("rdma_cm", d.name, Severity::kProblem,
                         absl::StrCat("rdma_resolve_addr/route to ", cm.address, ": ", cm.resolve_error),
                         "check the netdev's address and routes (ip route get ADDR)"));
    } else {
      out.push_back(Make("rdma_cm", d.name, Severity::kOk, absl::StrCat("binds and resolves ", cm.address)));
    }
  }
}

// iWARP: the kernel asks the user-space port mapper (iwpmd) for a TCP port unless the
// driver opts out (IW_F_NO_PORT_MAP; siw does, drivers/infiniband/sw/siw/siw_main.c).
void CheckPortMapper(const HostFacts& f, Findings& out) {
  for (const DeviceFact& d : f.devices) {
    if (d.transport != "iWARP") continue;
    if (d.driver == "siw") {
      out.push_back(Make("iwpmd", d.name, Severity::kOk, "siw needs no port mapper (IW_F_NO_PORT_MAP)"));
    } else if (f.iwpmd_running) {
      out.push_back(Make("iwpmd", d.name, Severity::kOk, "the iWARP port mapper (iwpmd) runs"));
    } else {
      out.push_back(Make("iwpmd", d.name, Severity::kProblem,
                         absl::StrCat(d.driver.empty() ? "this driver" : d.driver,
                                      " maps its TCP ports through iwpmd, which is not running: rdma_cm connects fail"),
                         "systemctl start iwpmd (package rdma-core)"));
    }
  }
}

// rdma_cm's RoCE mode decides the GID type of its connections: v1 is not routable.
void CheckRoceMode(const HostFacts& f, Findings& out) {
  for (const DeviceFact& d : f.devices) {
    if (d.transport != "InfiniBand" || d.link_layer != "Ethernet") continue;
    for (const PortFact& p : d.ports) {
      const std::string mode = p.default_roce_mode.value_or("");
      if (mode.empty()) {
        out.push_back(Make("roce_mode", d.name, Severity::kOk,
                           absl::StrCat("port ", p.num, ": rdma_cm default RoCE mode not overridden (the kernel "
                                                        "prefers RoCE v2)")));
      } else if (mode.find("v2") == std::string::npos) {
        out.push_back(Make("roce_mode", d.name, Severity::kWarning,
                           absl::StrCat("port ", p.num, ": rdma_cm default RoCE mode is '", mode, "' (not routable)"),
                           absl::StrCat("cma_roce_mode -d ", d.name, " -p ", p.num, " -m 2")));
      } else {
        out.push_back(Make("roce_mode", d.name, Severity::kOk, absl::StrCat("port ", p.num, ": rdma_cm default RoCE mode ", mode)));
      }
    }
  }
}

}  // namespace

const char* SeverityName(Severity severity) {
  switch (severity) {
    case Severity::kOk: return "ok";
    case Severity::kWarning: return "warning";
    case Severity::kProblem: return "problem";
    case Severity::kUnknown: return "unknown";
  }
  return "?";
}

Diagnosis Diagnose(const HostFacts& facts) {
  Diagnosis d;
  if (!facts.sysfs_error.empty()) {
    d.verdict = Verdict::kCannotTell;
    d.headline = absl::StrCat("CANNOT TELL: ", facts.sysfs_error);
    d.findings.push_back(Make("devices", "", Severity::kUnknown, facts.sysfs_error, "mount sysfs (/sys)"));
    return d;
  }
  using Check = std::function<void(const HostFacts&, Findings&)>;
  const Check kChecks[] = {CheckDevices, CheckUverbsAccess, CheckUverbsPermissions, CheckMemlock, CheckNetns,
                           CheckPorts,   CheckGids,         CheckRdmaCm,            CheckPortMapper, CheckRoceMode};
  for (const Check& check : kChecks) check(facts, d.findings);
  int problems = 0, warnings = 0;
  const Finding* first = nullptr;
  for (const Finding& x : d.findings) {
    problems += x.severity == Severity::kProblem;
    warnings += x.severity == Severity::kWarning;
    if (!first && x.severity == Severity::kProblem) first = &x;
  }
  std::vector<std::string> names;
  for (const DeviceFact& dev : facts.devices) names.push_back(dev.name);
  const std::string warned = warnings ? absl::StrCat(" (", warnings, warnings == 1 ? " warning" : " warnings", ")") : "";
  if (problems > 0) {
    d.verdict = Verdict::kProblems;
    d.headline = absl::StrCat("NOT READY: ", problems, problems == 1 ? " problem" : " problems", warned, "; first: ",
                              first->device.empty() ? "" : first->device + ": ", first->what);
  } else {
    d.verdict = Verdict::kReady;
    d.headline = absl::StrCat("READY: ", absl::StrJoin(names, ", "), warned);
  }
  return d;
}

int ExitCode(Verdict verdict) {
  switch (verdict) {
    case Verdict::kReady: return 0;
    case Verdict::kProblems: return 1;
    case Verdict::kCannotTell: return 2;
  }
  return 2;
}

std::string DiagnosisText(const Diagnosis& diagnosis) {
  std::string text = diagnosis.headline + "\n";
  for (const Finding& f : diagnosis.findings) {
    absl::StrAppendFormat(&text, "  %-7s %-18s %s%s\n", SeverityName(f.severity), f.check,
                          f.device.empty() ? "" : f.device + ": ", f.what);
    if (!f.fix.empty() && f.severity != Severity::kOk) absl::StrAppend(&text, "          fix: ", f.fix, "\n");
  }
  return text;
}

nlohmann::json DiagnosisJson(const Diagnosis& diagnosis) {
  static const char* kVerdicts[] = {"ready", "problems", "cannot tell"};
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : diagnosis.findings) {
    nlohmann::json j = {{"check", f.check}, {"severity", SeverityName(f.severity)}, {"what", f.what}};
    if (!f.device.empty()) j["device"] = f.device;
    if (!f.fix.empty()) j["fix"] = f.fix;
    findings.push_back(std::move(j));
  }
  return {{"verdict", kVerdicts[static_cast<int>(diagnosis.verdict)]},
          {"headline", diagnosis.headline},
          {"findings", std::move(findings)}};
}

}  // namespace rdmacheck
