#include "reports/fleet/results_skim.h"

#include <fstream>
#include <sstream>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "results/results.h"

namespace rdmacheck {
namespace {

// A test's members the fleet never reads (results/results.cc TestFromJson defaults them).
constexpr absl::string_view kDropped[] = {"\"purpose\"",    "\"reference\"", "\"needs\"",   "\"expectation\"",
                                          "\"kernel_log\"", "\"duration_ms\"", "\"setup_ms\""};

// Where a value sits: the document, its "tests" array, one test, a test's counters
// ("traffic": only its "flag" is kept), or anything else (copied as written).
enum class Place { kDocument, kTests, kTest, kTraffic, kVerbatim };

// A scanner over the text that copies it to `out_`, dropping kDropped members of each
// test. It only finds where values end (strings by their closing quote, containers by
// their brackets); the JSON parser validates what is copied.
class Skimmer {
 public:
  explicit Skimmer(absl::string_view in) : in_(in) {}

  bool Document(std::string& out) {
    out.reserve(in_.size() / 2);
    if (!Copy(Place::kDocument, out)) return false;
    SkipSpace();
    return p_ == in_.size();
  }

 private:
  static bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  void SkipSpace() {
    while (p_ < in_.size() && IsSpace(in_[p_])) ++p_;
  }
  char Peek() const { return p_ < in_.size() ? in_[p_] : '\0'; }

  // At an opening quote: past the closing one.
  bool SkipString() {
    for (++p_; p_ < in_.size(); ++p_) {
      if (in_[p_] == '\\') {
        ++p_;  // the escaped character, whatever it is
      } else if (in_[p_] == '"') {
        ++p_;
        return true;
      }
    }
    return false;
  }

  // Past one value of any kind.
  bool SkipValue() {
    SkipSpace();
    const char c = Peek();
    if (c == '"') return SkipString();
    if (c == '{' || c == '[') {
      int depth = 0;
      while (p_ < in_.size()) {
        const char d = in_[p_];
        if (d == '"') {
          if (!SkipString()) return false;
          continue;
        }
        if (d == '{' || d == '[') ++depth;
        if ((d == '}' || d == ']') && --depth == 0) {
          ++p_;
          return true;
        }
        ++p_;
      }
      return false;
    }
    const size_t start = p_;  // a number, true, false or null
    while (p_ < in_.size() && !IsSpace(in_[p_]) && in_[p_] != ',' && in_[p_] != '}' && in_[p_] != ']') ++p_;
    return p_ > start;
  }

  bool Copy(Place place, std::string& out) {
    SkipSpace();
    if (place == Place::kDocument || place == Place::kTest || place == Place::kTraffic) {
      if (Peek() == '{') return CopyObject(place, out);
    } else if (place == Place::kTests && Peek() == '[') {
      return CopyArray(Place::kTest, out);
    }
    const size_t start = p_;
    if (!SkipValue()) return false;
    out.append(in_.data() + start, p_ - start);
    return true;
  }

  static bool Dropped(Place place, absl::string_view key) {
    if (place == Place::kTraffic) return key != "\"flag\"";
    if (place != Place::kTest) return false;
    for (absl::string_view d : kDropped) {
      if (key == d) return true;
    }
    return false;
  }

  static Place ChildOf(Place place, absl::string_view key) {
    if (place == Place::kDocument && key == "\"tests\"") return Place::kTests;
    if (place == Place::kTest && key == "\"traffic\"") return Place::kTraffic;
    return Place::kVerbatim;
  }

  bool CopyObject(Place place, std::string& out) {
    ++p_;
    out += '{';
    SkipSpace();
    bool first = true;
    if (Peek() == '}') {
      ++p_;
      out += '}';
      return true;
    }
    while (true) {
      SkipSpace();
      if (Peek() != '"') return false;
      const size_t key_start = p_;
      if (!SkipString()) return false;
      const absl::string_view key = in_.substr(key_start, p_ - key_start);
      SkipSpace();
      if (Peek() != ':') return false;
      ++p_;
      if (Dropped(place, key)) {
        if (!SkipValue()) return false;
      } else {
        if (!first) out += ',';
        first = false;
        out.append(key.data(), key.size());
        out += ':';
        if (!Copy(ChildOf(place, key), out)) return false;
      }
      SkipSpace();
      if (Peek() == ',') {
        ++p_;
        continue;
      }
      if (Peek() != '}') return false;
      ++p_;
      out += '}';
      return true;
    }
  }

  bool CopyArray(Place element, std::string& out) {
    ++p_;
    out += '[';
    SkipSpace();
    if (Peek() == ']') {
      ++p_;
      out += ']';
      return true;
    }
    while (true) {
      if (!Copy(element, out)) return false;
      SkipSpace();
      if (Peek() == ',') {
        ++p_;
        out += ',';
        continue;
      }
      if (Peek() != ']') return false;
      ++p_;
      out += ']';
      return true;
    }
  }

  absl::string_view in_;
  size_t p_ = 0;
};

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

}  // namespace

absl::StatusOr<std::string> SkimResults(absl::string_view results_json) {
  std::string out;
  if (!Skimmer(results_json).Document(out)) return absl::InvalidArgumentError("not valid JSON");
  return out;
}

absl::StatusOr<DeviceRun> LoadFleetRun(const std::string& dir) {
  DeviceRun run;
  run.source = dir;
  const std::string results_path = dir + "/results.json";
  absl::StatusOr<std::string> text = ReadWholeFile(results_path);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::string> skimmed = SkimResults(*text);
  *text = std::string();  // the whole file is no longer needed
  nlohmann::json json = skimmed.ok() ? nlohmann::json::parse(*skimmed, nullptr, /*allow_exceptions=*/false)
                                     : nlohmann::json(nlohmann::json::value_t::discarded);
  if (json.is_discarded()) return absl::InvalidArgumentError(absl::StrCat(results_path, ": not valid JSON"));
  absl::StatusOr<RunResults> results = ResultsFromJson(json);
  if (!results.ok()) return absl::InvalidArgumentError(absl::StrCat(results_path, ": ", results.status().message()));
  run.results = *std::move(results);
  if (absl::Status s = LoadCapabilities(dir, run); !s.ok()) return s;
  return run;
}

}  // namespace rdmacheck
