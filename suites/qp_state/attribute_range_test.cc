// Attribute values at and beyond their bounds, on the transition that carries them (RC):
// the last valid value is accepted, the first invalid one fails with EINVAL and leaves the
// QP where it was. Bounds come from the port (MTU, P_Key and GID tables), the device
// (RDMA read/atomic depths, port count) and the width of the field in IBTA (timeout 5 bits,
// retry counts 3 bits, RNR timer 5 bits).
#include "absl/strings/str_cat.h"
#include "suites/qp_state/qp_state_test_base.h"

namespace rdmacheck {
namespace {

struct Limits {
  ibv_port_attr port;
  ibv_device_attr device;
};

// Sets the value under test on `attr`; returns what it set, or, when the value cannot be
// expressed on this device (e.g. the limit is already the field's largest value), why.
using Mutation = absl::StatusOr<std::string> (*)(QpAttr& attr, const Limits& limits);

struct RangeCase {
  const char* name;
  ibv_qp_state from;
  ibv_qp_state to;
  bool valid;
  Mutation mutate;
};

absl::StatusOr<std::string> Said(const char* field, int64_t value) { return absl::StrCat(field, " = ", value); }
absl::Status Unexpressible(absl::string_view why) { return absl::FailedPreconditionError(why); }

const std::vector<RangeCase>& RangeCases() {
  static const std::vector<RangeCase> cases = {
      {"PathMtu_PortMax", IBV_QPS_INIT, IBV_QPS_RTR, true,
       [](QpAttr& a, const Limits& l) {
         a.set_path_mtu(l.port.max_mtu);
         return Said("path_mtu", l.port.max_mtu);
       }},
      {"PathMtu_AbovePortMax", IBV_QPS_INIT, IBV_QPS_RTR, false,
       [](QpAttr& a, const Limits& l) {
         // Above 4096 there is no MTU: the next enum value is itself invalid.
         const int mtu = static_cast<int>(l.port.max_mtu) + 1;
         a.set_path_mtu(static_cast<ibv_mtu>(mtu));
         return Said("path_mtu (enum)", mtu);
       }},
      {"Port_Zero", IBV_QPS_RESET, IBV_QPS_INIT, false,
       [](QpAttr& a, const Limits&) {
         a.set_port_num(0);
         return Said("port_num", 0);
       }},
      {"Port_AboveCount", IBV_QPS_RESET, IBV_QPS_INIT, false,
       [](QpAttr& a, const Limits& l) -> absl::StatusOr<std::string> {
         if (l.device.phys_port_cnt >= 255) return Unexpressible("the device has 255 ports: no port number lies beyond");
         a.set_port_num(l.device.phys_port_cnt + 1);
         return Said("port_num", l.device.phys_port_cnt + 1);
       }},
      {"PkeyIndex_LastInTable", IBV_QPS_RESET, IBV_QPS_INIT, true,
       [](QpAttr& a, const Limits& l) -> absl::StatusOr<std::string> {
         if (l.port.pkey_tbl_len == 0) return Unexpressible("the port reports an empty P_Key table (pkey_tbl_len 0)");
         a.set_pkey_index(l.port.pkey_tbl_len - 1);
         return Said("pkey_index", l.port.pkey_tbl_len - 1);
       }},
      {"PkeyIndex_BeyondTable", IBV_QPS_RESET, IBV_QPS_INIT, false,
       [](QpAttr& a, const Limits& l) -> absl::StatusOr<std::string> {
         // With no table there is no "beyond": index 0 would test the empty table, not a bound.
         if (l.port.pkey_tbl_len == 0) return Unexpressible("the port reports an empty P_Key table (pkey_tbl_len 0)");
         a.set_pkey_index(l.port.pkey_tbl_len);
         return Said("pkey_index (table length)", l.port.pkey_tbl_len);
       }},
      {"SgidIndex_BeyondTable", IBV_QPS_INIT, IBV_QPS_RTR, false,
       [](QpAttr& a, const Limits& l) -> absl::StatusOr<std::string> {
         if (l.port.gid_tbl_len > 255) {
           return Unexpressible(absl::StrCat("the GID table has ", l.port.gid_tbl_len,
                                             " entries: every 8-bit sgid_index lies inside it"));
         }
         ibv_ah_attr ah = a.attr().ah_attr;
         ah.grh.sgid_index = static_cast<uint8_t>(l.port.gid_tbl_len);
         a.set_ah_attr(ah);
         return Said("ah_attr.grh.sgid_index (table length)", l.port.gid_tbl_len);
       }},
      {"MaxRdAtomic_DeviceLimit", IBV_QPS_RTR, IBV_QPS_RTS, true,
       [](QpAttr& a, const Limits& l) {
         a.set_max_rd_atomic(static_cast<uint8_t>(l.device.max_qp_init_rd_atom));
         return Said("max_rd_atomic (max_qp_init_rd_atom)", l.device.max_qp_init_rd_atom);
       }},
      {"MaxRdAtomic_AboveDeviceLimit", IBV_QPS_RTR, IBV_QPS_RTS, false,
       [](QpAttr& a, const Limits& l) -> absl::StatusOr<std::string> {
         if (l.device.max_qp_init_rd_atom >= 255) return Unexpressible("max_qp_init_rd_atom is 255, the field's largest value");
         a.set_max_rd_atomic(static_cast<uint8_t>(l.device.max_qp_init_rd_atom + 1));
         return Said("max_rd_atomic (max_qp_init_rd_atom + 1)", l.device.max_qp_init_rd_atom + 1);
       }},
      {"MaxDestRdAtomic_DeviceLimit", IBV_QPS_INIT, IBV_QPS_RTR, true,
       [](QpAttr& a, const Limits& l) {
         a.set_max_dest_rd_atomic(static_cast<uint8_t>(l.device.max_qp_rd_atom));
         return Said("max_dest_rd_atomic (max_qp_rd_atom)", l.device.max_qp_rd_atom);
       }},
      {"MaxDestRdAtomic_AboveDeviceLimit", IBV_QPS_INIT, IBV_QPS_RTR, false,
       [](QpAttr& a, const Limits& l) -> absl::StatusOr<std::string> {
         if (l.device.max_qp_rd_atom >= 255) return Unexpressible("max_qp_rd_atom is 255, the field's largest value");
         a.set_max_dest_rd_atomic(static_cast<uint8_t>(l.device.max_qp_rd_atom + 1));
         return Said("max_dest_rd_atomic (max_qp_rd_atom + 1)", l.device.max_qp_rd_atom + 1);
       }},
      {"Timeout_0Infinite", IBV_QPS_RTR, IBV_QPS_RTS, true,
       [](QpAttr& a, const Limits&) {
         a.set_timeout(0);
         return Said("timeout", 0);
       }},
      {"Timeout_31", IBV_QPS_RTR, IBV_QPS_RTS, true,
       [](QpAttr& a, const Limits&) {
         a.set_timeout(31);
         return Said("timeout", 31);
       }},
      {"Timeout_32", IBV_QPS_RTR, IBV_QPS_RTS, false,
       [](QpAttr& a, const Limits&) {
         a.set_timeout(32);
         return Said("timeout", 32);
       }},
      {"RetryCnt_7", IBV_QPS_RTR, IBV_QPS_RTS, true,
       [](QpAttr& a, const Limits&) {
         a.set_retry_cnt(7);
         return Said("retry_cnt", 7);
       }},
      {"RetryCnt_8", IBV_QPS_RTR, IBV_QPS_RTS, false,
       [](QpAttr& a, const Limits&) {
         a.set_retry_cnt(8);
         return Said("retry_cnt", 8);
       }},
      {"RnrRetry_7", IBV_QPS_RTR, IBV_QPS_RTS, true,
       [](QpAttr& a, const Limits&) {
         a.set_rnr_retry(7);
         return Said("rnr_retry", 7);
       }},
      {"RnrRetry_8", IBV_QPS_RTR, IBV_QPS_RTS, false,
       [](QpAttr& a, const Limits&) {
         a.set_rnr_retry(8);
         return Said("rnr_retry", 8);
       }},
      {"MinRnrTimer_31", IBV_QPS_INIT, IBV_QPS_RTR, true,
       [](QpAttr& a, const Limits&) {
         a.set_min_rnr_timer(31);
         return Said("min_rnr_timer", 31);
       }},
      {"MinRnrTimer_32", IBV_QPS_INIT, IBV_QPS_RTR, false,
       [](QpAttr& a, const Limits&) {
         a.set_min_rnr_timer(32);
         return Said("min_rnr_timer", 32);
       }},
  };
  return cases;
}

class QpAttrRangeTest : public QpStateTest, public ::testing::WithParamInterface<RangeCase> {
 protected:
  void SetUp() override {
    QpStateTest::SetUp();
    if (IsSkipped()) return;
    if (GetParam().to == IBV_QPS_RTS) RDMACHECK_REQUIRE(Cap::kManualConnect);  // RTR->RTS by hand
    ASSERT_NO_FATAL_FAILURE(Start(IBV_QPT_RC, GetParam().from));
  }
};

RDMACHECK_ABOUT(QpAttrRangeTest, BoundIsAcceptedBeyondFails,
                "an attribute at its bound (port MTU, table end, device RD atomic limit, field width) is "
                "accepted and the QP moves on; one step beyond fails with EINVAL and the QP stays where it was",
                "IBTA Vol 1 11.2.5.2 (Modify QP: invalid modifier values), 9.7.5.2.8 / table 45 (RNR timer and "
                "retry fields); ibv_modify_qp(3) EINVAL; ibv_query_device(3), "
                "ibv_query_port(3)",
                Cap::kRcQp);
TEST_P(QpAttrRangeTest, BoundIsAcceptedBeyondFails) {
  const RangeCase& c = GetParam();
  const Limits limits{selection().port_attr, device_attr().orig_attr};
  QpAttr attr = TransitionAttr(c.from, c.to, q().values());
  absl::StatusOr<std::string> value = c.mutate(attr, limits);
  if (!value.ok()) GTEST_SKIP() << "no such value on this device: " << value.status().message();

  absl::Status modified = ModifyQp(q().qp(), attr);
  if (c.valid) {
    EXPECT_OK(modified) << *value;
    ExpectState(q().qp(), c.to);
  } else {
    EXPECT_THAT(modified, HasErrno(EINVAL)) << *value;
    ExpectState(q().qp(), c.from);
  }
}

INSTANTIATE_TEST_SUITE_P(Bounds, QpAttrRangeTest, ::testing::ValuesIn(RangeCases()),
                         [](const ::testing::TestParamInfo<RangeCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace rdmacheck
