// The house reads bottom-up: each top-level folder includes only itself and the folders
// below it. This test reads every #include "folder/..." line of the project's sources and
// fails on one that reaches up (or sideways into a folder it does not build on).
#include <filesystem>
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
      {"doctor", {"harness", "results", "capabilities"}},
      {"testing", {"harness", "results", "capabilities"}},
      {"suites", {"harness", "capabilities", "testing"}},
      {"wire", {"harness", "results"}},
      {"reports", {"harness", "results", "capabilities", "wire"}},
      {"bench", {"harness", "results", "capabilities", "reports"}},
      {"runner", {"harness", "results", "capabilities", "doctor", "testing", "wire"}},
      {"cli", {"harness", "results", "capabilities", "doctor", "testing", "reports", "bench", "runner", "wire"}},
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

std::vector<Include> ProjectIncludes(const fs::path& root) {
  static const std::regex kInclude(R"re(^\s*#\s*include\s+"(([a-z_]+)/[^"]+)")re");
  std::vector<Include> found;
  for (const auto& [folder, unused] : Layers()) {
    if (!fs::exists(root / folder)) continue;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / folder)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cc" && ext != ".h" && ext != ".in")) continue;
      std::ifstream in(e.path());
      std::string text;
      int n = 0;
      while (std::getline(in, text)) {
        ++n;
        std::smatch m;
        if (std::regex_search(text, m, kInclude)) {
          found.push_back({fs::relative(e.path(), root).string(), n, m[1]});
        }
      }
    }
  }
  return found;
}

std::string TopFolder(const std::string& path) { return path.substr(0, path.find('/')); }

TEST(IncludeLayersTest, NoFolderIncludesAFolderAboveIt) {
  const fs::path root = RDMACHECK_SOURCE_DIR;
  std::vector<Include> includes = ProjectIncludes(root);
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

}  // namespace
