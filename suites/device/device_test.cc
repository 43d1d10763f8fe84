// Device and context: listing, opening, and what a device says about itself.
#include <arpa/inet.h>
#include <fcntl.h>
#include <infiniband/verbs.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "harness/device.h"
#include "harness/verbs/factories.h"
#include "testing/device_test.h"

namespace rdmacheck {
namespace {

class DeviceListTest : public DeviceTest {};

RDMACHECK_ABOUT(DeviceListTest, ContainsTheDeviceUnderTest,
                "ibv_get_device_list returns a non-empty list that holds the selected device",
                "ibv_get_device_list(3)");
TEST_F(DeviceListTest, ContainsTheDeviceUnderTest) {
  int count = -1;
  DeviceListPtr list(ibv_get_device_list(&count));
  ASSERT_NE(list, nullptr) << "errno " << ErrnoName(errno);
  ASSERT_GE(count, 1);
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.emplace_back(ibv_get_device_name(list.get()[i]));
  EXPECT_THAT(names, ::testing::Contains(selection().device));
  EXPECT_EQ(list.get()[count], nullptr) << "the list must be NULL-terminated";
}

RDMACHECK_ABOUT(DeviceListTest, NamesAndIndicesAreUnique,
                "every listed device has its own name and kernel index", "ibv_get_device_list(3), ibv_get_device_index(3)");
TEST_F(DeviceListTest, NamesAndIndicesAreUnique) {
  int count = 0;
  DeviceListPtr list(ibv_get_device_list(&count));
  ASSERT_NE(list, nullptr);
  std::set<std::string> names;
  std::set<int> indices;
  for (int i = 0; i < count; ++i) {
    names.insert(ibv_get_device_name(list.get()[i]));
    int index = ibv_get_device_index(list.get()[i]);
    EXPECT_GE(index, 0) << ibv_get_device_name(list.get()[i]) << " has no kernel index";
    indices.insert(index);
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(count));
  EXPECT_EQ(indices.size(), static_cast<size_t>(count));
}

RDMACHECK_ABOUT(DeviceListTest, NodeTypeMatchesTransport,
                "a CA node uses the InfiniBand transport (IB or RoCE), an RNIC node iWARP",
                "ibv_get_device_list(3); verbs.h ibv_node_type / ibv_transport_type");
TEST_F(DeviceListTest, NodeTypeMatchesTransport) {
  ibv_device* device = context()->device;
  switch (device->node_type) {
    case IBV_NODE_CA: EXPECT_EQ(device->transport_type, IBV_TRANSPORT_IB); break;
    case IBV_NODE_RNIC: EXPECT_EQ(device->transport_type, IBV_TRANSPORT_IWARP); break;
    default: GTEST_SKIP() << "node type " << ibv_node_type_str(device->node_type) << " has no fixed transport";
  }
}

RDMACHECK_ABOUT(DeviceListTest, DeviceGuidMatchesQueriedNodeGuid,
                "ibv_get_device_guid and ibv_query_device report the same node GUID", "ibv_get_device_guid(3)");
TEST_F(DeviceListTest, DeviceGuidMatchesQueriedNodeGuid) {
  ibv_device_attr attr{};
  ASSERT_THAT(ibv_query_device(context(), &attr), ErrnoIs(0));
  EXPECT_EQ(ibv_get_device_guid(context()->device), attr.node_guid);
}

class DeviceOpenTest : public DeviceTest {
 protected:
  static ibv_device* Find(ibv_device** list, int count) {
    for (int i = 0; i < count; ++i) {
      if (selection().device == ibv_get_device_name(list[i])) return list[i];
    }
    return nullptr;
  }
};

RDMACHECK_ABOUT(DeviceOpenTest, OpenAndClose, "a device opens and its context closes with 0",
                "ibv_open_device(3)");
TEST_F(DeviceOpenTest, OpenAndClose) {
  int count = 0;
  DeviceListPtr list(ibv_get_device_list(&count));
  ASSERT_NE(list, nullptr);
  ibv_device* device = Find(list.get(), count);
  ASSERT_NE(device, nullptr);
  ibv_context* context = ibv_open_device(device);
  ASSERT_NE(context, nullptr) << ErrnoName(errno);
  EXPECT_GE(context->cmd_fd, 0);
  EXPECT_GE(fcntl(context->async_fd, F_GETFD), 0) << "the async event fd must be open";
  EXPECT_THAT(ibv_close_device(context), ErrnoIs(0));
}

RDMACHECK_ABOUT(DeviceOpenTest, OpenManyTimesGivesIndependentContexts,
                "the same device opens 16 times at once; each context allocates its own PD",
                "ibv_open_device(3)");
TEST_F(DeviceOpenTest, OpenManyTimesGivesIndependentContexts) {
  int count = 0;
  DeviceListPtr list(ibv_get_device_list(&count));
  ASSERT_NE(list, nullptr);
  ibv_device* device = Find(list.get(), count);
  ASSERT_NE(device, nullptr);
  std::vector<ContextPtr> contexts;
  std::vector<PdPtr> pds;
  for (int i = 0; i < 16; ++i) {
    contexts.emplace_back(ibv_open_device(device));
    ASSERT_NE(contexts.back(), nullptr) << "open #" << i << ": " << ErrnoName(errno);
  }
  for (ContextPtr& c : contexts) {
    ASSERT_OK_AND_ASSIGN(PdPtr pd, AllocPd(c.get()));
    pds.push_back(std::move(pd));
  }
  // Closing one context leaves the others' objects working.
  pds.front().reset();
  contexts.front().reset();
  ASSERT_OK_AND_ASSIGN(PdPtr again, AllocPd(contexts.back().get()));
  pds.clear();  // before their contexts
}

class DeviceQueryTest : public DeviceTest {};

RDMACHECK_ABOUT(DeviceQueryTest, LimitsAreSane,
                "query_device reports at least one of everything a verbs consumer needs (QPs, WRs, SGEs, CQs, "
                "CQEs, MRs, PDs, ports)",
                "ibv_query_device(3); IBTA Vol 1 11.2.1.2 (Query HCA)");
TEST_F(DeviceQueryTest, LimitsAreSane) {
  ibv_device_attr a{};
  ASSERT_THAT(ibv_query_device(context(), &a), ErrnoIs(0));
  EXPECT_GT(a.max_qp, 0);
  EXPECT_GT(a.max_qp_wr, 0);
  EXPECT_GE(a.max_sge, 1);
  EXPECT_GT(a.max_cq, 0);
  EXPECT_GT(a.max_cqe, 0);
  EXPECT_GT(a.max_mr, 0);
  EXPECT_GT(a.max_mr_size, 0u);
  EXPECT_GT(a.max_pd, 0);
  EXPECT_GE(a.phys_port_cnt, 1);
  EXPECT_NE(a.page_size_cap, 0u) << "no supported page size";
}

RDMACHECK_ABOUT(DeviceQueryTest, QueryDeviceExMatchesQueryDevice,
                "the legacy attributes inside query_device_ex equal those of query_device",
                "ibv_query_device_ex(3)");
TEST_F(DeviceQueryTest, QueryDeviceExMatchesQueryDevice) {
  ibv_device_attr a{};
  ibv_device_attr_ex ex{};
  ASSERT_THAT(ibv_query_device(context(), &a), ErrnoIs(0));
  ASSERT_THAT(ibv_query_device_ex(context(), nullptr, &ex), ErrnoIs(0));
  const ibv_device_attr& o = ex.orig_attr;
  EXPECT_STREQ(o.fw_ver, a.fw_ver);
  EXPECT_EQ(o.node_guid, a.node_guid);
  EXPECT_EQ(o.sys_image_guid, a.sys_image_guid);
  EXPECT_EQ(o.max_mr_size, a.max_mr_size);
  EXPECT_EQ(o.page_size_cap, a.page_size_cap);
  EXPECT_EQ(o.vendor_id, a.vendor_id);
  EXPECT_EQ(o.vendor_part_id, a.vendor_part_id);
  EXPECT_EQ(o.hw_ver, a.hw_ver);
  EXPECT_EQ(o.max_qp, a.max_qp);
  EXPECT_EQ(o.max_qp_wr, a.max_qp_wr);
  EXPECT_EQ(o.device_cap_flags, a.device_cap_flags);
  EXPECT_EQ(o.max_sge, a.max_sge);
  EXPECT_EQ(o.max_sge_rd, a.max_sge_rd);
  EXPECT_EQ(o.max_cq, a.max_cq);
  EXPECT_EQ(o.max_cqe, a.max_cqe);
  EXPECT_EQ(o.max_mr, a.max_mr);
  EXPECT_EQ(o.max_pd, a.max_pd);
  EXPECT_EQ(o.max_qp_rd_atom, a.max_qp_rd_atom);
  EXPECT_EQ(o.max_qp_init_rd_atom, a.max_qp_init_rd_atom);
  EXPECT_EQ(o.atomic_cap, a.atomic_cap);
  EXPECT_EQ(o.max_mw, a.max_mw);
  EXPECT_EQ(o.max_ah, a.max_ah);
  EXPECT_EQ(o.max_srq, a.max_srq);
  EXPECT_EQ(o.max_srq_wr, a.max_srq_wr);
  EXPECT_EQ(o.max_srq_sge, a.max_srq_sge);
  EXPECT_EQ(o.max_pkeys, a.max_pkeys);
  EXPECT_EQ(o.phys_port_cnt, a.phys_port_cnt);
}

RDMACHECK_ABOUT(DeviceQueryTest, QueryDeviceExRejectsUnknownInputMask,
                "query_device_ex refuses an input comp_mask it does not know with EINVAL",
                "ibv_query_device_ex(3); verbs.h ibv_query_device_ex");
TEST_F(DeviceQueryTest, QueryDeviceExRejectsUnknownInputMask) {
  ibv_query_device_ex_input input{};
  input.comp_mask = 1u << 31;
  ibv_device_attr_ex ex{};
  EXPECT_THAT(ibv_query_device_ex(context(), &input, &ex), ErrnoIs(EINVAL));
}

class PortQueryTest : public DeviceTest {
 protected:
  static int PortCount() { return device_attr().orig_attr.phys_port_cnt; }
};

RDMACHECK_ABOUT(PortQueryTest, EveryPortAnswers,
                "each port 1..phys_port_cnt answers query_port with a known state and link layer, active MTU "
                "<= max MTU and a non-empty GID table",
                "ibv_query_port(3); IBTA Vol 1 11.2.1.3 (Query HCA port)");
TEST_F(PortQueryTest, EveryPortAnswers) {
  for (int p = 1; p <= PortCount(); ++p) {
    SCOPED_TRACE(::testing::Message() << "port " << p);
    ibv_port_attr attr{};
    ASSERT_THAT(ibv_query_port(context(), p, &attr), ErrnoIs(0));
    EXPECT_GE(attr.state, IBV_PORT_DOWN);
    EXPECT_LE(attr.state, IBV_PORT_ACTIVE_DEFER);
    EXPECT_THAT(attr.link_layer, ::testing::AnyOf(IBV_LINK_LAYER_INFINIBAND, IBV_LINK_LAYER_ETHERNET));
    EXPECT_GE(attr.active_mtu, IBV_MTU_256);
    EXPECT_LE(attr.active_mtu, attr.max_mtu);
    EXPECT_GE(attr.gid_tbl_len, 1);
  }
}

RDMACHECK_ABOUT(PortQueryTest, SelectedPortIsActive, "the port the run uses is ACTIVE", "ibv_query_port(3)");
TEST_F(PortQueryTest, SelectedPortIsActive) {
  ibv_port_attr attr{};
  ASSERT_THAT(ibv_query_port(context(), port(), &attr), ErrnoIs(0));
  EXPECT_EQ(attr.state, IBV_PORT_ACTIVE) << ibv_port_state_str(attr.state);
}

RDMACHECK_ABOUT(PortQueryTest, PortZeroIsInvalid, "query_port(0) fails with EINVAL: ports count from 1",
                "ibv_query_port(3); IBTA Vol 1 14.2.5.1 (port numbers start at 1)");
TEST_F(PortQueryTest, PortZeroIsInvalid) {
  ibv_port_attr attr{};
  EXPECT_THAT(ibv_query_port(context(), 0, &attr), ErrnoIs(EINVAL));
}

RDMACHECK_ABOUT(PortQueryTest, PortPastCountIsInvalid, "query_port(phys_port_cnt + 1) fails with EINVAL",
                "ibv_query_port(3)");
TEST_F(PortQueryTest, PortPastCountIsInvalid) {
  ibv_port_attr attr{};
  EXPECT_THAT(ibv_query_port(context(), PortCount() + 1, &attr), ErrnoIs(EINVAL));
}

RDMACHECK_ABOUT(PortQueryTest, PkeyIndexZeroIsTheDefaultPartition,
                "on an InfiniBand-transport port (IB or RoCE), P_Key table index 0 holds the default partition "
                "key 0xFFFF",
                "IBTA Vol 1 10.9.1.2 (default P_Key); ibv_query_pkey(3); RFC 5040 (iWARP has no partitions)");
TEST_F(PortQueryTest, PkeyIndexZeroIsTheDefaultPartition) {
  if (IsIwarp()) {
    GTEST_SKIP() << "transport iWARP: P_Keys are IBTA partitions, iWARP has none (pkey_tbl_len "
                 << selection().port_attr.pkey_tbl_len << ")";
  }
  uint16_t pkey = 0;
  ASSERT_THAT(ibv_query_pkey(context(), port(), 0, &pkey), ErrnoIs(0));
  EXPECT_EQ(ntohs(pkey), 0xffff);
}

class GidTableTest : public DeviceTest {
 protected:
  static std::vector<GidEntry> Gids() {
    absl::StatusOr<std::vector<GidEntry>> gids = ReadGidTable(context(), selection().port_attr, port());
    EXPECT_OK(gids);
    return gids.ok() ? *gids : std::vector<GidEntry>{};
  }
  static bool IsRoce() {
    return selection().transport == IBV_TRANSPORT_IB && selection().port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
  }
};

RDMACHECK_ABOUT(GidTableTest, SelectedPortHasUsableGid, "the selected port has at least one non-zero GID entry",
                "ibv_query_gid(3)");
TEST_F(GidTableTest, SelectedPortHasUsableGid) {
  std::vector<GidEntry> gids = Gids();
  EXPECT_TRUE(std::any_of(gids.begin(), gids.end(), [](const GidEntry& g) { return !g.IsZero(); }));
}

RDMACHECK_ABOUT(GidTableTest, EntryTypesMatchTheLinkLayer,
                "GID entries are typed for the port: RoCEv1/RoCEv2 on RoCE, IB on InfiniBand; the kernel types "
                "iWARP entries IB (it has no iWARP GID type)",
                "ibv_query_gid_ex(3); IBTA Vol 1 Annex A17 (RoCEv2)");
TEST_F(GidTableTest, EntryTypesMatchTheLinkLayer) {
  for (const GidEntry& g : Gids()) {
    SCOPED_TRACE(::testing::Message() << "gid " << g.index << " " << g.Address());
    if (IsRoce()) {
      EXPECT_THAT(g.type, ::testing::AnyOf(IBV_GID_TYPE_ROCE_V1, IBV_GID_TYPE_ROCE_V2));
    } else {
      EXPECT_EQ(g.type, IBV_GID_TYPE_IB);
    }
  }
}

RDMACHECK_ABOUT(GidTableTest, QueryGidMatchesQueryGidEx,
                "the plain ibv_query_gid returns the same GID as ibv_query_gid_ex for every valid index",
                "ibv_query_gid(3), ibv_query_gid_ex(3)");
TEST_F(GidTableTest, QueryGidMatchesQueryGidEx) {
  for (const GidEntry& g : Gids()) {
    ibv_gid gid{};
    ASSERT_THAT(ibv_query_gid(context(), port(), g.index, &gid), ErrnoIs(0));
    EXPECT_EQ(std::memcmp(gid.raw, g.gid.raw, sizeof(gid.raw)), 0) << "index " << g.index;
  }
}

RDMACHECK_ABOUT(GidTableTest, QueryGidTableMatchesPerIndexQueries,
                "ibv_query_gid_table returns exactly the valid entries the per-index queries find",
                "ibv_query_gid_table(3)");
TEST_F(GidTableTest, QueryGidTableMatchesPerIndexQueries) {
  std::vector<GidEntry> expected = Gids();
  size_t capacity = 0;
  for (int p = 1; p <= device_attr().orig_attr.phys_port_cnt; ++p) {
    ibv_port_attr attr{};
    ASSERT_THAT(ibv_query_port(context(), p, &attr), ErrnoIs(0));
    capacity += attr.gid_tbl_len;
  }
  std::vector<ibv_gid_entry> table(capacity);
  ssize_t n = ibv_query_gid_table(context(), table.data(), table.size(), 0);
  ASSERT_GE(n, 0) << ErrnoName(static_cast<int>(-n));
  std::vector<uint32_t> got, want;
  for (ssize_t i = 0; i < n; ++i) {
    if (table[i].port_num == port()) got.push_back(table[i].gid_index);
  }
  for (const GidEntry& g : expected) want.push_back(g.index);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, want);
}

RDMACHECK_ABOUT(GidTableTest, IndexPastTableLengthIsInvalid,
                "ibv_query_gid_ex at gid_tbl_len fails instead of returning an entry", "ibv_query_gid_ex(3)");
TEST_F(GidTableTest, IndexPastTableLengthIsInvalid) {
  ibv_gid_entry entry{};
  EXPECT_NE(ibv_query_gid_ex(context(), port(), selection().port_attr.gid_tbl_len, &entry, 0), 0);
}

RDMACHECK_ABOUT(GidTableTest, RoceIpv4AddressHasMappedRoceV2Gid,
                "on RoCE, the netdev's IPv4 address appears as an IPv4-mapped RoCEv2 GID (what rdma_cm over IPv4 "
                "resolves to)",
                "IBTA Vol 1 Annex A17.4.5.1 (RoCEv2 GID from IP address)");
TEST_F(GidTableTest, RoceIpv4AddressHasMappedRoceV2Gid) {
  if (!IsRoce()) GTEST_SKIP() << "RoCE only: this port is " << TransportName(selection().transport) << " over "
                              << LinkLayerName(selection().port_attr.link_layer);
  absl::StatusOr<sockaddr_storage> address = SelectionAddress(selection());
  if (!address.ok() || address->ss_family != AF_INET) GTEST_SKIP() << "the netdev has no IPv4 address";
  std::string ip = SockaddrToString(*address);
  std::vector<GidEntry> gids = Gids();
  EXPECT_TRUE(std::any_of(gids.begin(), gids.end(), [&](const GidEntry& g) {
    return g.type == IBV_GID_TYPE_ROCE_V2 && g.IsIpv4Mapped() && g.Address() == ip;
  })) << "no RoCEv2 GID for " << ip;
}

}  // namespace
}  // namespace rdmacheck
