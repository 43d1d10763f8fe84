// On-demand paging (ibv_reg_mr(3) IBV_ACCESS_ON_DEMAND, explicit ODP): the MR pins nothing;
// the device faults pages in when traffic reaches them and follows the process's page
// tables when they change. Traffic into pages never touched, ibv_advise_mr(3) prefetch,
// memory unmapped and mapped again under a live MR, and each RC operation the device
// declares in odp_caps.per_transport_caps.rc_odp_caps (declared vs works).
//
// The ODP MR is registered on the responder's PD in this process: loopback only.
#include <infiniband/verbs.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "harness/status.h"
#include "harness/verbs/factories.h"
#include "testing/completion_matchers.h"
#include "testing/pair_test.h"

namespace rdmacheck {
namespace {

constexpr size_t kPages = 16;
constexpr size_t kPage = 4096;
constexpr uint32_t kBytes = kPages * kPage;
constexpr int kRemoteAccess =
    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

// Anonymous private pages nobody has touched yet (each reads as zero once faulted in).
class FreshPages {
 public:
  FreshPages() {
    void* p = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    addr_ = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
  }
  ~FreshPages() {
    if (addr_ != nullptr) munmap(addr_, kBytes);
  }
  FreshPages(const FreshPages&) = delete;
  FreshPages& operator=(const FreshPages&) = delete;

  uint8_t* data() const { return addr_; }
  absl::Span<uint8_t> span() const { return {addr_, kBytes}; }
  // munmap, then new anonymous pages at the same address (what an ODP MR must follow).
  absl::Status UnmapAndMapAgain() {
    if (munmap(addr_, kBytes) != 0) return ErrnoStatus(errno, "munmap");
    void* p = mmap(addr_, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED) {
      addr_ = nullptr;
      return ErrnoStatus(errno, "mmap(MAP_FIXED) at the same address");
    }
    return absl::OkStatus();
  }

 private:
  uint8_t* addr_ = nullptr;
};

// Whether `bytes` (whole pages) hold `pattern`; if not, and the first wrong page starts with
// bytes the pattern has elsewhere in that page, says where they were meant to go: a device
// that places each packet at the start of its page instead of at its offset shows that way.
absl::Status PagesHold(absl::Span<const uint8_t> bytes, Pattern pattern) {
  absl::Status plain = CheckPattern(bytes, pattern);
  if (plain.ok()) return plain;
  constexpr size_t kProbe = 64;
  for (size_t page = 0; page * kPage < bytes.size(); ++page) {
    const size_t base = page * kPage;
    if (CheckPattern(bytes.subspan(base, kPage), Pattern::Constant(0)).ok() && pattern.At(base) != 0) continue;
    bool first_right = true;
    for (size_t i = 0; i < kProbe && first_right; ++i) first_right = bytes[base + i] == pattern.At(base + i);
    if (first_right) continue;
    for (size_t meant = 1; meant + kProbe <= kPage; ++meant) {
      bool same = true;
      for (size_t i = 0; i < kProbe && same; ++i) same = bytes[base + i] == pattern.At(base + meant + i);
      if (same) {
        return absl::DataLossError(absl::StrCat("the bytes at offset 0 of page ", page,
                                                " are those written for its offset ", meant, " (",
                                                plain.message(), ")"));
      }
    }
    break;
  }
  return plain;
}

const char* RcOdpBitName(uint32_t bit) {
  switch (bit) {
    case IBV_ODP_SUPPORT_SEND: return "SEND";
    case IBV_ODP_SUPPORT_RECV: return "RECV";
    case IBV_ODP_SUPPORT_WRITE: return "WRITE";
    case IBV_ODP_SUPPORT_READ: return "READ";
    case IBV_ODP_SUPPORT_ATOMIC: return "ATOMIC";
  }
  return "?";
}

class OdpTest : public PairTest {
 protected:
  static bool RcDeclares(uint32_t bit) { return device_attr().odp_caps.per_transport_caps.rc_odp_caps & bit; }
  static std::string NotDeclared(uint32_t bit) {
    return absl::StrCat("odp_caps.per_transport_caps.rc_odp_caps lacks ", RcOdpBitName(bit),
                        ": ODP MRs are not declared for that RC operation");
  }
  PairOptions OdpOptions() const {
    PairOptions o = Options();
    o.buffer_size = kBytes;
    o.EnableAtomics();
    return o;
  }
  // An ODP MR over `pages` on the responder's PD.
  static absl::StatusOr<MrPtr> OdpMr(ConnectedPair& pair, const FreshPages& pages, int access = kRemoteAccess) {
    if (pages.data() == nullptr) return absl::InternalError("mmap of the test pages failed");
    return RegMr(pair.remote().pd(), pages.data(), kBytes, access | IBV_ACCESS_ON_DEMAND);
  }
  static RemoteBuffer Target(const ibv_mr* mr) {
    return {reinterpret_cast<uint64_t>(mr->addr), mr->rkey, static_cast<uint32_t>(mr->length)};
  }
  // A signaled WRITE of the local buffer's first kBytes to `target`, its completion checked.
  static void Write(ConnectedPair& pair, uint64_t wr_id, const RemoteBuffer& target) {
    ASSERT_OK(pair.local().Post(SendRequest::Write(wr_id, {{0, kBytes}}, target)));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(SendCompletion(wr_id, pair.local().qp_num(), IBV_WC_RDMA_WRITE)));
  }
  static void Read(ConnectedPair& pair, uint64_t wr_id, const RemoteBuffer& target) {
    ASSERT_OK(pair.local().Post(SendRequest::Read(wr_id, {{0, kBytes}}, target)));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(SendCompletion(wr_id, pair.local().qp_num(), IBV_WC_RDMA_READ).WithLength(kBytes)));
  }
};

