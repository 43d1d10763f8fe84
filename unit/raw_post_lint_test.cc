// Every post goes through harness/verbs/post.h: the end-of-test check bounds a QP's
// completions by the work requests posted to it (harness/leftover_completions.h), and a post
// the counts never see would make a correct device's completions look like a surplus. This
// lint reads suites/, testing/ and harness/ and fails on a call of a verb that posts work
// (ibv_post_send, ibv_post_recv, ibv_post_srq_recv, ibv_wr_complete, ibv_bind_mw, the
// rdma_post_* of <rdma/rdma_verbs.h>) anywhere but in post.cc itself, with the wrapper to
// call instead.
//
// Allowed: a call inside CallInChild(...) (testing/in_child.h). It runs in a forked child,
// where no count reaches the test's process and the wrapper's lock, held by another thread
// at the fork, could hang the child; the test marks the QP MarkUncounted instead.
// Not read: bench/ (its own QPs, no check installed), walk/ (its own objects), the probes in
// capabilities/ (they run before any test, with no check installed), selftest/ (the mutants
// interpose on the verbs themselves).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "unit/masked_source.h"

namespace rdmacheck {
namespace {

namespace fs = std::filesystem;

// The verbs that post, and what to call instead.
const std::vector<std::pair<std::string, std::string>>& Replacements() {
  static const auto* table = new std::vector<std::pair<std::string, std::string>>{
      {"ibv_post_send", "PostSend"},
      {"ibv_post_recv", "PostRecv"},
      {"ibv_post_srq_recv", "PostSrqRecv"},
      {"ibv_wr_complete", "WrComplete(qpx, number of WRs in the batch)"},
      {"ibv_bind_mw", "BindMw"},
  };
  return *table;
}

// [open, close) of each CallInChild(...) argument list in `masked`.
std::vector<std::pair<size_t, size_t>> ChildCalls(const std::string& masked) {
  static const std::regex kCall(R"(\bCallInChild\s*\()");
  std::vector<std::pair<size_t, size_t>> spans;
  for (auto it = std::sregex_iterator(masked.begin(), masked.end(), kCall); it != std::sregex_iterator(); ++it) {
    const size_t open = static_cast<size_t>(it->position() + it->length() - 1);
    int depth = 0;
    size_t close = masked.size();
    for (size_t i = open; i < masked.size(); ++i) {
      if (masked[i] == '(') ++depth;
      if (masked[i] == ')' && --depth == 0) {
        close = i;
        break;
      }
    }
    spans.emplace_back(open, close);
  }
  return spans;
}

// "LINE: verb(...): call WRAPPER (harness/verbs/post.h)" for each raw post in `text`.
std::vector<std::string> RawPosts(absl::string_view text) {
  static const std::regex kVerb(
      R"(\b(ibv_post_send|ibv_post_recv|ibv_post_srq_recv|ibv_wr_complete|ibv_bind_mw|rdma_post_\w+)\s*\()");
  const std::string masked = MaskCommentsAndLiterals(text);
  const std::vector<std::pair<size_t, size_t>> children = ChildCalls(masked);
  std::vector<std::string> found;
  for (auto it = std::sregex_iterator(masked.begin(), masked.end(), kVerb); it != std::sregex_iterator(); ++it) {
    const size_t at = static_cast<size_t>(it->position());
    const bool in_child = std::any_of(children.begin(), children.end(),
                                      [&](const auto& span) { return span.first < at && at < span.second; });
    if (in_child) continue;
    const std::string verb = (*it)[1];
    std::string instead = "PostSend / PostRecv on the id's QP";  // rdma_post_*
    for (const auto& [raw, wrapper] : Replacements()) {
      if (raw == verb) instead = wrapper;
    }
    const int line = 1 + static_cast<int>(std::count(masked.begin(), masked.begin() + at, '\n'));
    found.push_back(absl::StrCat(line, ": ", verb, "(...): call ", instead, " (harness/verbs/post.h)"));
  }
  return found;
}

TEST(RawPostLintTest, FindsACallButNotANameInACommentALiteralOrAChild) {
  const std::string source = R"cc(
RDMACHECK_ABOUT(T, A, "ibv_post_send(3) refuses it", "ibv_post_recv(3)");
// ibv_post_send(qp, &wr, &bad) would not be counted
TEST_F(T, A) {
  int rc = ibv_post_send(qp, &wr, &bad);
  rc = PostRecv(qp, &recv, &bad);
  auto child = CallInChild([&] { return ibv_post_recv(qp, &recv, &bad); }, DefaultWait());
  EXPECT_EQ(ibv_wr_complete (qpx), 0);
}
)cc";
  EXPECT_THAT(RawPosts(source),
              ::testing::ElementsAre("5: ibv_post_send(...): call PostSend (harness/verbs/post.h)",
                                     ::testing::HasSubstr("8: ibv_wr_complete(...): call WrComplete")));
}

TEST(RawPostLintTest, NoRawPostsOutsideTheCountingWrapper) {
  const fs::path root = RDMACHECK_SOURCE_DIR;
  int files = 0;
  std::vector<std::string> raw;
  for (const char* folder : {"suites", "testing", "harness"}) {
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / folder)) {
      const std::string ext = e.path().extension().string();
      if (!e.is_regular_file() || (ext != ".cc" && ext != ".h")) continue;
      const std::string file = fs::relative(e.path(), root).string();
      if (file == "harness/verbs/post.cc") continue;  // the wrapper itself
      std::ifstream in(e.path());
      std::stringstream text;
      text << in.rdbuf();
      ++files;
      for (const std::string& post : RawPosts(text.str())) raw.push_back(absl::StrCat(file, ":", post));
    }
  }
  ASSERT_GT(files, 100) << "read too few sources under " << root;
  EXPECT_THAT(raw, ::testing::IsEmpty());
}

}  // namespace
}  // namespace rdmacheck
