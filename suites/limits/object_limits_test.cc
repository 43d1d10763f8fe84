// The device's object limits (ibv_query_device(3): max_pd, max_cq, max_mr, max_qp, max_srq,
// max_ah, max_mw): as many objects as the device declares can be live at once, one more is
// refused cleanly (NULL and an errno, nothing half-made), and every one is released.
//
// The budget, per object type: at most kMaxObjects objects (the smallest of each: a CQ of
// one entry, a QP of depth 1, an MR over one shared page, an SRQ of one WR) and at most
// kTimeBudget (scaled by --timeout_multiplier) of creating. A device whose declared limit
// lies beyond the budget has the budget's worth created, each checked, and the refusal
// at the limit is not reached (the failure message would say so; the test's property
// "rdmacheck_limit" says how far it went). The lab's rxe and siw declare limits in the
// tens of thousands, far beyond it; NICs with small limits (AHs, SRQs, MWs) meet them.
//
// Limits are device-wide: every process's objects, and the kernel's own (the MAD layer's
// QP1, PD and CQs on RoCE), count against them. The test counts what is there before it
// starts (RDMA netlink, as `rdma resource show` does; AHs and MWs are not tracked there)
// and runs alone.
#include <infiniband/verbs.h>

#include <cerrno>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "capabilities/system/rdma_netlink.h"
#include "harness/status.h"
#include "harness/timeouts.h"
#include "harness/verbs/factories.h"
#include "testing/device_test.h"

namespace rdmacheck {
namespace {

constexpr int kMaxObjects = 2048;
constexpr absl::Duration kTimeBudget = absl::Seconds(30);

enum class Kind { kPd, kCq, kMr, kQp, kSrq, kAh, kMw };

struct KindInfo {
  Kind kind;
  const char* name;     // the test parameter: "Pd"
  const char* limit;    // the ibv_device_attr field
  const char* netlink;  // the RDMA netlink resource type, "" when the kernel does not track it
  std::optional<Cap> needs;
};

constexpr KindInfo kKinds[] = {
    {Kind::kPd, "Pd", "max_pd", "pd", std::nullopt},
    {Kind::kCq, "Cq", "max_cq", "cq", std::nullopt},
    {Kind::kMr, "Mr", "max_mr", "mr", std::nullopt},
    {Kind::kQp, "Qp", "max_qp", "qp", Cap::kRcQp},
    {Kind::kSrq, "Srq", "max_srq", "srq", Cap::kSrq},
    {Kind::kAh, "Ah", "max_ah", "", Cap::kAddressHandle},
    {Kind::kMw, "Mw", "max_mw", "", Cap::kMwType1},
};

int DeclaredLimit(const ibv_device_attr& attr, Kind kind) {
  switch (kind) {
    case Kind::kPd: return attr.max_pd;
    case Kind::kCq: return attr.max_cq;
    case Kind::kMr: return attr.max_mr;
    case Kind::kQp: return attr.max_qp;
    case Kind::kSrq: return attr.max_srq;
    case Kind::kAh: return attr.max_ah;
    case Kind::kMw: return attr.max_mw;
  }
  return 0;
}

std::string KindName(const ::testing::TestParamInfo<KindInfo>& info) { return info.param.name; }

// One object, kept alive by its owner (whose deleter releases it; a failed release fails
// the test through DeviceTest).
using Object = std::shared_ptr<void>;

class ObjectLimitTest : public DeviceTest, public ::testing::WithParamInterface<KindInfo> {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    if (GetParam().needs) RDMACHECK_REQUIRE(*GetParam().needs);
    ASSERT_OK_AND_ASSIGN(pd_, AllocPd(context()));
    ASSERT_OK_AND_ASSIGN(cq_, CreateCq(context(), 1));
    ASSERT_OK_AND_ASSIGN(page_mr_, RegMr(pd_.get(), absl::MakeSpan(page_), IBV_ACCESS_LOCAL_WRITE));
  }

  // The objects of this type on the device now, or nullopt when netlink does not count them.
  std::optional<int> HeldOnDevice() const {
    if (*GetParam().netlink == '\0') return std::nullopt;
    absl::StatusOr<NetlinkDevice> device = QueryNetlinkDevice(selection().device);
    if (!device.ok()) return std::nullopt;
    absl::StatusOr<std::map<std::string, int>> counts = CountDeviceResources(device->index);
    if (!counts.ok() || counts->count(GetParam().netlink) == 0) return std::nullopt;
    return counts->at(GetParam().netlink);
  }

