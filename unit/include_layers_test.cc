// The house reads bottom-up: each top-level folder includes only itself and the folders
// below it. This test reads every #include "folder/..." line of the project's sources and
// fails on one that reaches up (or sideways into a folder it does not build on).
//
// It also holds each file to including the Abseil string header of the functions it
// calls: an older Abseil pulls str_cat.h in through status.h, a newer one (sid's) does not,
// and a file that leaned on that built here and failed in the image's chroot.
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace {

namespace fs = std::filesystem;

// Folder -> the project folders its files may include (besides its own). Bottom to top;
// the README's layout table describes the same stack.
const std::map<std::string, std::set<std::string>>& Layers() {
  static const auto* layers = new std::map<std::string, std::set<std::string>>{
      {"harness", {}},
      {"results", {"harness"}},
      {"capabilities", {"harness", "results"}},
      {"machine", {"harness", "results", "capabilities"}},
      {"doctor", {"harness", "results", "capabilities"}},
      {"testing", {"harness", "results", "capabilities"}},
      {"suites", {"harness", "capabilities", "testing", "walk"}},
      {"wire", {"harness", "results"}},
      {"reports", {"harness", "results", "capabilities", "machine", "wire"}},
      {"bench", {"harness", "results", "capabilities", "reports"}},
      {"runner", {"harness", "results", "capabilities", "doctor", "testing", "wire"}},
      {"walk", {"harness"}},
      {"plan", {"harness", "results", "capabilities", "doctor", "testing", "runner"}},
      {"cli", {"harness", "results", "capabilities", "machine", "doctor", "testing", "reports", "bench", "runner", "wire", "walk",
               "plan"}},
      // Test-only code on top: the selftest's deliberately broken suites, the unit tests.
      {"selftest", {"harness", "results", "capabilities", "testing"}},
  };
  return *layers;
}

struct Include {
  std::string file;  // relative to the source tree
  int line = 0;
  std::string target;  // the included path
};

// Every C++ source of the layered folders (and unit/), as path -> its lines.
std::map<fs::path, std::vector<std::string>> ProjectSources(const fs::path& root) {
  std::map<fs::path, std::vector<std::string>> sources;
  std::vector<std::string> folders = {"unit"};
  for (const auto& [folder, unused] : Layers()) folders.push_back(folder);
  for (const std::string& folder : folders) {
    if (!fs::exists(root / folder)) continue;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / folder)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cc" && ext != ".h" && ext != ".in")) continue;
      std::ifstream in(e.path());
      std::vector<std::string>& lines = sources[fs::relative(e.path(), root)];
      for (std::string text; std::getline(in, text);) lines.push_back(text);
    }
  }
  return sources;
}

std::vector<Include> ProjectIncludes(const fs::path& root) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s+"(([a-z_]+)/[^"]+)")re");
  std::vector<Include> found;
  for (const auto& [file, lines] : ProjectSources(root)) {
    for (size_t i = 0; i < lines.size(); ++i) {
      std::smatch m;
      if (std::regex_search(lines[i], m, kInclude)) found.push_back({file.string(), static_cast<int>(i + 1), m[1]});
    }
  }
  return found;
}

std::string TopFolder(const std::string& path) { return path.substr(0, path.find('/')); }

TEST(IncludeLayersTest, NoFolderIncludesAFolderAboveIt) {
  const fs::path root = RDMACHECK_SOURCE_DIR;
  std::vector<Include> includes = ProjectIncludes(root);
  includes.erase(std::remove_if(includes.begin(), includes.end(),
                                [](const Include& inc) { return TopFolder(inc.file) == "unit"; }),
                 includes.end());
  ASSERT_GT(includes.size(), 100u) << "read too few include lines under " << root;
  std::vector<std::string> violations;
  for (const Include& inc : includes) {
    const std::string from = TopFolder(inc.file), to = TopFolder(inc.target);
    if (from == to || !Layers().count(to)) continue;  // own folder; a library's header
    if (!Layers().at(from).count(to)) {
      violations.push_back(inc.file + ":" + std::to_string(inc.line) + " (" + from + ") includes " + inc.target +
                           " (" + to + ")");
    }
  }
  EXPECT_THAT(violations, ::testing::IsEmpty());
}

