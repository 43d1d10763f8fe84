// What memory a region can cover: tiny, page-sized, unaligned, page-crossing (each written
// through to check it covers exactly its bytes), large, zero-length, read-only and huge-page
// memory.
#include <infiniband/verbs.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "harness/completion.h"
#include "harness/timeouts.h"
#include "testing/device_test.h"
#include "harness/verbs/factories.h"
#include "suites/mr/mapped_memory.h"

namespace rdmacheck {
namespace {

// Where in a two-page mapping a region starts and how long it is.
struct Span {
  const char* name;
  size_t (*offset)(size_t page);
  size_t (*length)(size_t page);
};

class MrSpanTest : public DeviceTest, public ::testing::WithParamInterface<Span> {};

RDMACHECK_ABOUT(MrSpanTest, CoversExactlyItsBytes,
                "ibv_reg_mr covers exactly the bytes asked for (1 byte, one page, an unaligned start, a span "
                "crossing a page boundary): mr->addr and mr->length echo them, a peer's RDMA WRITE of the whole "
                "span through the rkey lands on every byte of it and on no byte beside it",
                "ibv_reg_mr(3); IBTA Vol 1 10.6.2 (a region is any virtual address range), 10.6.3", Cap::kRcQp,
                Cap::kRdmaWrite);
TEST_P(MrSpanTest, CoversExactlyItsBytes) {
  const size_t page = MappedMemory::PageSize();
  ASSERT_OK_AND_ASSIGN(MappedMemory memory, MappedMemory::Map(2 * page));
  PairOptions options;
  options.buffer_size = 2 * page;
  ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(options));
  uint8_t* start = memory.data() + GetParam().offset(page);
  const size_t length = GetParam().length(page);
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pair.local().pd(), start, length,
                                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
  EXPECT_EQ(mr->addr, start);
  EXPECT_EQ(mr->length, length);

  std::fill_n(memory.data(), memory.size(), 0);
  const uint32_t bytes = static_cast<uint32_t>(length);
  ASSERT_OK(pair.remote().Fill({0, bytes}, Pattern::Seeded(7)));
  RemoteBuffer span{reinterpret_cast<uint64_t>(start), mr->rkey, bytes};
  ASSERT_OK(pair.remote().Post(SendRequest::Write(/*wr_id=*/1, {{0, bytes}}, span)));
  ASSERT_OK_AND_ASSIGN(ibv_wc wrote, pair.remote().PollSend());
  ASSERT_EQ(wrote.status, IBV_WC_SUCCESS) << "an RDMA WRITE of the whole region: " << DescribeWc(wrote);
  ASSERT_OK_AND_ASSIGN(std::vector<uint8_t> sent, pair.remote().Read({0, bytes}));
  // On iWARP the writer's completion says only that the data left (RFC 5040): the bytes
  // may land a moment later, so they get until DefaultWait() (Endpoint::AwaitPattern's rule).
  const absl::Time deadline = absl::Now() + DefaultWait();
  while (!std::equal(sent.begin(), sent.end(), start) && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(1));
  EXPECT_TRUE(std::equal(sent.begin(), sent.end(), start))
      << "the write did not land on every byte of the region (waited up to " << DefaultWait() << ")";
  const size_t before = static_cast<size_t>(start - memory.data());
  EXPECT_TRUE(std::all_of(memory.data(), start, [](uint8_t b) { return b == 0; }))
      << "a byte of the " << before << " before the region changed";
  EXPECT_TRUE(std::all_of(start + length, memory.data() + memory.size(), [](uint8_t b) { return b == 0; }))
      << "a byte after the region changed";
}

INSTANTIATE_TEST_SUITE_P(
    Spans, MrSpanTest,
    ::testing::Values(Span{"OneByte", [](size_t) -> size_t { return 0; }, [](size_t) -> size_t { return 1; }},
                      Span{"OnePage", [](size_t) -> size_t { return 0; }, [](size_t p) { return p; }},
                      Span{"UnalignedStart", [](size_t) -> size_t { return 123; }, [](size_t) -> size_t { return 1000; }},
                      Span{"CrossesPageBoundary", [](size_t p) { return p - 100; }, [](size_t) -> size_t { return 200; }}),
    [](const ::testing::TestParamInfo<Span>& info) { return std::string(info.param.name); });

class MrSizeTest : public DeviceTest {};

// Large enough to span many pages and page-table chunks, small enough for a test VM.
constexpr size_t kLargeCap = 64u << 20;

RDMACHECK_ABOUT(MrSizeTest, Large,
                "a region of min(64 MiB, RLIMIT_MEMLOCK / 2, max_mr_size) registers and reports its length",
                "ibv_reg_mr(3); ibv_query_device(3) max_mr_size", Cap::kMemlock);
TEST_F(MrSizeTest, Large) {
  rlimit limit{};
  ASSERT_EQ(getrlimit(RLIMIT_MEMLOCK, &limit), 0) << ErrnoName(errno);
  size_t length = kLargeCap;
  if (limit.rlim_cur != RLIM_INFINITY) length = std::min<size_t>(length, limit.rlim_cur / 2);
  length = std::min<size_t>(length, device_attr().orig_attr.max_mr_size);
  length &= ~(MappedMemory::PageSize() - 1);
  RecordProperty("length", std::to_string(length));
  ASSERT_OK_AND_ASSIGN(MappedMemory memory, MappedMemory::Map(length));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pd.get(), memory.data(), length, IBV_ACCESS_LOCAL_WRITE));
  EXPECT_EQ(mr->length, length);
}