RDMACHECK_ABOUT(OdpTest, WriteIntoUntouchedPages,
                "a 64 KiB RDMA WRITE into an ODP MR over 16 anonymous pages the process never touched completes "
                "successfully and every byte is in the pages afterwards (the device faults them in)",
                "ibv_reg_mr(3) IBV_ACCESS_ON_DEMAND; ibv_query_device_ex(3) odp_caps (rc_odp_caps WRITE)",
                Cap::kRcQp, Cap::kOdp, Cap::kRdmaWrite);
TEST_P(OdpTest, WriteIntoUntouchedPages) {
  RDMACHECK_REQUIRE_LOOPBACK("the ODP MR is registered on the responder's PD");
  if (!RcDeclares(IBV_ODP_SUPPORT_WRITE)) GTEST_SKIP() << NotDeclared(IBV_ODP_SUPPORT_WRITE);
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(OdpOptions()));
  FreshPages pages;
  ASSERT_OK_AND_ASSIGN(MrPtr mr, OdpMr(pair, pages));
  ASSERT_OK(pair.local().Fill({0, kBytes}, Pattern::Seeded(21)));
  ASSERT_NO_FATAL_FAILURE(Write(pair, 1, Target(mr.get())));
  EXPECT_OK(PagesHold(pages.span(), Pattern::Seeded(21)));
}

RDMACHECK_ABOUT(OdpTest, ReadFromUntouchedPagesGivesZeros,
                "a 64 KiB RDMA READ from an ODP MR over anonymous pages never touched returns zeros, as the process "
                "would read them",
                "ibv_reg_mr(3) IBV_ACCESS_ON_DEMAND; mmap(2) (MAP_ANONYMOUS: initialized to zero); rc_odp_caps READ",
                Cap::kRcQp, Cap::kOdp, Cap::kRdmaRead);
TEST_P(OdpTest, ReadFromUntouchedPagesGivesZeros) {
  RDMACHECK_REQUIRE_LOOPBACK("the ODP MR is registered on the responder's PD");
  if (!RcDeclares(IBV_ODP_SUPPORT_READ)) GTEST_SKIP() << NotDeclared(IBV_ODP_SUPPORT_READ);
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(OdpOptions()));
  FreshPages pages;
  ASSERT_OK_AND_ASSIGN(MrPtr mr, OdpMr(pair, pages));
  ASSERT_OK(pair.local().Fill({0, kBytes}, Pattern::Constant(0xaa)));
  ASSERT_NO_FATAL_FAILURE(Read(pair, 1, Target(mr.get())));
  EXPECT_OK(pair.local().Check({0, kBytes}, Pattern::Constant(0)));
}

RDMACHECK_ABOUT(OdpTest, PrefetchThenWrite,
                "ibv_advise_mr(IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH) over an ODP MR's "
                "untouched pages returns 0, and a WRITE into them afterwards lands intact (a device without "
                "prefetch refuses the call with EOPNOTSUPP: the test then skips with that evidence)",
                "ibv_advise_mr(3)", Cap::kRcQp, Cap::kOdp, Cap::kRdmaWrite);
