// Private data: the bytes an application attaches to CONNECT, ACCEPT and REJECT reach the
// other side, up to the transport's limit, and more than the limit is refused.
#include <rdma/rdma_cma.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/patterns.h"
#include "testing/device_test.h"
#include "suites/rdma_cm/cm_side.h"

namespace rdmacheck {
namespace {

// How much private data the application may attach. InfiniBand CM messages carry 92
// (REQ), 196 (REP) and 148 (REJ) bytes, and rdma_cm's own header takes 36 of the REQ's
// (rdma_connect(3): 56 bytes for RDMA_PS_TCP). iWARP's MPA frames carry up to 512 bytes
// (RFC 5044 7.1; RFC 6581 takes 8 for IRD/ORD), more than rdma_conn_param's 8-bit length
// can ask for, so there the limit is 255.
struct Limits {
  int connect;
  int accept;
  int reject;
};
Limits PrivateDataLimits(ibv_transport_type transport) {
  return transport == IBV_TRANSPORT_IWARP ? Limits{255, 255, 255} : Limits{56, 196, 148};
}

// The first `length` bytes of an event's private data, checked against a seeded pattern.
absl::Status CheckPrivateData(const void* data, size_t got, size_t length, uint32_t seed) {
  if (got < length || (length > 0 && data == nullptr)) {
    return absl::DataLossError(absl::StrCat("private data is ", got, " bytes, sent ", length));
  }
  return CheckPattern({static_cast<const uint8_t*>(data), length}, Pattern::Seeded(seed));
}

enum class Amount { kOneByte, kLimit };

class PrivateDataTest : public DeviceTest, public ::testing::WithParamInterface<Amount> {
 protected:
  // A server listening and a client whose route to it is resolved and whose QP exists.
  void SetUpConnection() {
    ASSERT_OK_AND_ASSIGN(sockaddr_storage address, SelectionAddress(selection()));
    ASSERT_OK_AND_ASSIGN(ResolvedCm cm, ListenAndResolve(address));
    server_ = std::move(cm.server);
    client_ = std::move(cm.client);
  }
  static rdma_conn_param Param(const std::vector<uint8_t>& data) {
    rdma_conn_param p{};
    p.private_data = data.empty() ? nullptr : data.data();
    p.private_data_len = static_cast<uint8_t>(data.size());
    p.responder_resources = p.initiator_depth = 1;
    p.retry_count = p.rnr_retry_count = 7;
    return p;
  }
  static std::vector<uint8_t> Data(size_t length, uint32_t seed) {
    std::vector<uint8_t> data(length);
    FillPattern(absl::MakeSpan(data), Pattern::Seeded(seed));
    return data;
  }
  std::unique_ptr<CmSide> server_;
  std::unique_ptr<CmSide> client_;
};

RDMACHECK_ABOUT(PrivateDataTest, CarriedBothWays,
                "private data of 1 byte and of the transport's limit (56 on CONNECT / 196 on ACCEPT over IB CM, 255 "
                "on iWARP) attached to rdma_connect arrives in the CONNECT_REQUEST event, and that attached to "
                "rdma_accept in the active side's ESTABLISHED event, byte for byte",
                "rdma_connect(3), rdma_accept(3) (private_data; lengths per transport); IBTA Vol 1 ch. 12 (CM "
                "messages); RFC 5044 7.1 (MPA private data)",
                Cap::kRdmaCm);
TEST_P(PrivateDataTest, CarriedBothWays) {
  RDMACHECK_REQUIRE_LOOPBACK(kBothCmSidesHere);
  ASSERT_NO_FATAL_FAILURE(SetUpConnection());
  const Limits limits = PrivateDataLimits(selection().transport);
  const size_t connect_length = GetParam() == Amount::kOneByte ? 1 : limits.connect;
  const size_t accept_length = GetParam() == Amount::kOneByte ? 1 : limits.accept;
  const std::vector<uint8_t> connect_data = Data(connect_length, 1);
  rdma_conn_param connect = Param(connect_data);
  ASSERT_EQ(rdma_connect(client_->id.get(), &connect), 0) << "rdma_connect: errno " << errno;
  {
    ASSERT_OK_AND_ASSIGN(CmEventPtr request, ExpectCmEvent(server_->events(), RDMA_CM_EVENT_CONNECT_REQUEST));
    server_->id.reset(request->id);
    EXPECT_OK(CheckPrivateData(request->param.conn.private_data, request->param.conn.private_data_len,
                               connect_length, 1))
        << "CONNECT private data";
  }
  ASSERT_OK(server_->AddQp());
  const std::vector<uint8_t> accept_data = Data(accept_length, 2);
  rdma_conn_param accept = Param(accept_data);
  ASSERT_EQ(rdma_accept(server_->id.get(), &accept), 0) << "rdma_accept: errno " << errno;
  ASSERT_OK_AND_ASSIGN(CmEventPtr established, ExpectCmEvent(client_->events(), RDMA_CM_EVENT_ESTABLISHED));
  EXPECT_OK(CheckPrivateData(established->param.conn.private_data, established->param.conn.private_data_len,
                             accept_length, 2))
      << "ACCEPT private data";
  ASSERT_OK(ExpectCmEvent(server_->events(), RDMA_CM_EVENT_ESTABLISHED).status());
}

RDMACHECK_ABOUT(PrivateDataTest, CarriedByReject,
                "private data of 1 byte and of the transport's REJECT limit (148 over IB CM, 255 on iWARP) given to "
                "rdma_reject arrives in the active side's REJECTED event",
                "rdma_reject(3); IBTA Vol 1 ch. 12 (REJ private data); RFC 5044 7.1", Cap::kRdmaCm);
TEST_P(PrivateDataTest, CarriedByReject) {
  RDMACHECK_REQUIRE_LOOPBACK(kBothCmSidesHere);
  ASSERT_NO_FATAL_FAILURE(SetUpConnection());
  const size_t length = GetParam() == Amount::kOneByte ? 1 : PrivateDataLimits(selection().transport).reject;
  rdma_conn_param connect = Param({});
  ASSERT_EQ(rdma_connect(client_->id.get(), &connect), 0) << "rdma_connect: errno " << errno;
  {
    ASSERT_OK_AND_ASSIGN(CmEventPtr request, ExpectCmEvent(server_->events(), RDMA_CM_EVENT_CONNECT_REQUEST));
    server_->id.reset(request->id);
  }
  const std::vector<uint8_t> data = Data(length, 3);
  ASSERT_EQ(rdma_reject(server_->id.get(), data.data(), static_cast<uint8_t>(data.size())), 0)
      << "rdma_reject: errno " << errno;
  ASSERT_OK_AND_ASSIGN(CmEventPtr rejected, ExpectCmEvent(client_->events(), RDMA_CM_EVENT_REJECTED));
  RecordProperty("reject_status", rejected->status);
  EXPECT_OK(CheckPrivateData(rejected->param.conn.private_data, rejected->param.conn.private_data_len, length, 3));
}

INSTANTIATE_TEST_SUITE_P(Amount, PrivateDataTest, ::testing::Values(Amount::kOneByte, Amount::kLimit),
                         [](const ::testing::TestParamInfo<Amount>& info) {
                           return std::string(info.param == Amount::kOneByte ? "OneByte" : "Limit");
                         });

class PrivateDataLimitTest : public PrivateDataTest {};

RDMACHECK_ABOUT(PrivateDataLimitTest, OneByteOverTheLimitIsRefused,
                "rdma_connect with one byte more private data than the transport carries fails with EINVAL instead "
                "of truncating (IB CM: 57 bytes); on iWARP no 8-bit length exceeds the limit, so there is nothing "
                "to refuse",
                "rdma_connect(3) (\"limited to 56 bytes for RDMA_PS_TCP\")", Cap::kRdmaCm);
TEST_F(PrivateDataLimitTest, OneByteOverTheLimitIsRefused) {
  RDMACHECK_REQUIRE_LOOPBACK(kBothCmSidesHere);
  const int limit = PrivateDataLimits(selection().transport).connect;
  if (limit >= 255) GTEST_SKIP() << "the transport's private data limit is above rdma_conn_param's 8-bit length";
  ASSERT_NO_FATAL_FAILURE(SetUpConnection());
  const std::vector<uint8_t> data = Data(limit + 1, 4);
  rdma_conn_param connect = Param(data);
  errno = 0;
  EXPECT_NE(rdma_connect(client_->id.get(), &connect), 0) << "rdma_connect took " << limit + 1 << " bytes";
  EXPECT_THAT(errno, ErrnoIs(EINVAL));
}

}  // namespace
}  // namespace rdmacheck