class MrZeroLengthTest : public DeviceTest, public ::testing::WithParamInterface<size_t> {};

RDMACHECK_ABOUT(MrZeroLengthTest, RegistersOrIsRefusedWithEinval,
                "ibv_reg_mr of 0 bytes, at a page-aligned and at an unaligned address, either registers an MR "
                "reporting that address and length 0, or is refused with EINVAL; which one is recorded (no spec "
                "promises zero-length regions)",
                "ibv_reg_mr(3) (\"EINVAL: invalid ... length\"); Linux ib_umem_get (a region spanning no page is "
                "refused)");
TEST_P(MrZeroLengthTest, RegistersOrIsRefusedWithEinval) {
  ASSERT_OK_AND_ASSIGN(MappedMemory memory, MappedMemory::Map(MappedMemory::PageSize()));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  uint8_t* address = memory.data() + GetParam();
  errno = 0;
  MrPtr mr(ibv_reg_mr(pd.get(), address, 0, IBV_ACCESS_LOCAL_WRITE));
  if (mr) {
    RecordProperty("outcome", "registered");
    EXPECT_EQ(mr->addr, address);
    EXPECT_EQ(mr->length, 0u);
  } else {
    RecordProperty("outcome", absl::StrCat("refused, ", ErrnoName(errno)));
    EXPECT_THAT(errno, ErrnoIs(EINVAL)) << "a zero-length registration refused with another errno";
  }
}

INSTANTIATE_TEST_SUITE_P(Addresses, MrZeroLengthTest, ::testing::Values(size_t{0}, size_t{100}),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return std::string(info.param == 0 ? "PageAligned" : "Unaligned");
                         });

RDMACHECK_ABOUT(MrSizeTest, KeysDistinctPerRegion,
                "16 regions of one PD, registered with remote access, have 16 distinct lkeys and 16 distinct rkeys",
                "IBTA Vol 1 10.6.3 (L_Key and R_Key name a region); ibv_reg_mr(3)");
