// Deliberately broken tests, built only into rdmacheck_selftest (never into rdmacheck):
// they prove that a run survives a test that crashes, a test that hangs and a test that
// leaks, reports each by name, and keeps the results of the tests around them.
// selftest/check_watchdog_demo.sh runs them and checks results.json.
#include <csignal>
#include <thread>

#include "testing/device_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

class WatchdogDemoTest : public DeviceTest {};

RDMACHECK_ABOUT(WatchdogDemoTest, APassBeforeTheCrash, "passes: its result must survive the crash after it",
                "selftest");
TEST_F(WatchdogDemoTest, APassBeforeTheCrash) { ASSERT_OK(AllocPd(context()).status()); }

RDMACHECK_ABOUT(WatchdogDemoTest, BCrashes, "dies of SIGSEGV: reported failed, naming the signal", "selftest");
TEST_F(WatchdogDemoTest, BCrashes) { std::raise(SIGSEGV); }

RDMACHECK_ABOUT(WatchdogDemoTest, CHangs, "never returns: the watchdog (--test_timeout) fails it by name", "selftest");
TEST_F(WatchdogDemoTest, CHangs) {
  while (true) std::this_thread::sleep_for(std::chrono::seconds(1));
}

RDMACHECK_ABOUT(WatchdogDemoTest, DLeaksAPd, "passes but keeps a PD: the suite's leak check must fail", "selftest");
TEST_F(WatchdogDemoTest, DLeaksAPd) {
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  pd.release();  // deliberately never deallocated
}

RDMACHECK_ABOUT(WatchdogDemoTest, EAPassAfterTheHang, "passes: it runs in a new child after the hang", "selftest");
TEST_F(WatchdogDemoTest, EAPassAfterTheHang) { ASSERT_OK(AllocPd(context()).status()); }

}  // namespace
}  // namespace rdmacheck
