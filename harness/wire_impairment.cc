#include "harness/wire_impairment.h"

#include "absl/flags/flag.h"

ABSL_FLAG(std::string, impaired_wire, "",
          "The impairment profile on the wire to the peer (impair/profiles, set by scripts/wire-lab.sh --impair): "
          "UC and UD may then lose messages, and their tests stop requiring that every one arrives");

namespace rdmacheck {

std::string WireImpairment() { return absl::GetFlag(FLAGS_impaired_wire); }

bool WireImpaired() { return !WireImpairment().empty(); }

uint8_t DefaultRetryCnt() { return WireImpaired() ? 6 : 7; }

}  // namespace rdmacheck
