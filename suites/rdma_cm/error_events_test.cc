// rdma_cm failures end in an error (an event or a refused call) within a bounded time,
// never in a hang: nobody listening, addresses that cannot work, steps out of order.
#include <arpa/inet.h>
#include <rdma/rdma_cma.h>

#include <string>

#include "testing/device_test.h"
#include "suites/rdma_cm/cm_side.h"

namespace rdmacheck {
namespace {

class CmErrorTest : public DeviceTest {};

RDMACHECK_ABOUT(CmErrorTest, ConnectWithNobodyListeningFails,
                "rdma_connect to a port of the device's address that nobody listens on is refused at once (iWARP: "
                "the TCP connect is reset) or ends in REJECTED, UNREACHABLE or CONNECT_ERROR (IB CM: REJ "
                "'invalid service ID'), never in a hang; the outcome is recorded",
                "rdma_connect(3), rdma_get_cm_event(3) (RDMA_CM_EVENT_REJECTED / UNREACHABLE / CONNECT_ERROR)",
                Cap::kRdmaCm);
TEST_F(CmErrorTest, ConnectWithNobodyListeningFails) {
  ASSERT_OK_AND_ASSIGN(sockaddr_storage address, SelectionAddress(selection()));
  sockaddr_storage nobody;
  {  // a port that was just free: listen on an ephemeral one, then close it
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmSide> probe, CmSide::Create());
    ASSERT_OK_AND_ASSIGN(nobody, Listen(probe->id.get(), address));
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmSide> client, CmSide::Create());
  ASSERT_OK(ResolveRoute(client->id.get(), address, nobody));
  ASSERT_OK(client->AddQp());
  rdma_conn_param param{};
  param.retry_count = param.rnr_retry_count = 1;
  if (rdma_connect(client->id.get(), &param) != 0) {
    RecordProperty("refused", ErrnoName(errno));
    return;  // refused at once: an error, not a hang
  }
  ASSERT_OK_AND_ASSIGN(CmEventPtr event, WaitCmEvent(client->events()));
  RecordProperty("event", rdma_event_str(event->event));
  RecordProperty("event_status", event->status);
  EXPECT_TRUE(event->event == RDMA_CM_EVENT_REJECTED || event->event == RDMA_CM_EVENT_UNREACHABLE ||
              event->event == RDMA_CM_EVENT_CONNECT_ERROR)
      << "connecting to port " << PortOf(nobody) << " with no listener gave " << rdma_event_str(event->event)
      << " (status " << event->status << ")";
}

// A destination nobody answers for is not a reliable error case: an id bound to a device
// treats an unroutable destination as on-link (Linux routing with an output interface), and
// on the lab's dummy netdevs (NOARP) every neighbour "resolves". The errors below do not
// depend on the network.
RDMACHECK_ABOUT(CmErrorTest, ForeignSourceAddressIsRefused,
                "rdma_resolve_addr from a source address that is on no interface of this host (192.0.2.1, or "
                "2001:db8::1) fails at once or ends in ADDR_ERROR, never resolves; the outcome is recorded",
                "rdma_resolve_addr(3) (src_addr: a local address to bind to); RFC 5737 / RFC 3849", Cap::kRdmaCm);
TEST_F(CmErrorTest, ForeignSourceAddressIsRefused) {
  ASSERT_OK_AND_ASSIGN(sockaddr_storage address, SelectionAddress(selection()));
  sockaddr_storage foreign{};
  foreign.ss_family = address.ss_family;
  if (address.ss_family == AF_INET) {
    inet_pton(AF_INET, "192.0.2.1", &reinterpret_cast<sockaddr_in*>(&foreign)->sin_addr);
  } else {
    inet_pton(AF_INET6, "2001:db8::1", &reinterpret_cast<sockaddr_in6*>(&foreign)->sin6_addr);
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmSide> client, CmSide::Create());
  sockaddr_storage destination = WithPort(address, 4791);
  if (rdma_resolve_addr(client->id.get(), AsSockaddr(foreign), AsSockaddr(destination), 2000) != 0) {
    RecordProperty("refused", ErrnoName(errno));
    return;  // refused at once
  }
  ASSERT_OK_AND_ASSIGN(CmEventPtr event, WaitCmEvent(client->events()));
  RecordProperty("event", rdma_event_str(event->event));
  EXPECT_EQ(event->event, RDMA_CM_EVENT_ADDR_ERROR)
      << "resolving from " << SockaddrToString(foreign) << " gave " << rdma_event_str(event->event);
}

RDMACHECK_ABOUT(CmErrorTest, MixedAddressFamiliesAreRefused,
                "rdma_resolve_addr from an IPv4 source to an IPv6 destination (or the other way round) fails at "
                "once or ends in ADDR_ERROR, never resolves; the outcome is recorded",
                "rdma_resolve_addr(3)", Cap::kRdmaCm);
TEST_F(CmErrorTest, MixedAddressFamiliesAreRefused) {
  ASSERT_OK_AND_ASSIGN(sockaddr_storage address, SelectionAddress(selection()));
  sockaddr_storage other{};
  if (address.ss_family == AF_INET) {
    other.ss_family = AF_INET6;
    reinterpret_cast<sockaddr_in6*>(&other)->sin6_addr = in6addr_loopback;
  } else {
    other.ss_family = AF_INET;
    reinterpret_cast<sockaddr_in*>(&other)->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  }
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmSide> client, CmSide::Create());
  sockaddr_storage source = WithPort(address, 0);
  other = WithPort(other, 4791);
  if (rdma_resolve_addr(client->id.get(), AsSockaddr(source), AsSockaddr(other), 2000) != 0) {
    RecordProperty("refused", ErrnoName(errno));
    return;
  }
  ASSERT_OK_AND_ASSIGN(CmEventPtr event, WaitCmEvent(client->events()));
  RecordProperty("event", rdma_event_str(event->event));
  EXPECT_EQ(event->event, RDMA_CM_EVENT_ADDR_ERROR) << "gave " << rdma_event_str(event->event);
}

