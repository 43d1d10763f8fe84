// The lint's second half (the first, each assertion's message format: expectation_lint_test.cc):
// a signature is refused if it matches a failure of the same test at another assertion
// line. A timeout reads the same wherever a test waits, so for each test body a shipped
// entry names (suites/) the lint finds the assertions that fail when a wait times out — a
// wait called in the assertion, an assertion on a wait's result, a call of a helper of the
// same file that waits — and renders what each prints: the assertion's own words (its `<<`
// literals) with the harness's timeout (harness/status.h WaitTimedOut) for what it awaits
// and every count it can report. An alternative of a signature may match the timeouts of
// one such line per test.
// Not seen: waits inside helpers of other files (a pair's set-up); a count that is neither
// a literal nor a constant of the file is taken as any.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "capabilities/expectations/expectations.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "harness/status.h"
#include "unit/masked_source.h"

namespace rdmacheck {
namespace {

struct Source {
  std::string path;    // "suites/qp_state/sqd_test.cc"
  std::string text;
  std::string masked;  // comments and literals' insides blanked: brackets in them do not count
  int LineOf(size_t offset) const { return 1 + std::count(text.begin(), text.begin() + offset, '\n'); }
};

Source MakeSource(std::string path, std::string text) {
  std::string masked = MaskCommentsAndLiterals(text);
  return {std::move(path), std::move(text), std::move(masked)};
}

// The bracket that closes masked[open] ('(' or '{'), or npos.
size_t Closing(absl::string_view masked, size_t open) {
  const char o = masked[open], c = o == '(' ? ')' : '}';
  int depth = 0;
  for (size_t i = open; i < masked.size(); ++i) {
    if (masked[i] == o) ++depth;
    if (masked[i] == c && --depth == 0) return i;
  }
  return absl::string_view::npos;
}

// A call's arguments, split at its top-level commas.
std::vector<std::string> Arguments(const Source& s, size_t open) {
  std::vector<std::string> args(1);
  int depth = 0;
  const size_t close = Closing(s.masked, open);
  for (size_t i = open + 1; i < close && close != absl::string_view::npos; ++i) {
    const char m = s.masked[i];
    depth += m == '(' || m == '{' ? 1 : m == ')' || m == '}' ? -1 : 0;
    if (m == ',' && depth == 0) {
      args.emplace_back();
    } else {
      args.back().push_back(s.text[i]);
    }
  }
  for (std::string& a : args) a = std::string(absl::StripAsciiWhitespace(a));
  return args;
}

// What one wait awaits, as its timeout names it, and how many (nullopt: not known here).
struct Wait {
  std::string what;
  std::optional<int> awaited;
};

// The harness's waits: what each awaits, and which argument is its count (-1: one).
struct Waiter {
  const char* name;
  const char* what;  // nullptr: its second argument names it (ExpectCmEvent's event)
  int count_arg;
};
constexpr Waiter kWaiters[] = {
    {"PollCompletions", "completions", 1}, {"PollCompletion", "completions", -1}, {"PollSends", "completions", 0},
    {"PollRecvs", "completions", 0},       {"PollSend", "completions", -1},       {"PollRecv", "completions", -1},
    {"WaitCqEvent", "a completion event", -1}, {"WaitAsyncEvent", "an async event", -1},
    {"WaitCmEvent", "an rdma_cm event", -1},   {"ExpectCmEvent", nullptr, -1},
};

std::optional<int> CountOf(const Source& s, const std::string& arg) {
  int n = 0;
  if (absl::SimpleAtoi(arg, &n)) return n;
  if (!std::regex_match(arg, std::regex("[A-Za-z_]\\w*"))) return std::nullopt;  // an expression
  std::smatch m;  // a constant of the file: "constexpr int kCount = 5;"
  if (std::regex_search(s.text, m, std::regex("constexpr\\s+\\w+\\s+" + arg + "\\s*=\\s*(\\d+)\\s*;")) &&
      absl::SimpleAtoi(m[1].str(), &n)) {
    return n;
  }
  return std::nullopt;
}

// The harness waits called in [from, to), and those of the file's helpers it calls.
std::vector<Wait> WaitsIn(const Source& s, size_t from, size_t to,
                          const std::map<std::string, std::vector<Wait>>& helpers) {
  std::vector<Wait> waits;
  static const std::regex kCall("\\b([A-Za-z_]\\w*)\\s*\\(");
  const std::string range = s.masked.substr(from, to - from);
  for (std::sregex_iterator it(range.begin(), range.end(), kCall), end; it != end; ++it) {
    const std::string name = (*it)[1];
    const size_t open = from + it->position() + it->length() - 1;
    for (const Waiter& w : kWaiters) {
      if (name != w.name) continue;
      const std::vector<std::string> args = Arguments(s, open);
      const std::string what = w.what != nullptr ? w.what : args.size() > 1 ? args[1] : "an rdma_cm event";
      std::optional<int> awaited = 1;
      if (w.count_arg >= 0) {
        awaited = static_cast<size_t>(w.count_arg) < args.size() ? CountOf(s, args[w.count_arg]) : std::nullopt;
      }
      waits.push_back({what, awaited});
    }
    if (auto h = helpers.find(name); h != helpers.end()) waits.insert(waits.end(), h->second.begin(), h->second.end());
  }
  return waits;
}

bool IsKeyword(const std::string& name) {
  static const std::set<std::string> kKeywords = {"if", "for", "while", "switch", "catch", "return", "sizeof"};
  return kKeywords.count(name) != 0 || absl::StartsWith(name, "TEST") || absl::StartsWith(name, "RDMACHECK_");
}

// The file's functions that wait (directly, or through one another), by name.
std::map<std::string, std::vector<Wait>> WaitingHelpers(const Source& s) {
  static const std::regex kHead("\\b([A-Za-z_]\\w*)\\s*\\(");
  std::vector<std::pair<std::string, std::pair<size_t, size_t>>> bodies;
  for (std::sregex_iterator it(s.masked.begin(), s.masked.end(), kHead), end; it != end; ++it) {
    const std::string name = (*it)[1];
    if (IsKeyword(name)) continue;
    const size_t close = Closing(s.masked, it->position() + it->length() - 1);
    if (close == std::string::npos) continue;
    size_t brace = close + 1;
    static const std::regex kQualifiers("^(\\s|const|override|noexcept)*\\{");
    std::smatch q;
    const std::string after = s.masked.substr(brace, 80);
    if (!std::regex_search(after, q, kQualifiers)) continue;
    brace += q.length() - 1;
    bodies.push_back({name, {brace, Closing(s.masked, brace)}});
  }
  std::map<std::string, std::vector<Wait>> helpers;
  for (int round = 0; round < 3; ++round) {  // a helper that calls a helper that waits
    for (const auto& [name, range] : bodies) {
      if (range.second == std::string::npos) continue;
      std::vector<Wait> waits = WaitsIn(s, range.first, range.second, helpers);
      if (!waits.empty()) helpers[name] = std::move(waits);
    }
  }
  return helpers;
}

// An assertion that fails when a wait times out, and what it prints with the timeout.
struct Site {
  int line = 0;
  std::vector<Wait> waits;
  std::vector<std::optional<std::string>> stream;  // its `<<` operands: a literal's text, or nullopt for the status
};

std::string Unescape(absl::string_view literal) {
  std::string out;
  for (size_t i = 0; i < literal.size(); ++i) {
    if (literal[i] == '\\' && i + 1 < literal.size()) {
      ++i;
      out.push_back(literal[i] == 'n' ? '\n' : literal[i]);
    } else {
      out.push_back(literal[i]);
    }
  }
  return out;
}

// The `<<` operands of the statement [from, to): literals as text, the operand that prints
// a wait's status (it names a waited-for variable or `.status()`) as nullopt, others "x".
std::vector<std::optional<std::string>> Stream(const Source& s, size_t from, size_t to,
                                               const std::set<std::string>& waited) {
  std::vector<size_t> cuts;
  int depth = 0;
  for (size_t i = from; i + 1 < to; ++i) {
    depth += s.masked[i] == '(' ? 1 : s.masked[i] == ')' ? -1 : 0;
    if (depth == 0 && s.masked.compare(i, 2, "<<") == 0) cuts.push_back(i++);
  }
  std::vector<std::optional<std::string>> stream;
  for (size_t k = 0; k < cuts.size(); ++k) {
    const std::string operand = s.text.substr(cuts[k] + 2, (k + 1 < cuts.size() ? cuts[k + 1] : to) - cuts[k] - 2);
    static const std::regex kLiteral("\"((?:[^\"\\\\]|\\\\.)*)\"");
    std::string text;
    bool literal = false;
    for (std::sregex_iterator it(operand.begin(), operand.end(), kLiteral), end; it != end; ++it) {
      text += Unescape((*it)[1].str());
      literal = true;
    }
    bool status = absl::StrContains(operand, ".status()");
    for (const std::string& v : waited) status = status || std::regex_search(operand, std::regex("\\b" + v + "\\b"));
    if (literal) {
      stream.push_back(text);
    } else {
      stream.push_back(status ? std::nullopt : std::optional<std::string>("x"));
    }
  }
  return stream;
}

// The timeout sites of the test body [open, close].
std::vector<Site> Sites(const Source& s, size_t open, size_t close,
                        const std::map<std::string, std::vector<Wait>>& helpers) {
  static const std::regex kAssertion("\\b(ASSERT|EXPECT)_\\w+\\s*\\(");
  static const std::regex kNegated("\\b(ASSERT|EXPECT)_FALSE\\s*\\(");
  static const std::regex kAssigned("\\b(\\w+)\\s*=[^=]");
  std::map<std::string, std::vector<Wait>> variables;  // results of waits not asserted where they were made
  std::vector<Site> sites;
  size_t begin = open + 1;
  int parens = 0;
  for (size_t i = open + 1; i <= close; ++i) {
    const char m = s.masked[i];
    parens += m == '(' ? 1 : m == ')' ? -1 : 0;
    if (parens != 0 || (m != ';' && m != '{' && m != '}')) continue;
    const std::string statement = s.masked.substr(begin, i - begin);
    const size_t first = statement.find_first_not_of(" \n");
    if (first == std::string::npos) {
      begin = i + 1;
      continue;
    }
    Site site{s.LineOf(begin + first), WaitsIn(s, begin, i, helpers), {}};
    std::set<std::string> waited;
    std::smatch assigned;
    if (!std::regex_search(statement, kAssertion)) {
      const bool helper_call = std::any_of(helpers.begin(), helpers.end(), [&](const auto& h) {
        return std::regex_search(statement, std::regex("^\\s*" + h.first + "\\s*\\("));
      });
      if (!site.waits.empty() && std::regex_search(statement, assigned, kAssigned)) {
        variables[assigned[1].str()] = site.waits;
      } else if (helper_call) {  // a helper that asserts its own waits
        sites.push_back(std::move(site));
      }
    } else if (!std::regex_search(statement, kNegated)) {
      for (const auto& [name, waits] : variables) {
        if (!std::regex_search(statement, std::regex("\\b" + name + "\\b"))) continue;
        site.waits.insert(site.waits.end(), waits.begin(), waits.end());
        waited.insert(name);
      }
      // Asserted here: a later use of the value (polled->status) runs only if it arrived.
      for (const std::string& name : waited) variables.erase(name);
      site.stream = Stream(s, begin, i, waited);
      if (!site.waits.empty()) sites.push_back(std::move(site));
    }
    begin = i + 1;
  }
  return sites;
}

// What a site prints for each count its waits can report: gtest's frame, the timeout
// (where the assertion's own words do not print it) and those words.
std::vector<std::string> Messages(const Source& s, const Site& site) {
  std::vector<std::string> messages;
  for (const Wait& w : site.waits) {
    for (int awaited : w.awaited ? std::vector<int>{*w.awaited} : std::vector<int>{1, 5, 9}) {
      for (int arrived : std::set<int>{0, 1, awaited - 1}) {
        if (arrived >= awaited) continue;
        const std::string timeout = absl::StrCat(
            "DEADLINE_EXCEEDED: ", WaitTimedOut(absl::Milliseconds(250), w.what, arrived, awaited).message());
        std::string words;
        bool printed = false;
        for (const std::optional<std::string>& operand : site.stream) {
          absl::StrAppend(&words, operand ? *operand : timeout);
          printed = printed || !operand;
        }
        messages.push_back(absl::StrCat(s.path, ":", site.line, ": Value of: x.ok()\n  Actual: false\nExpected: true\n",
                                        printed ? "" : timeout + "\n", words));
      }
    }
  }
  return messages;
}

struct ScannedTest {
  std::string name;  // "QpSqdTest.DrainRaisesSqDrainedHoldsSendsAndRtsResumes"
  const Source* source;
  std::vector<Site> sites;
};

std::vector<ScannedTest> BodiesOf(const Source& s) {
  static const std::regex kTest("\\bTEST(?:_F|_P)?\\s*\\(\\s*(\\w+)\\s*,\\s*(\\w+)\\s*\\)\\s*\\{");
  const std::map<std::string, std::vector<Wait>> helpers = WaitingHelpers(s);
  std::vector<ScannedTest> bodies;
  for (std::sregex_iterator it(s.masked.begin(), s.masked.end(), kTest), end; it != end; ++it) {
    const size_t open = it->position() + it->length() - 1, close = Closing(s.masked, open);
    if (close == std::string::npos) continue;
    bodies.push_back({absl::StrCat((*it)[1].str(), ".", (*it)[2].str()), &s, Sites(s, open, close, helpers)});
  }
  return bodies;
}

// The lines of `body` whose timeouts `alternative` matches.
std::set<int> LinesMatched(const std::string& alternative, const ScannedTest& body) {
  const std::regex re(alternative, std::regex::ECMAScript);
  std::set<int> lines;
  for (const Site& site : body.sites) {
    for (const std::string& m : Messages(*body.source, site)) {
      if (std::regex_search(m, re)) lines.insert(site.line);
    }
  }
  return lines;
}

const std::vector<Source>& SuiteSources() {
  static const auto* sources = [] {
    auto* out = new std::vector<Source>;
    const std::filesystem::path root = RDMACHECK_SOURCE_DIR;
    for (const auto& f : std::filesystem::recursive_directory_iterator(root / "suites")) {
      if (f.path().extension() != ".cc" && f.path().extension() != ".h") continue;
      std::ifstream in(f.path());
      std::stringstream text;
      text << in.rdbuf();
      out->push_back(MakeSource(std::filesystem::relative(f.path(), root).string(), text.str()));
    }
    return out;
  }();
  return *sources;
}

const std::vector<ScannedTest>& SuiteBodies() {
  static const auto* bodies = [] {
    auto* out = new std::vector<ScannedTest>;
    for (const Source& s : SuiteSources()) {
      for (ScannedTest& b : BodiesOf(s)) out->push_back(std::move(b));
    }
    return out;
  }();
  return *bodies;
}

// Why an entry's signature matches the timeouts of two lines of one of its tests, or "".
std::string OtherLine(const Expectation& e) {
  Expectation bodies_of;  // the entry's pattern over test bodies ("Fixture.Name"), instances aside
  bodies_of.test = TestBodyName(e.test);
  for (const ScannedTest& body : SuiteBodies()) {
    if (!bodies_of.Matches(body.name)) continue;
    for (const std::string& alternative : TopLevelAlternatives(e.signature)) {
      const std::set<int> lines = LinesMatched(alternative, body);
      if (lines.size() > 1) {
        return absl::StrCat("/", alternative, "/ matches the timeouts of ", body.name, " at ", body.source->path,
                            " lines ", absl::StrJoin(lines, ", "), ": name what this deviation leaves unfinished");
      }
    }
  }
  return "";
}

constexpr char kTwoWaits[] = R"(
TEST_P(FlushTest, Two) {
  ASSERT_OK_AND_ASSIGN(ibv_wc sent, local.PollSend());  // comments (say "x;") do not count
  absl::StatusOr<ibv_wc> received = remote.PollRecv();
  ASSERT_TRUE(received.ok()) << "the peer's receive never completed: " << received.status();
  absl::StatusOr<ibv_cq*> early = WaitCqEvent(channel(), quiet);
  EXPECT_FALSE(early.ok()) << "an unsolicited SEND woke the CQ";
  constexpr int kCount = 5;
  ASSERT_OK(pair.local().PollSends(kCount).status());
  ASSERT_OK(ExpectCmEvent(server, RDMA_CM_EVENT_CONNECT_REQUEST).status());
}
)";

TEST(ExpectationSitesTest, FindsTheAssertionsAWaitCanFail) {
  const Source s = MakeSource("suites/x/flush_test.cc", kTwoWaits);
  const std::vector<ScannedTest> bodies = BodiesOf(s);
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_EQ(bodies[0].name, "FlushTest.Two");
  std::vector<int> lines;
  for (const Site& site : bodies[0].sites) lines.push_back(site.line);
  EXPECT_THAT(lines, ::testing::ElementsAre(3, 5, 9, 10));  // not the EXPECT_FALSE: a timeout there passes
  EXPECT_EQ(bodies[0].sites[2].waits[0].awaited, 5);
  EXPECT_EQ(bodies[0].sites[3].waits[0].what, "RDMA_CM_EVENT_CONNECT_REQUEST");
}

// The issue's signatures: a bare timeout absorbs every wait of its test.
TEST(ExpectationSitesTest, ATimeoutSignatureMustTellTheTestsWaitsApart) {
  const Source s = MakeSource("suites/x/flush_test.cc", kTwoWaits);
  const ScannedTest body = BodiesOf(s)[0];
  EXPECT_THAT(LinesMatched("waiting for completions: 0 of 1 arrived", body), ::testing::ElementsAre(3, 5));
  EXPECT_THAT(LinesMatched("the peer's receive never completed: [^\\n]*0 of 1 arrived", body),
              ::testing::ElementsAre(5));
  EXPECT_THAT(LinesMatched("waiting for completions: 1 of 5 arrived", body), ::testing::ElementsAre(9));
  EXPECT_THAT(LinesMatched("waiting for RDMA_CM_EVENT_CONNECT_REQUEST: 0 of 1", body), ::testing::ElementsAre(10));
  EXPECT_THAT(LinesMatched("waiting for a completion event", body), ::testing::IsEmpty());
}

TEST(ExpectationSitesTest, TheSuitesAreRead) {
  size_t sites = 0;
  for (const ScannedTest& b : SuiteBodies()) sites += b.sites.size();
  EXPECT_GT(SuiteBodies().size(), 200u);
  EXPECT_GT(sites, 100u);
}

// Every shipped entry: no alternative matches the timeouts of two lines of one test.
TEST(ExpectationSitesTest, ShippedSignaturesNameOneWaitPerTest) {
  absl::StatusOr<std::vector<ExpectationFile>> files = AllShippedExpectations();
  ASSERT_TRUE(files.ok()) << files.status();
  for (const ExpectationFile& f : *files) {
    for (size_t i = 0; i < f.entries.size(); ++i) {
      const Expectation& e = f.entries[i];
      if (e.test.empty() || e.on_the_wire) continue;  // a probe's evidence, a capture's violations
      EXPECT_EQ(OtherLine(e), "") << f.driver << " entry " << i << " (" << e.test << ")";
    }
  }
}

}  // namespace
}  // namespace rdmacheck
