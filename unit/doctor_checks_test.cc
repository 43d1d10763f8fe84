// `rdmacheck doctor`'s judgement (doctor/checks.h) over made-up hosts: each check flags
// what it names, with a fix, and the verdict and exit code follow the findings.
#include "doctor/checks.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

using ::testing::AllOf;
using ::testing::Contains;
using ::testing::Field;
using ::testing::HasSubstr;
using ::testing::Not;

// A host where everything works: rxe0 on eth0 (RoCE) and siw0 on eth1 (iWARP).
HostFacts HealthyHost() {
  HostFacts f;
  f.sysfs_devices = {"rxe0", "siw0"};
  f.uverbs = {{"uverbs0", "rxe0", true, 0660, true, ""}, {"uverbs1", "siw0", true, 0660, true, ""}};
  f.memlock = {-1, false};
  f.netns_shared = true;
  DeviceFact rxe{"rxe0", "InfiniBand", "Ethernet", "rxe", "", {}, CmFact{"10.0.0.1", "", "rxe0", ""}};
  PortFact p1{1, "ACTIVE", 1024, "eth0", true, 1500, "up", {{1, "RoCEv2", "10.0.0.1", true}}, std::nullopt};
  rxe.ports.push_back(p1);
  DeviceFact siw{"siw0", "iWARP", "Ethernet", "siw", "", {}, CmFact{"10.0.1.1", "", "siw0", ""}};
  PortFact p2{1, "ACTIVE", 1024, "eth1", true, 1500, "up", {{0, "IB", "200:a4d::", false}}, std::nullopt};
  siw.ports.push_back(p2);
  f.devices = {rxe, siw};
  return f;
}

auto Flagged(const std::string& check, Severity severity, const std::string& what_part) {
  return AllOf(Field(&Finding::check, check), Field(&Finding::severity, severity),
               Field(&Finding::what, HasSubstr(what_part)));
}

auto WithFix(const std::string& fix_part) { return Field(&Finding::fix, HasSubstr(fix_part)); }

TEST(DoctorTest, HealthyHostIsReady) {
  Diagnosis d = Diagnose(HealthyHost());
  EXPECT_EQ(d.verdict, Verdict::kReady);
  EXPECT_EQ(ExitCode(d.verdict), 0);
  EXPECT_EQ(d.headline, "READY: rxe0, siw0");
  EXPECT_THAT(d.findings, Not(Contains(Field(&Finding::severity, Severity::kProblem))));
  EXPECT_THAT(d.findings, Contains(Flagged("iwpmd", Severity::kOk, "IW_F_NO_PORT_MAP")));
}

TEST(DoctorTest, NoDeviceIsAProblemThatSaysHowToGetOne) {
  HostFacts f;
  Diagnosis d = Diagnose(f);
  EXPECT_EQ(ExitCode(d.verdict), 1);
  EXPECT_THAT(d.findings, Contains(AllOf(Flagged("devices", Severity::kProblem, "no RDMA device"), WithFix("rdma link add"))));
}

TEST(DoctorTest, UnreadableSysfsCannotTell) {
  HostFacts f;
  f.sysfs_error = "/sys is not mounted or not readable";
  Diagnosis d = Diagnose(f);
  EXPECT_EQ(d.verdict, Verdict::kCannotTell);
  EXPECT_EQ(ExitCode(d.verdict), 2);
  EXPECT_THAT(d.headline, HasSubstr("CANNOT TELL"));
}

// Seed 004's concern: a world-writable node lets any local user drive the device.
TEST(DoctorTest, WorldWritableUverbsIsAWarningWithAFix) {
  HostFacts f = HealthyHost();
  f.uverbs[0].mode = 0666;
  Diagnosis d = Diagnose(f);
  EXPECT_EQ(d.verdict, Verdict::kReady);
  EXPECT_THAT(d.headline, HasSubstr("1 warning"));
  EXPECT_THAT(d.findings, Contains(AllOf(Flagged("uverbs_permissions", Severity::kWarning, "world-writable"),
                                         WithFix("chmod 0660 /dev/infiniband/uverbs0"))));
}

// A container given rxe0's node only: sysfs still lists siw0.
TEST(DoctorTest, DeviceWithoutItsNodeInThisNamespaceIsAProblem) {
  HostFacts f = HealthyHost();
  f.uverbs[1].present = false;
  Diagnosis d = Diagnose(f);
  EXPECT_EQ(ExitCode(d.verdict), 1);
  EXPECT_THAT(d.findings, Contains(AllOf(Flagged("uverbs_access", Severity::kProblem, "missing"),
                                         WithFix("--device /dev/infiniband/uverbs1"))));
  EXPECT_THAT(d.findings, Contains(Flagged("devices", Severity::kOk, "usable by this process: rxe0")));
}

TEST(DoctorTest, UnopenableNodeIsAProblem) {
  HostFacts f = HealthyHost();
  f.uverbs[0].openable = false;
  f.uverbs[0].open_error = "Permission denied";
  EXPECT_THAT(Diagnose(f).findings, Contains(Flagged("uverbs_access", Severity::kProblem, "Permission denied")));
}