  // ibv_create_* / ibv_alloc_* / ibv_reg_mr of the smallest object of this type.
  absl::StatusOr<Object> CreateOne() {
    switch (GetParam().kind) {
      case Kind::kPd: return Held(AllocPd(context()));
      case Kind::kCq: return Held(CreateCq(context(), 1));
      case Kind::kMr: return Held(RegMr(pd_.get(), absl::MakeSpan(page_), IBV_ACCESS_LOCAL_WRITE));
      case Kind::kQp: return Held(CreateQp(pd_.get(), QpInitAttr(IBV_QPT_RC, cq_.get(), /*depth=*/1)));
      case Kind::kSrq: {
        ibv_srq_init_attr init{};
        init.attr.max_wr = 1;
        init.attr.max_sge = 1;
        return Held(CreateSrq(pd_.get(), init));
      }
      case Kind::kAh: return Held(CreateAh(pd_.get(), AhAttrToOwnGid(selection())));
      case Kind::kMw: return Held(AllocMw(pd_.get(), IBV_MW_TYPE_1));
    }
    return absl::InternalError("unknown kind");
  }

 private:
  template <typename Ptr>
  static absl::StatusOr<Object> Held(absl::StatusOr<Ptr> made) {
    if (!made.ok()) return made.status();
    return Object(std::move(*made));
  }

  std::vector<uint8_t> page_ = std::vector<uint8_t>(4096);
  PdPtr pd_;
  CqPtr cq_;
  MrPtr page_mr_;  // this fixture's own MR (counts as one held)
};

RDMACHECK_ABOUT(ObjectLimitTest, UpToTheDeclaredMaxThenRefused,
                "with the objects of the type already on the device counted, every object up to the declared max_* "
                "is created (within the budget: 2048 objects, 30 s scaled); at the limit one more is refused with "
                "NULL and an errno, and after one is released one can be created again; at the end the device holds "
                "as many as before the test",
                "ibv_query_device(3) (max_pd, max_cq, max_mr, max_qp, max_srq, max_ah, max_mw: 'maximum number of "
                "supported ...'); IBTA Vol 1 11.2.1.2 (Query HCA: the limits), 11.2.3-11.2.8 (resource creation "
                "returns an insufficient-resources error)");
RDMACHECK_RUNS_ALONE(ObjectLimitTest, UpToTheDeclaredMaxThenRefused,
                     "the limits count every process's objects on the device: tests running beside it hold some");
TEST_P(ObjectLimitTest, UpToTheDeclaredMaxThenRefused) {
  const KindInfo& kind = GetParam();
  const int declared = DeclaredLimit(device_attr().orig_attr, kind.kind);
  ASSERT_GT(declared, 0) << kind.limit << " is 0, yet the capability the type needs was found";
  const std::optional<int> before = HeldOnDevice();
  const int held = before.value_or(0);
  const int room = declared - held;
  const int goal = std::min(room, kMaxObjects);
  const absl::Time deadline = absl::Now() + Scaled(kTimeBudget);

  std::vector<Object> objects;
  objects.reserve(goal);
  while (static_cast<int>(objects.size()) < goal && absl::Now() < deadline) {
    absl::StatusOr<Object> one = CreateOne();
    ASSERT_TRUE(one.ok()) << kind.name << " #" << objects.size() + 1 << " refused below the declared " << kind.limit
                          << "=" << declared << " (" << held << " held on the device before): " << one.status();
    objects.push_back(std::move(*one));
  }
  const bool at_limit = static_cast<int>(objects.size()) == room;
  RecordProperty("rdmacheck_limit", absl::StrCat(objects.size(), " created of ", kind.limit, "=", declared, " (",
                                                 held, " held before)", at_limit ? ": the limit reached" : ": the budget ended first"));
  if (at_limit) {
    errno = 0;
    absl::StatusOr<Object> extra = CreateOne();
    EXPECT_FALSE(extra.ok()) << "one " << kind.name << " beyond " << kind.limit << "=" << declared << " was created";
    if (!extra.ok()) {
      EXPECT_THAT(ErrnoOf(extra.status()), ::testing::Optional(::testing::Gt(0)))
          << "the refusal beyond the limit carries no errno: " << extra.status();
    }
    objects.pop_back();  // one released: there is room again
    EXPECT_OK(CreateOne().status()) << "after a refusal at the limit and one release, a new " << kind.name
                                    << " is still refused";
  }
  objects.clear();
  if (before) {
    EXPECT_EQ(HeldOnDevice(), before) << "after releasing every " << kind.name
                                      << ", the device does not hold as many as before the test";
  }
}

INSTANTIATE_TEST_SUITE_P(Type, ObjectLimitTest, ::testing::ValuesIn(kKinds), KindName);

}  // namespace
}  // namespace rdmacheck
