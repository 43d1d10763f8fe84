// The message sizes every data test runs through: the edges of a packet and of the
// largest message.
//
//   0        no payload at all (still a completion, and for SEND a consumed receive)
//   1        one byte
//   MTU-1, MTU, MTU+1   one packet short of full, full, and spilling into a second
//   64 KiB   many packets
//   1 MiB    many packets, beyond any single-page shortcut
//   largest  the port's max_msg_sz, capped at kLargestMessageBudget so the run fits in
//            memory and time (the test records the size it used)
#ifndef RDMACHECK_TESTING_MESSAGE_SIZES_H_
#define RDMACHECK_TESTING_MESSAGE_SIZES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "harness/device.h"

namespace rdmacheck {

enum class MessageSize { kZero, kOne, kMtuMinusOne, kMtu, kMtuPlusOne, k64KiB, k1MiB, kLargest };

inline constexpr uint32_t kLargestMessageBudget = 16u << 20;

// Bytes after a message's end that must stay untouched (a canary): a device that writes
// past the message, or past the receive's length, changes one of them.
inline constexpr uint32_t kCanaryBytes = 64;

// The immediate data the datapath tests send: the high bit set, so that a sign or
// byte-order slip shows.
inline constexpr uint32_t kTestImmediate = 0x8badf00d;

const std::vector<MessageSize>& AllMessageSizes();
std::string ParamName(MessageSize size);  // "Zero", "MtuPlusOne", ...

// The bytes of `size` on `selection`'s port (MTU: its active MTU).
uint32_t MessageBytes(MessageSize size, const Selection& selection);

// A buffer for a message of `bytes`: at least one page.
size_t BufferFor(uint32_t bytes);

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_MESSAGE_SIZES_H_
