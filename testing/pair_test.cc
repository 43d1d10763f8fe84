#include "testing/pair_test.h"

#include <algorithm>

#include "testing/message_sizes.h"

namespace rdmacheck {

Cap CapOf(ConnectMethod method) { return method == ConnectMethod::kManual ? Cap::kManualConnect : Cap::kRdmaCm; }

std::string ConnectMethodParamName(const ::testing::TestParamInfo<ConnectMethod>& info) {
  return info.param == ConnectMethod::kManual ? "Manual" : "RdmaCm";
}

const std::vector<MessageSize>& AllMessageSizes() {
  static const std::vector<MessageSize> sizes = {MessageSize::kZero,       MessageSize::kOne,    MessageSize::kMtuMinusOne,
                                                 MessageSize::kMtu,        MessageSize::kMtuPlusOne, MessageSize::k64KiB,
                                                 MessageSize::k1MiB,       MessageSize::kLargest};
  return sizes;
}

std::string ParamName(MessageSize size) {
  switch (size) {
    case MessageSize::kZero: return "Zero";
    case MessageSize::kOne: return "One";
    case MessageSize::kMtuMinusOne: return "MtuMinusOne";
    case MessageSize::kMtu: return "Mtu";
    case MessageSize::kMtuPlusOne: return "MtuPlusOne";
    case MessageSize::k64KiB: return "64KiB";
    case MessageSize::k1MiB: return "1MiB";
    case MessageSize::kLargest: return "Largest";
  }
  return "Unknown";
}

uint32_t MessageBytes(MessageSize size, const Selection& selection) {
  const uint32_t mtu = static_cast<uint32_t>(MtuBytes(selection.port_attr.active_mtu));
  switch (size) {
    case MessageSize::kZero: return 0;
    case MessageSize::kOne: return 1;
    case MessageSize::kMtuMinusOne: return mtu - 1;
    case MessageSize::kMtu: return mtu;
    case MessageSize::kMtuPlusOne: return mtu + 1;
    case MessageSize::k64KiB: return 64u << 10;
    case MessageSize::k1MiB: return 1u << 20;
    case MessageSize::kLargest: return std::min(selection.port_attr.max_msg_sz, kLargestMessageBudget);
  }
  return 0;
}

size_t BufferFor(uint32_t bytes) { return std::max<size_t>(bytes, 4096); }

}  // namespace rdmacheck
