#include "wire/ek_fields.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/strip.h"

namespace rdmacheck {

std::string EkLayer::Key(absl::string_view field) const {
  return layer_ + "_" + absl::StrReplaceAll(field, {{".", "_"}});
}

const nlohmann::json* EkLayer::Value(absl::string_view field) const {
  if (fields_ == nullptr || !fields_->is_object()) return nullptr;
  auto it = fields_->find(Key(field));
  if (it == fields_->end()) return nullptr;
  const nlohmann::json* v = &*it;
  if (v->is_array()) v = v->empty() ? nullptr : &(*v)[0];
  return v;
}

bool EkLayer::Has(absl::string_view field) const {
  return fields_ != nullptr && fields_->is_object() && fields_->contains(Key(field));
}

bool EkLayer::HasPrefix(absl::string_view field) const {
  if (fields_ == nullptr || !fields_->is_object()) return false;
  const std::string key = Key(field);
  for (auto it = fields_->begin(); it != fields_->end(); ++it) {
    if (absl::StartsWith(it.key(), key)) return true;
  }
  return false;
}

bool EkLayer::HasExpert(absl::string_view field) const {
  if (fields_ == nullptr || !fields_->is_object()) return false;
  auto it = fields_->find("_ws_expert");
  if (it == fields_->end()) return false;
  const std::string key = Key(field);
  if (it->is_array()) {
    for (const nlohmann::json& expert : *it) {
      if (expert.is_object() && expert.contains(key)) return true;
    }
    return false;
  }
  return it->is_object() && it->contains(key);
}

std::optional<std::string> EkLayer::Text(absl::string_view field) const {
  const nlohmann::json* v = Value(field);
  if (v == nullptr) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  if (v->is_boolean()) return std::string(v->get<bool>() ? "1" : "0");
  if (v->is_number()) return v->dump();
  return std::nullopt;
}

std::optional<uint64_t> EkLayer::Number(absl::string_view field) const {
  std::optional<std::string> text = Text(field);
  if (!text) return std::nullopt;
  uint64_t n = 0;
  absl::string_view t = absl::StripAsciiWhitespace(*text);
  if (absl::ConsumePrefix(&t, "0x") || absl::ConsumePrefix(&t, "0X")) {
    if (!absl::SimpleHexAtoi(t, &n)) return std::nullopt;
  } else if (!absl::SimpleAtoi(t, &n)) {
    return std::nullopt;
  }
  return n;
}

bool EkLayer::Flag(absl::string_view field) const {
  std::optional<std::string> text = Text(field);
  return text && (*text == "1" || absl::EqualsIgnoreCase(*text, "true"));
}

std::optional<std::string> EkLayer::Bytes(absl::string_view field) const {
  std::optional<std::string> text = Text(field);
  if (!text) return std::nullopt;
  std::string hex = absl::StrReplaceAll(*text, {{":", ""}});
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string bytes;
  bytes.reserve(hex.size() / 2);
  for (size_t i = 0; i < hex.size(); i += 2) {
    uint32_t b = 0;
    if (!absl::SimpleHexAtoi(absl::string_view(hex).substr(i, 2), &b)) return std::nullopt;
    bytes.push_back(static_cast<char>(b));
  }
  return bytes;
}

std::vector<EkLayer> LayerInstances(const nlohmann::json& layers, const std::string& layer) {
  std::vector<EkLayer> found;
  auto it = layers.find(layer);
  if (it == layers.end()) return found;
  if (it->is_array()) {
    for (const nlohmann::json& instance : *it) found.emplace_back(&instance, layer);
  } else {
    found.emplace_back(&*it, layer);
  }
  return found;
}

}  // namespace rdmacheck