TEST_P(OdpTest, PrefetchThenWrite) {
  RDMACHECK_REQUIRE_LOOPBACK("the ODP MR is registered on the responder's PD");
  if (!RcDeclares(IBV_ODP_SUPPORT_WRITE)) GTEST_SKIP() << NotDeclared(IBV_ODP_SUPPORT_WRITE);
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(OdpOptions()));
  FreshPages pages;
  ASSERT_OK_AND_ASSIGN(MrPtr mr, OdpMr(pair, pages));
  ibv_sge sge = MakeSge(mr.get(), 0, kBytes);
  int rc = ibv_advise_mr(pair.remote().pd(), IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
  RecordProperty("advise_mr", rc == 0 ? std::string("0") : ErrnoName(rc));
  std::cout << "[ NOTE     ] ibv_advise_mr(PREFETCH_WRITE): " << (rc == 0 ? std::string("0") : ErrnoName(rc)) << std::endl;
  if (rc == EOPNOTSUPP) GTEST_SKIP() << "ibv_advise_mr(PREFETCH_WRITE) refused: EOPNOTSUPP (no prefetch)";
  ASSERT_EQ(rc, 0) << "ibv_advise_mr(PREFETCH_WRITE, FLAG_FLUSH): " << ErrnoName(rc);
  ASSERT_OK(pair.local().Fill({0, kBytes}, Pattern::Seeded(22)));
  ASSERT_NO_FATAL_FAILURE(Write(pair, 1, Target(mr.get())));
  EXPECT_OK(PagesHold(pages.span(), Pattern::Seeded(22)));
}

RDMACHECK_ABOUT(OdpTest, UnmappedAndMappedAgain,
                "after a WRITE into an ODP MR, its pages are unmapped and new anonymous pages mapped at the same "
                "address: a READ then returns zeros (not the old bytes) and the next WRITE lands in the new pages "
                "(the device follows the page tables instead of the pages it faulted in first)",
                "ibv_reg_mr(3) IBV_ACCESS_ON_DEMAND (the MR covers the address range, not pages); munmap(2), mmap(2)",
                Cap::kRcQp, Cap::kOdp, Cap::kRdmaWrite, Cap::kRdmaRead);
TEST_P(OdpTest, UnmappedAndMappedAgain) {
  RDMACHECK_REQUIRE_LOOPBACK("the ODP MR is registered on the responder's PD");
  if (!RcDeclares(IBV_ODP_SUPPORT_WRITE)) GTEST_SKIP() << NotDeclared(IBV_ODP_SUPPORT_WRITE);
  if (!RcDeclares(IBV_ODP_SUPPORT_READ)) GTEST_SKIP() << NotDeclared(IBV_ODP_SUPPORT_READ);
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(OdpOptions()));
  FreshPages pages;
  ASSERT_OK_AND_ASSIGN(MrPtr mr, OdpMr(pair, pages));
  ASSERT_OK(pair.local().Fill({0, kBytes}, Pattern::Seeded(23)));
  ASSERT_NO_FATAL_FAILURE(Write(pair, 1, Target(mr.get())));
  ASSERT_OK(PagesHold(pages.span(), Pattern::Seeded(23)));

  ASSERT_OK(pages.UnmapAndMapAgain());
  ASSERT_OK(pair.local().Fill({0, kBytes}, Pattern::Constant(0xaa)));
  ASSERT_NO_FATAL_FAILURE(Read(pair, 2, Target(mr.get())));
  EXPECT_OK(pair.local().Check({0, kBytes}, Pattern::Constant(0))) << "the READ after the remap";

  ASSERT_OK(pair.local().Fill({0, kBytes}, Pattern::Seeded(24)));
  ASSERT_NO_FATAL_FAILURE(Write(pair, 3, Target(mr.get())));
  EXPECT_OK(PagesHold(pages.span(), Pattern::Seeded(24))) << "the WRITE after the remap";
}

RDMACHECK_ABOUT(OdpTest, DeclaredSendRecvAndAtomicWork,
                "each of SEND, RECV and ATOMIC that rc_odp_caps declares works with ODP memory: a SEND from "
                "untouched ODP pages delivers their zeros, a receive into untouched ODP pages gets the message, a "
                "fetch-and-add on a word of untouched ODP pages returns 0 and leaves the addend (the operations "
                "run are recorded as declared_rc)",
                "ibv_query_device_ex(3) odp_caps.per_transport_caps.rc_odp_caps; ibv_reg_mr(3) IBV_ACCESS_ON_DEMAND",
                Cap::kRcQp, Cap::kOdp);
