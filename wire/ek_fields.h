// Reading fields out of tshark's Elasticsearch output (`tshark -T ek`): one JSON object per
// packet, {"timestamp": ..., "layers": {"<layer>": {...} or [{...}, {...}]}}, where a layer
// that occurs twice in a packet (two FPDUs in one TCP segment) is an array of instances and
// a field "iwarp_ddp.qn" of layer "iwarp_ddp_rdmap" is the key "iwarp_ddp_rdmap_iwarp_ddp_qn".
// Values are strings ("17", "0x000012", "11:40:ff"), booleans, null (a subtree) or arrays
// (a field repeated inside one instance; the first value is taken).
#ifndef RDMACHECK_WIRE_EK_FIELDS_H_
#define RDMACHECK_WIRE_EK_FIELDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace rdmacheck {

class EkLayer {
 public:
  EkLayer(const nlohmann::json* fields, std::string layer) : fields_(fields), layer_(std::move(layer)) {}

  bool Has(absl::string_view field) const;
  std::optional<std::string> Text(absl::string_view field) const;
  // Decimal ("17") or hexadecimal ("0x000012").
  std::optional<uint64_t> Number(absl::string_view field) const;
  uint64_t NumberOr(absl::string_view field, uint64_t fallback) const { return Number(field).value_or(fallback); }
  // true, or "1"/"True".
  bool Flag(absl::string_view field) const;
  // "11:40:ff" (or "1140ff") as bytes.
  std::optional<std::string> Bytes(absl::string_view field) const;
  // Any key of this instance starting with the field's key (a subtree's fields).
  bool HasPrefix(absl::string_view field) const;
  // An expert-info field ("tcp.analysis.retransmission"): EK nests those under "_ws_expert".
  bool HasExpert(absl::string_view field) const;

 private:
  const nlohmann::json* Value(absl::string_view field) const;
  std::string Key(absl::string_view field) const;

  const nlohmann::json* fields_;
  std::string layer_;
};

// The instances of `layer` in a packet's "layers" object (none, one, or one per occurrence).
std::vector<EkLayer> LayerInstances(const nlohmann::json& layers, const std::string& layer);

}  // namespace rdmacheck

#endif  // RDMACHECK_WIRE_EK_FIELDS_H_
