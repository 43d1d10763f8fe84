// Fixtures for tests that run over every way the device connects QPs.
//
//   class RcSendTest : public PairTest {};
//   TEST_P(RcSendTest, Foo) { ASSERT_OK_AND_ASSIGN(ConnectedPair pair, CreatePair(Options())); ... }
//   INSTANTIATE_TEST_SUITE_P(Connect, RcSendTest, AllConnectMethods(), ConnectMethodParamName);
//
// A method the device lacks (capability manual_connect or rdma_cm) skips the instance with
// the evidence. PairTestWith<T> adds a second parameter (a size, an opcode, ...):
//
//   class RcSendSizeTest : public PairTestWith<MessageSize> {};
//   INSTANTIATE_TEST_SUITE_P(Connect, RcSendSizeTest,
//                            ::testing::Combine(AllConnectMethods(), ::testing::ValuesIn(AllMessageSizes())),
//                            PairParamName<MessageSize>);
#ifndef RDMACHECK_TESTING_PAIR_TEST_H_
#define RDMACHECK_TESTING_PAIR_TEST_H_

#include <string>
#include <tuple>

#include "gtest/gtest.h"
#include "harness/connection/connected_pair.h"
#include "testing/device_test.h"

namespace rdmacheck {

Cap CapOf(ConnectMethod method);  // kManualConnect / kRdmaCm

inline auto AllConnectMethods() { return ::testing::Values(ConnectMethod::kManual, ConnectMethod::kRdmaCm); }
std::string ConnectMethodParamName(const ::testing::TestParamInfo<ConnectMethod>& info);  // "Manual", "RdmaCm"

// A name for the second parameter of PairTestWith<T>: overload ParamName(T) next to T.
template <typename T>
std::string PairParamName(const ::testing::TestParamInfo<std::tuple<ConnectMethod, T>>& info) {
  return ConnectMethodParamName({std::get<0>(info.param), info.index}) + "_" + ParamName(std::get<1>(info.param));
}

class PairTest : public DeviceTest, public ::testing::WithParamInterface<ConnectMethod> {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    RDMACHECK_REQUIRE(CapOf(method()));
  }
  ConnectMethod method() const { return GetParam(); }
  // Default options with this instance's connect method.
  PairOptions Options() const {
    PairOptions o;
    o.method = method();
    return o;
  }
};

template <typename T>
class PairTestWith : public DeviceTest, public ::testing::WithParamInterface<std::tuple<ConnectMethod, T>> {
 protected:
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped()) return;
    RDMACHECK_REQUIRE(CapOf(method()));
  }
  ConnectMethod method() const { return std::get<0>(this->GetParam()); }
  const T& param() const { return std::get<1>(this->GetParam()); }
  PairOptions Options() const {
    PairOptions o;
    o.method = method();
    return o;
  }
};

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_PAIR_TEST_H_