// A new top-level folder with C++ in it must take its place in the table above.
TEST(IncludeLayersTest, EveryFolderWithSourcesHasALayer) {
  const fs::path root = RDMACHECK_SOURCE_DIR;
  const std::set<std::string> not_layers = {"unit", "build", "out", ".git"};
  std::vector<std::string> unknown;
  for (const fs::directory_entry& dir : fs::directory_iterator(root)) {
    const std::string name = dir.path().filename().string();
    if (!dir.is_directory() || not_layers.count(name) || Layers().count(name) || name.rfind("build", 0) == 0) continue;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir.path())) {
      if (e.path().extension() == ".cc" || e.path().extension() == ".h") {
        unknown.push_back(name);
        break;
      }
    }
  }
  EXPECT_THAT(unknown, ::testing::IsEmpty()) << "add these folders to Layers()";
}

// Abseil's string functions -> the header that declares them. A call is `absl::Name(`.
const std::vector<std::pair<std::regex, std::string>>& AbseilStringHeaders() {
  static const auto* table = new std::vector<std::pair<std::regex, std::string>>{
      {std::regex(R"(absl::(StrCat|StrAppend)\()"), "absl/strings/str_cat.h"},
      {std::regex(R"(absl::StrJoin\()"), "absl/strings/str_join.h"},
      {std::regex(R"(absl::StrSplit\()"), "absl/strings/str_split.h"},
      {std::regex(R"(absl::(StrFormat|PrintF|FPrintF)\()"), "absl/strings/str_format.h"},
      {std::regex(R"(absl::Simple(Atoi|Atod|Atof|Atob|HexAtoi)\()"), "absl/strings/numbers.h"},
      {std::regex(R"(absl::(StrContains|StartsWith|EndsWith|EqualsIgnoreCase)\()"), "absl/strings/match.h"},
      {std::regex(R"(absl::(Strip\w*AsciiWhitespace|AsciiStrTo(Lower|Upper))\()"), "absl/strings/ascii.h"},
      {std::regex(R"(absl::StrReplaceAll\()"), "absl/strings/str_replace.h"},
      {std::regex(R"(absl::(ConsumePrefix|ConsumeSuffix|StripPrefix|StripSuffix)\()"), "absl/strings/strip.h"},
  };
  return *table;
}

// A .cc may lean on its own header's includes; anything else names the header itself.
TEST(IncludeLayersTest, EachFileIncludesTheAbseilStringHeadersItCalls) {
  const fs::path root = RDMACHECK_SOURCE_DIR;
  const std::map<fs::path, std::vector<std::string>> sources = ProjectSources(root);
  ASSERT_GT(sources.size(), 100u) << "read too few sources under " << root;
  std::vector<std::string> missing;
  for (const auto& [file, lines] : sources) {
    std::vector<std::string> visible = lines;
    fs::path own_header = file;
    own_header.replace_extension(".h");
    if (file.extension() == ".cc" && sources.count(own_header)) {
      visible.insert(visible.end(), sources.at(own_header).begin(), sources.at(own_header).end());
    }
    for (const auto& [call, header] : AbseilStringHeaders()) {
      const bool included = std::any_of(visible.begin(), visible.end(), [&](const std::string& l) {
        return l.find("#include \"" + header + "\"") != std::string::npos;
      });
      if (included) continue;
      for (size_t i = 0; i < lines.size(); ++i) {
        if (std::regex_search(lines[i].substr(0, lines[i].find("//")), call)) {
          missing.push_back(file.string() + ":" + std::to_string(i + 1) + " needs " + header);
          break;
        }
      }
    }
  }
  EXPECT_THAT(missing, ::testing::IsEmpty());
}

}  // namespace