TEST_P(OdpTest, DeclaredSendRecvAndAtomicWork) {
  RDMACHECK_REQUIRE_LOOPBACK("the ODP MRs are registered on the PDs of both endpoints");
  std::string ran;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(OdpOptions()));
  if (RcDeclares(IBV_ODP_SUPPORT_SEND)) {
    SCOPED_TRACE("SEND from ODP memory");
    absl::StrAppend(&ran, "SEND ");
    FreshPages pages;
    ASSERT_NE(pages.data(), nullptr);
    ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pair.local().pd(), pages.data(), kBytes,
                                         IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND));
    ASSERT_OK(pair.remote().Fill({0, kPage}, Pattern::Constant(0xaa)));
    ASSERT_OK(pair.remote().PostRecv(1, 0, kPage));
    ibv_sge sge = MakeSge(mr.get(), 0, kPage);
    ibv_send_wr wr = SendWr(1, &sge, 1);
    ASSERT_OK(pair.local().PostSend(wr));
    ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
    EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), kPage)));
    ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
    EXPECT_THAT(send, CompletionIs(SendCompletion(1, pair.local().qp_num())));
    EXPECT_OK(pair.remote().Check({0, kPage}, Pattern::Constant(0)));
  }
  if (RcDeclares(IBV_ODP_SUPPORT_RECV)) {
    SCOPED_TRACE("receive into ODP memory");
    absl::StrAppend(&ran, "RECV ");
    FreshPages pages;
    ASSERT_OK_AND_ASSIGN(MrPtr mr, OdpMr(pair, pages, IBV_ACCESS_LOCAL_WRITE));
    ibv_sge sge = MakeSge(mr.get(), kPage, kPage);
    ibv_recv_wr wr = RecvWr(2, &sge, 1);
    ASSERT_OK(PostRecv(pair.remote().qp(), wr));
    ASSERT_OK(pair.local().Fill({0, kPage}, Pattern::Seeded(25)));
    ASSERT_OK(pair.local().Post(SendRequest::Send(2, {{0, kPage}})));
    ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
    EXPECT_THAT(recv, CompletionIs(RecvCompletion(2, pair.remote().qp_num(), kPage)));
    ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
    EXPECT_THAT(send, CompletionIs(SendCompletion(2, pair.local().qp_num())));
    EXPECT_OK(PagesHold(pages.span().subspan(kPage, kPage), Pattern::Seeded(25)));
  }
  if (RcDeclares(IBV_ODP_SUPPORT_ATOMIC)) {
    SCOPED_TRACE("fetch-and-add on ODP memory");
    absl::StrAppend(&ran, "ATOMIC ");
    FreshPages pages;
    ASSERT_OK_AND_ASSIGN(MrPtr mr, OdpMr(pair, pages));
    const RemoteBuffer word = Target(mr.get()).At(5 * kPage + 64, 8);
    ASSERT_OK(pair.local().WriteU64(0, 0xdeaddeaddeaddeadULL));
    ASSERT_OK(pair.local().Post(SendRequest::FetchAdd(3, {0, 8}, word, 0x1234)));
    ASSERT_OK_AND_ASSIGN(ibv_wc wc, pair.local().PollSend());
    EXPECT_THAT(wc, CompletionIs(SendCompletion(3, pair.local().qp_num(), IBV_WC_FETCH_ADD)));
    EXPECT_THAT(pair.local().ReadU64(0), IsOkAndHolds(0u));
    uint64_t value = 0;
    std::memcpy(&value, pages.data() + 5 * kPage + 64, 8);
    EXPECT_EQ(value, 0x1234u);
  }
  RecordProperty("declared_rc", ran.empty() ? "none" : ran);
  std::cout << "[ NOTE     ] rc_odp_caps declares (of SEND RECV ATOMIC): " << (ran.empty() ? "none" : ran) << std::endl;
  if (ran.empty()) GTEST_SKIP() << "rc_odp_caps declares none of SEND, RECV, ATOMIC";
}

INSTANTIATE_TEST_SUITE_P(Connect, OdpTest, AllConnectMethods(), ConnectMethodParamName);

// UD: what ud_odp_caps declares (SEND, RECV), with the receive's 40 GRH bytes in front.
class UdOdpTest : public DeviceTest {};

constexpr uint32_t kGrh = 40;  // IBTA Vol 1 11.4.1.2: a UD receive buffer starts with 40 bytes for the GRH
constexpr uint32_t kUdBytes = 256;

