// Protection domains: allocation, and the rule that a PD outlives what uses it.
#include <infiniband/verbs.h>

#include <set>
#include <vector>

#include "testing/device_test.h"
#include "harness/verbs/factories.h"

namespace rdmacheck {
namespace {

class PdTest : public DeviceTest {};

RDMACHECK_ABOUT(PdTest, AllocAndDealloc, "a PD is allocated on the context and deallocated with 0",
                "ibv_alloc_pd(3)");
TEST_F(PdTest, AllocAndDealloc) {
  ibv_pd* pd = ibv_alloc_pd(context());
  ASSERT_NE(pd, nullptr) << ErrnoName(errno);
  EXPECT_EQ(pd->context, context());
  EXPECT_THAT(ibv_dealloc_pd(pd), ErrnoIs(0));
}

RDMACHECK_ABOUT(PdTest, ManyPdsAreDistinct,
                "min(max_pd - 1, 256) PDs can be live at once, each with its own handle",
                "ibv_alloc_pd(3); ibv_query_device(3) max_pd");
RDMACHECK_RUNS_ALONE(PdTest, ManyPdsAreDistinct,
                    "max_pd counts the PDs of every process on the device: tests running beside it hold some");
TEST_F(PdTest, ManyPdsAreDistinct) {
  // One PD fewer than the limit: the run's own objects may hold one.
  const int count = std::min(device_attr().orig_attr.max_pd - 1, 256);
  std::vector<PdPtr> pds;
  std::set<uint32_t> handles;
  for (int i = 0; i < count; ++i) {
    ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
    handles.insert(pd->handle);
    pds.push_back(std::move(pd));
  }
  EXPECT_EQ(handles.size(), pds.size());
}

class PdInUseTest : public DeviceTest {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
  }

  // Deallocates the PD, expecting EBUSY because `user` still uses it; the PD stays usable.
  void ExpectDeallocBusyAndPdUsable() {
    EXPECT_THAT(ibv_dealloc_pd(pd_.get()), ErrnoIs(EBUSY));
    std::vector<uint8_t> more(64);
    EXPECT_OK(RegMr(pd_.get(), absl::MakeSpan(more), IBV_ACCESS_LOCAL_WRITE))
        << "a PD whose dealloc was refused must keep working";
  }

  std::vector<uint8_t> buffer_ = std::vector<uint8_t>(4096);
  PdPtr pd_;
};

RDMACHECK_ABOUT(PdInUseTest, DeallocWithLiveMrFailsBusy,
                "dealloc_pd refuses with EBUSY while an MR uses the PD, leaves the PD usable, and succeeds once "
                "the MR is gone",
                "ibv_alloc_pd(3): \"EBUSY: PD is still in use\"; IBTA Vol 1 11.2.3 (Deallocate PD)");
TEST_F(PdInUseTest, DeallocWithLiveMrFailsBusy) {
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pd_.get(), absl::MakeSpan(buffer_), IBV_ACCESS_LOCAL_WRITE));
  ExpectDeallocBusyAndPdUsable();
  mr.reset();
  EXPECT_THAT(ibv_dealloc_pd(pd_.release()), ErrnoIs(0));
}

RDMACHECK_ABOUT(PdInUseTest, DeallocWithLiveAhFailsBusy,
                "dealloc_pd refuses with EBUSY while an address handle uses the PD, leaves the PD usable, and "
                "succeeds once the AH is destroyed",
                "ibv_alloc_pd(3); IBTA Vol 1 11.2.3", Cap::kAddressHandle);
TEST_F(PdInUseTest, DeallocWithLiveAhFailsBusy) {
  const QpAddress self{0, selection().port_attr.lid, selection().gid.gid, 0};
  ASSERT_OK_AND_ASSIGN(AhPtr ah, CreateAh(pd_.get(), AddressTo(self, PathFor(selection(), {}))));
  ExpectDeallocBusyAndPdUsable();
  ah.reset();
  EXPECT_THAT(ibv_dealloc_pd(pd_.release()), ErrnoIs(0));
}