TEST(DoctorTest, LoweredMemlockIsAProblemUnlessCapIpcLock) {
  HostFacts f = HealthyHost();
  f.memlock = {64 << 10, false};  // ulimit -l 64
  Diagnosis d = Diagnose(f);
  EXPECT_EQ(ExitCode(d.verdict), 1);
  EXPECT_THAT(d.headline, HasSubstr("RLIMIT_MEMLOCK 64 KiB"));
  EXPECT_THAT(d.findings, Contains(AllOf(Flagged("memlock", Severity::kProblem, "64 KiB"), WithFix("ulimit -l unlimited"))));

  f.memlock.cap_ipc_lock = true;
  EXPECT_EQ(Diagnose(f).verdict, Verdict::kReady);
}

TEST(DoctorTest, NetdevInAnotherNamespaceIsAProblem) {
  HostFacts f = HealthyHost();
  f.devices[0].ports[0].netdev_here = false;
  EXPECT_THAT(Diagnose(f).findings,
              Contains(AllOf(Flagged("netdev", Severity::kProblem, "not in this network namespace"), WithFix("netns"))));
}

TEST(DoctorTest, UnknownNetnsModeIsNeverAProblem) {
  HostFacts f = HealthyHost();
  f.netns_shared.reset();
  f.netns_error = "socket(NETLINK_RDMA): EPROTONOSUPPORT";
  Diagnosis d = Diagnose(f);
  EXPECT_EQ(d.verdict, Verdict::kReady);
  EXPECT_THAT(d.findings, Contains(Flagged("netns_mode", Severity::kUnknown, "EPROTONOSUPPORT")));
}

TEST(DoctorTest, PortDownAndMtuTooBigForTheNetdev) {
  HostFacts f = HealthyHost();
  f.devices[0].ports[0].state = "DOWN";
  f.devices[0].ports[0].active_mtu = 4096;
  Diagnosis d = Diagnose(f);
  EXPECT_THAT(d.findings, Contains(AllOf(Flagged("port_state", Severity::kProblem, "DOWN"), WithFix("ip link set eth0 up"))));
  EXPECT_THAT(d.findings, Contains(AllOf(Flagged("mtu", Severity::kProblem, "4096"), WithFix("mtu 4154"))));
}

TEST(DoctorTest, RoceWithoutAnIpv4RoceV2GidIsAProblem) {
  HostFacts f = HealthyHost();
  f.devices[0].ports[0].gids = {{0, "RoCEv1", "fe80::1", false}};
  EXPECT_THAT(Diagnose(f).findings,
              Contains(AllOf(Flagged("gid_table", Severity::kProblem, "none RoCEv2 with an IPv4"), WithFix("ip addr add"))));
}

// rxe and siw on one netdev and address: rdma_cm binds the address to the other device.
TEST(DoctorTest, AddressBoundToAnotherDeviceIsAProblem) {
  HostFacts f = HealthyHost();
  f.devices[1].cm->bound_device = "rxe0";
  EXPECT_THAT(Diagnose(f).findings, Contains(AllOf(Flagged("rdma_cm", Severity::kProblem, "belongs to rxe0"),
                                                   WithFix("one device per IP"))));
}

TEST(DoctorTest, IwarpDriverThatNeedsThePortMapper) {
  HostFacts f = HealthyHost();
  f.devices[1].driver = "irdma";
  EXPECT_THAT(Diagnose(f).findings,
              Contains(AllOf(Flagged("iwpmd", Severity::kProblem, "not running"), WithFix("systemctl start iwpmd"))));
  f.iwpmd_running = true;
  EXPECT_THAT(Diagnose(f).findings, Contains(Flagged("iwpmd", Severity::kOk, "runs")));
}

TEST(DoctorTest, RoceV1DefaultModeIsAWarning) {
  HostFacts f = HealthyHost();
  f.devices[0].ports[0].default_roce_mode = "IB/RoCE v1";
  EXPECT_THAT(Diagnose(f).findings,
              Contains(AllOf(Flagged("roce_mode", Severity::kWarning, "not routable"), WithFix("cma_roce_mode"))));
}

TEST(DoctorTest, JsonAndTextCarryVerdictFindingsAndFixes) {
  HostFacts f = HealthyHost();
  f.memlock = {64 << 10, false};
  Diagnosis d = Diagnose(f);
  nlohmann::json j = DiagnosisJson(d);
  EXPECT_EQ(j["verdict"], "problems");
  EXPECT_EQ(j["headline"], d.headline);
  EXPECT_EQ(j["findings"].size(), d.findings.size());
  const std::string text = DiagnosisText(d);
  EXPECT_EQ(text.substr(0, text.find('\n')), d.headline);
  EXPECT_THAT(text, HasSubstr("fix: ulimit -l unlimited"));
}

}  // namespace
}  // namespace rdmacheck
