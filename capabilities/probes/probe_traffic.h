// What the traffic probes share: a connected pair by whichever method works, checked
// sends, completions that must succeed, and the one rule that turns an attempt and a check
// into an observation (Judge).
//
// Each traffic probe gets fresh pairs in its own probe process: a failed operation moves
// its QP to the error state and must not spoil the next probe.
#ifndef RDMACHECK_CAPABILITIES_PROBES_PROBE_TRAFFIC_H_
#define RDMACHECK_CAPABILITIES_PROBES_PROBE_TRAFFIC_H_

#include <infiniband/verbs.h>

#include <cstdint>
#include <initializer_list>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "absl/types/span.h"
#include "capabilities/probes/probe_runner.h"
#include "harness/connection/connected_pair.h"

namespace rdmacheck {

inline constexpr uint32_t kProbeLength = 64;         // bytes each probe moves
inline constexpr uint32_t kProbeImmediate = 0x1234abcd;
inline constexpr absl::Duration kTrafficBudget = absl::Seconds(30);  // connecting under TCG is slow

// A recognizable pattern, different per `seed`; and the check that it arrived.
void Fill(absl::Span<uint8_t> bytes, uint8_t seed);
absl::Status SameBytes(absl::Span<const uint8_t> got, absl::Span<const uint8_t> want, absl::string_view what);

// `status` with `what` in front of its message; the errno payload stays.
absl::Status InContext(const absl::Status& status, absl::string_view what);

// A completion that must be successful.
absl::StatusOr<ibv_wc> Succeeded(absl::StatusOr<ibv_wc> wc, absl::string_view what);

// Records `cap` from a two-stage attempt: `attempt` failing goes through ProbeScope::Tried
// (unsupported only when a verb refused it up front or the device declares it absent;
// an error completion of an accepted request is broken); `check` failing means it worked
// wrongly (broken); else supported with `detail`.
void Judge(ProbeScope& s, Cap cap, const absl::Status& attempt, const absl::Status& check, absl::string_view detail);

// Pair options for operation probes: RC, with remote atomics and memory-window binding
// allowed on the buffers.
PairOptions RcOptions();

// An RC pair by whichever method the device accepts (by hand first on InfiniBand/RoCE,
// rdma_cm first on iWARP); `how` says which. When none works, every cap in `caps` is
// recorded `broken` ("no RC connection to try it on": every transport carries RC) and the
// error returned.
absl::StatusOr<ConnectedPair> PairFor(ProbeScope& s, std::initializer_list<Cap> caps, std::string& how,
                                      PairOptions options = RcOptions());

// A SEND of kProbeLength bytes from local to remote, data checked. UD receives start with
// the 40-byte GRH (IBTA 11.4.1.2).
absl::Status SendAndCheck(ConnectedPair& pair, bool ud);

// Binds a type 2 window over `e`'s buffer by a BIND_MW work request on `e`'s QP; returns
// the window's new rkey.
absl::StatusOr<uint32_t> BindType2(Endpoint& e, ibv_mw* mw, size_t offset, uint32_t length);

}  // namespace rdmacheck

#endif  // RDMACHECK_CAPABILITIES_PROBES_PROBE_TRAFFIC_H_
