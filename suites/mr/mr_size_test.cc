// What memory a region can cover: tiny, page-sized, unaligned, page-crossing, large,
// zero-length, read-only and huge-page memory.
#include <infiniband/verbs.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <set>
#include <string>

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

RDMACHECK_ABOUT(MrSpanTest, Registers,
                "ibv_reg_mr covers exactly the bytes asked for: 1 byte, one page, an unaligned start, and a span "
                "crossing a page boundary; mr->addr and mr->length echo them",
                "ibv_reg_mr(3); IBTA Vol 1 ch. 11 (any virtual address and length)");
TEST_P(MrSpanTest, Registers) {
  const size_t page = MappedMemory::PageSize();
  ASSERT_OK_AND_ASSIGN(MappedMemory memory, MappedMemory::Map(2 * page));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  uint8_t* start = memory.data() + GetParam().offset(page);
  const size_t length = GetParam().length(page);
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pd.get(), start, length, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ));
  EXPECT_EQ(mr->addr, start);
  EXPECT_EQ(mr->length, length);
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

RDMACHECK_ABOUT(MrZeroLengthTest, Registers,
                "ibv_reg_mr of 0 bytes succeeds and reports length 0, whether the address is page-aligned or not",
                "ibv_reg_mr(3) (zero-length regions are a device capability)", Cap::kZeroLengthMr);
TEST_P(MrZeroLengthTest, Registers) {
  ASSERT_OK_AND_ASSIGN(MappedMemory memory, MappedMemory::Map(MappedMemory::PageSize()));
  ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(context()));
  ASSERT_OK_AND_ASSIGN(MrPtr mr, RegMr(pd.get(), memory.data() + GetParam(), 0, IBV_ACCESS_LOCAL_WRITE));
  EXPECT_EQ(mr->length, 0u);
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