RDMACHECK_ABOUT(PdInUseTest, DeallocWithLiveQpFailsBusy,
                "dealloc_pd refuses with EBUSY while a QP uses the PD, and succeeds once the QP is destroyed",
                "ibv_alloc_pd(3); IBTA Vol 1 11.2.3", Cap::kRcQp);
TEST_F(PdInUseTest, DeallocWithLiveQpFailsBusy) {
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 4));
  ASSERT_OK_AND_ASSIGN(QpPtr qp, CreateQp(pd_.get(), QpInitAttr(IBV_QPT_RC, cq.get())));
  ExpectDeallocBusyAndPdUsable();
  qp.reset();
  EXPECT_THAT(ibv_dealloc_pd(pd_.release()), ErrnoIs(0));
}

RDMACHECK_ABOUT(PdInUseTest, DeallocWithLiveSrqFailsBusy,
                "dealloc_pd refuses with EBUSY while an SRQ uses the PD, and succeeds once the SRQ is destroyed",
                "ibv_alloc_pd(3); IBTA Vol 1 11.2.3", Cap::kSrq);
TEST_F(PdInUseTest, DeallocWithLiveSrqFailsBusy) {
  ibv_srq_init_attr attr{};
  attr.attr.max_wr = 4;
  attr.attr.max_sge = 1;
  ASSERT_OK_AND_ASSIGN(SrqPtr srq, CreateSrq(pd_.get(), attr));
  ExpectDeallocBusyAndPdUsable();
  srq.reset();
  EXPECT_THAT(ibv_dealloc_pd(pd_.release()), ErrnoIs(0));
}

class PdContextTest : public DeviceTest {};

RDMACHECK_ABOUT(PdContextTest, QpRejectsCqOfAnotherContext,
                "a QP cannot be created on a PD of one context with CQs of another: the kernel looks handles up "
                "per context",
                "ibv_create_qp(3); Linux uverbs handle lookup per file", Cap::kRcQp);
TEST_F(PdContextTest, QpRejectsCqOfAnotherContext) {
  ContextPtr other(ibv_open_device(context()->device));
  ASSERT_NE(other, nullptr) << ErrnoName(errno);
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(other.get()));  // `other` holds a PD and no CQ
  ASSERT_OK_AND_ASSIGN(CqPtr cq, CreateCq(context(), 4));
  ibv_qp_init_attr attr = QpInitAttr(IBV_QPT_RC, cq.get());
  errno = 0;
  QpPtr qp(ibv_create_qp(pd.get(), &attr));
  EXPECT_EQ(qp, nullptr) << "the QP was created with a CQ of another context";
  if (!qp) {
    EXPECT_THAT(errno, ErrnoIs(EINVAL));
  }
}

RDMACHECK_ABOUT(PdContextTest, PdsOfTwoContextsAreIndependent,
                "deallocating a PD in one context does not disturb an MR on a PD of another context of the same "
                "device",
                "ibv_open_device(3), ibv_alloc_pd(3)");
TEST_F(PdContextTest, PdsOfTwoContextsAreIndependent) {
  ContextPtr other(ibv_open_device(context()->device));
  ASSERT_NE(other, nullptr) << ErrnoName(errno);
  ASSERT_OK_AND_ASSIGN(PdPtr mine, AllocPd(context()));
  ASSERT_OK_AND_ASSIGN(PdPtr theirs, AllocPd(other.get()));
  std::vector<uint8_t> buffer(4096);
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(mine.get(), absl::MakeSpan(buffer), IBV_ACCESS_LOCAL_WRITE));
  EXPECT_THAT(ibv_dealloc_pd(theirs.release()), ErrnoIs(0));
  other.reset();
  EXPECT_THAT(ibv_dereg_mr(mr.release()), ErrnoIs(0)) << "the MR of the first context must be intact";
}

}  // namespace
}  // namespace rdmacheck