RDMACHECK_ABOUT(CmErrorTest, UnsupportedAddressFamilyIsRefused,
                "rdma_resolve_addr with an AF_UNIX destination fails at once with an errno", "rdma_resolve_addr(3)",
                Cap::kRdmaCm);
TEST_F(CmErrorTest, UnsupportedAddressFamilyIsRefused) {
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmSide> client, CmSide::Create());
  sockaddr_storage bogus{};
  bogus.ss_family = AF_UNIX;
  errno = 0;
  EXPECT_NE(rdma_resolve_addr(client->id.get(), nullptr, AsSockaddr(bogus), 1000), 0);
  EXPECT_NE(errno, 0);
  RecordProperty("errno", ErrnoName(errno));
}

RDMACHECK_ABOUT(CmErrorTest, RouteBeforeAddressIsRefused,
                "rdma_resolve_route on an id that is bound to the device's address but has no destination resolved "
                "fails with EINVAL",
                "rdma_resolve_route(3) (\"must have called rdma_resolve_addr\"); the kernel's RDMA_CM_ADDR_RESOLVED "
                "state check",
                Cap::kRdmaCm);
TEST_F(CmErrorTest, RouteBeforeAddressIsRefused) {
  // Bound first: librdmacm's rdma_resolve_route reads id->verbs, which is null on an id
  // bound to nothing (it crashes there instead of failing).
  ASSERT_OK_AND_ASSIGN(sockaddr_storage address, SelectionAddress(selection()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmSide> client, CmSide::Create());
  sockaddr_storage source = WithPort(address, 0);
  ASSERT_EQ(rdma_bind_addr(client->id.get(), AsSockaddr(source)), 0) << "rdma_bind_addr: errno " << errno;
  ASSERT_NE(client->id->verbs, nullptr);
  errno = 0;
  EXPECT_NE(rdma_resolve_route(client->id.get(), 1000), 0);
  EXPECT_THAT(errno, ErrnoIs(EINVAL));
}

RDMACHECK_ABOUT(CmErrorTest, ConnectBeforeRouteIsRefused,
                "rdma_connect on an id whose address is resolved but whose route is not fails with EINVAL",
                "rdma_connect(3) (\"must have resolved a route\"); rdma_cm(7) active side steps", Cap::kRdmaCm);
TEST_F(CmErrorTest, ConnectBeforeRouteIsRefused) {
  ASSERT_OK_AND_ASSIGN(sockaddr_storage address, SelectionAddress(selection()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmSide> server, CmSide::Create());
  ASSERT_OK_AND_ASSIGN(sockaddr_storage listening, Listen(server->id.get(), address));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<CmSide> client, CmSide::Create());
  sockaddr_storage source = WithPort(address, 0);
  ASSERT_EQ(rdma_resolve_addr(client->id.get(), AsSockaddr(source), AsSockaddr(listening), 2000), 0);
  ASSERT_OK(ExpectCmEvent(client->events(), RDMA_CM_EVENT_ADDR_RESOLVED).status());
  rdma_conn_param param{};
  errno = 0;
  EXPECT_NE(rdma_connect(client->id.get(), &param), 0);
  EXPECT_THAT(errno, ErrnoIs(EINVAL));
}

}  // namespace
}  // namespace rdmacheck