RDMACHECK_ABOUT(UdOdpTest, DeclaredSendAndRecvWork,
                "each of SEND and RECV that ud_odp_caps declares works with ODP memory on a UD QP: a 256-byte SEND "
                "from untouched ODP pages delivers their zeros, and a receive into untouched ODP pages gets the "
                "message 40 bytes in, behind its GRH (the operations run are recorded as declared_ud)",
                "ibv_query_device_ex(3) odp_caps.per_transport_caps.ud_odp_caps; IBTA Vol 1 11.4.1.2 (the GRH in "
                "front of a UD receive)",
                Cap::kUdQp, Cap::kAddressHandle, Cap::kOdp);
TEST_F(UdOdpTest, DeclaredSendAndRecvWork) {
  RDMACHECK_REQUIRE_LOOPBACK("the ODP MRs are registered on the PDs of both endpoints");
  const uint32_t ud = device_attr().odp_caps.per_transport_caps.ud_odp_caps;
  PairOptions options;
  options.qp_type = IBV_QPT_UD;
  options.method = ConnectMethod::kManual;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  std::string ran;
  if (ud & IBV_ODP_SUPPORT_SEND) {
    SCOPED_TRACE("UD SEND from ODP memory");
    absl::StrAppend(&ran, "SEND ");
    FreshPages pages;
    ASSERT_NE(pages.data(), nullptr);
    ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pair.local().pd(), pages.data(), kBytes,
                                         IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND));
    ASSERT_OK(pair.remote().Fill({0, kGrh + kUdBytes}, Pattern::Constant(0xaa)));
    ASSERT_OK(pair.remote().PostRecv(1, 0, kGrh + kUdBytes));
    ibv_sge sge = MakeSge(mr.get(), 0, kUdBytes);
    ibv_send_wr wr = SendWr(1, &sge, 1);
    wr.wr.ud.ah = pair.local().peer_ah();
    wr.wr.ud.remote_qpn = pair.local().peer_address().qp_num;
    wr.wr.ud.remote_qkey = pair.local().qkey();
    ASSERT_OK(pair.local().PostSend(wr));
    ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
    EXPECT_THAT(send, CompletionIs(SendCompletion(1, pair.local().qp_num())));
    ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
    EXPECT_THAT(recv, CompletionIs(RecvCompletion(1, pair.remote().qp_num(), kGrh + kUdBytes)
                                       .FromUd(pair.local().qp_num())));
    EXPECT_OK(pair.remote().Check({kGrh, kUdBytes}, Pattern::Constant(0)));
  }
  if (ud & IBV_ODP_SUPPORT_RECV) {
    SCOPED_TRACE("UD receive into ODP memory");
    absl::StrAppend(&ran, "RECV ");
    FreshPages pages;
    ASSERT_NE(pages.data(), nullptr);
    ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pair.remote().pd(), pages.data(), kBytes,
                                         IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_ON_DEMAND));
    ibv_sge sge = MakeSge(mr.get(), 0, kGrh + kUdBytes);
    ibv_recv_wr wr = RecvWr(2, &sge, 1);
    ASSERT_OK(PostRecv(pair.remote().qp(), wr));
    ASSERT_OK(pair.local().Fill({0, kUdBytes}, Pattern::Seeded(26)));
    ASSERT_OK(pair.local().Post(SendRequest::Send(2, {{0, kUdBytes}})));
    ASSERT_OK_AND_ASSIGN(ibv_wc send, pair.local().PollSend());
    EXPECT_THAT(send, CompletionIs(SendCompletion(2, pair.local().qp_num())));
    ASSERT_OK_AND_ASSIGN(ibv_wc recv, pair.remote().PollRecv());
    EXPECT_THAT(recv, CompletionIs(RecvCompletion(2, pair.remote().qp_num(), kGrh + kUdBytes)
                                       .FromUd(pair.local().qp_num())));
    const absl::Span<const uint8_t> buffer(pages.data(), kGrh + kUdBytes);
    absl::Status payload = CheckPattern(buffer.subspan(kGrh, kUdBytes), Pattern::Seeded(26));
    if (!payload.ok() && CheckPattern(buffer.subspan(0, kUdBytes), Pattern::Seeded(26)).ok()) {
      payload = absl::DataLossError(absl::StrCat("the payload landed at offset 0 of the receive buffer, over the GRH (",
                                                 payload.message(), ")"));
    }
    EXPECT_OK(payload);
  }
  RecordProperty("declared_ud", ran.empty() ? "none" : ran);
  std::cout << "[ NOTE     ] ud_odp_caps declares (of SEND RECV): " << (ran.empty() ? "none" : ran) << std::endl;
  if (ran.empty()) GTEST_SKIP() << "ud_odp_caps declares neither SEND nor RECV";
}

}  // namespace
}  // namespace rdmacheck