TEST_F(MrSizeTest, KeysDistinctPerRegion) {
  ASSERT_OK_AND_ASSIGN(MappedMemory memory, MappedMemory::Map(16 * MappedMemory::PageSize()));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  std::vector<MrPtr> mrs;
  std::set<uint32_t> lkeys, rkeys;
  for (int i = 0; i < 16; ++i) {
    ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pd.get(), memory.data() + i * MappedMemory::PageSize(),
                                         MappedMemory::PageSize(),
                                         IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ));
    lkeys.insert(mr->lkey);
    rkeys.insert(mr->rkey);
    mrs.push_back(std::move(mr));
  }
  EXPECT_EQ(lkeys.size(), mrs.size()) << "two regions share an lkey";
  EXPECT_EQ(rkeys.size(), mrs.size()) << "two regions share an rkey";
}

RDMACHECK_ABOUT(MrSizeTest, ReadOnlyPagesWithLocalWriteFailEfault,
                "registering PROT_READ pages with LOCAL_WRITE access fails (Linux: EFAULT, the pages cannot be "
                "pinned for writing)",
                "ibv_reg_mr(3); Linux ib_umem_get / pin_user_pages with FOLL_WRITE");
TEST_F(MrSizeTest, ReadOnlyPagesWithLocalWriteFailEfault) {
  ASSERT_OK_AND_ASSIGN(MappedMemory memory, MappedMemory::Map(MappedMemory::PageSize(), PROT_READ));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  errno = 0;
  MrPtr mr(ibv_reg_mr(pd.get(), memory.data(), memory.size(), IBV_ACCESS_LOCAL_WRITE));
  EXPECT_EQ(mr, nullptr) << "read-only memory was registered for local write";
  if (!mr) {
    EXPECT_THAT(errno, ErrnoIs(EFAULT));
  }
}

RDMACHECK_ABOUT(MrSizeTest, ReadOnlyPagesWithReadAccessRegister,
                "PROT_READ pages register for local read and remote read (no write access asked)",
                "ibv_reg_mr(3); IBTA Vol 1 10.6.3 (local read is always granted)");
TEST_F(MrSizeTest, ReadOnlyPagesWithReadAccessRegister) {
  ASSERT_OK_AND_ASSIGN(MappedMemory memory, MappedMemory::Map(MappedMemory::PageSize(), PROT_READ));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  EXPECT_OK(RegMr(pd.get(), memory.data(), memory.size(), IBV_ACCESS_REMOTE_READ));
}

// The default huge page size from /proc/meminfo ("Hugepagesize: 2048 kB"), and how many
// are configured.
struct HugePages {
  size_t size = 0;
  long total = 0;
};
HugePages ReadHugePages() {
  HugePages h;
  std::ifstream in("/proc/meminfo");
  std::string key;
  long value = 0;
  std::string unit;
  while (in >> key >> value) {
    if (key == "Hugepagesize:") h.size = static_cast<size_t>(value) * 1024;
    if (key == "HugePages_Total:") h.total = value;
    in.ignore(256, '\n');
  }
  return h;
}

RDMACHECK_ABOUT(MrSizeTest, HugePageBuffer,
                "a region over one MAP_HUGETLB huge page registers and reports its length (skipped where the system "
                "has no huge pages configured)",
                "ibv_reg_mr(3); Linux hugetlbfs");
TEST_F(MrSizeTest, HugePageBuffer) {
  const HugePages huge = ReadHugePages();
  absl::StatusOr<MappedMemory> memory =
      huge.size == 0 ? absl::StatusOr<MappedMemory>(absl::UnavailableError("no Hugepagesize in /proc/meminfo"))
                     : MappedMemory::Map(huge.size, PROT_READ | PROT_WRITE, MAP_HUGETLB);
  if (!memory.ok()) {
    GTEST_SKIP() << "requires huge pages: " << memory.status().message() << "; HugePages_Total=" << huge.total
                 << " (configure with sysctl vm.nr_hugepages)";
  }
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pd.get(), memory->data(), memory->size(),
                                       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
  EXPECT_EQ(mr->length, huge.size);
}

}  // namespace
}  // namespace rdmacheck
