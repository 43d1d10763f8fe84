#include "plan/promise_parser.h"

#include <algorithm>
#include <filesystem>
#include <regex>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace rdmacheck {
namespace {

// The errno names of Linux (errno(3)): a word is an errno only if it is one of these.
const std::set<std::string>& ErrnoNames() {
  static const auto* names = new std::set<std::string>{
      "E2BIG", "EACCES", "EADDRINUSE", "EADDRNOTAVAIL", "EAFNOSUPPORT", "EAGAIN", "EALREADY", "EBADF", "EBADMSG",
      "EBUSY", "ECANCELED", "ECHILD", "ECONNABORTED", "ECONNREFUSED", "ECONNRESET", "EDEADLK", "EDESTADDRREQ",
      "EDOM", "EDQUOT", "EEXIST", "EFAULT", "EFBIG", "EHOSTDOWN", "EHOSTUNREACH", "EIDRM", "EILSEQ", "EINPROGRESS",
      "EINTR", "EINVAL", "EIO", "EISCONN", "EISDIR", "ELOOP", "EMFILE", "EMLINK", "EMSGSIZE", "ENAMETOOLONG",
      "ENETDOWN", "ENETRESET", "ENETUNREACH", "ENFILE", "ENOBUFS", "ENODATA", "ENODEV", "ENOENT", "ENOEXEC",
      "ENOLCK", "ENOLINK", "ENOMEM", "ENOMSG", "ENOPROTOOPT", "ENOSPC", "ENOSYS", "ENOTBLK", "ENOTCONN",
      "ENOTDIR", "ENOTEMPTY", "ENOTSOCK", "ENOTSUP", "ENOTTY", "ENXIO", "EOPNOTSUPP", "EOVERFLOW", "EPERM",
      "EPIPE", "EPROTO", "EPROTONOSUPPORT", "EPROTOTYPE", "ERANGE", "EREMOTEIO", "EROFS", "ESPIPE", "ESRCH",
      "ESTALE", "ETIME", "ETIMEDOUT", "ETXTBSY", "EWOULDBLOCK", "EXDEV"};
  return *names;
}

bool ReadsPromises(const std::string& section) {
  return !section.empty() && section != "NAME" && !absl::StartsWith(section, "SEE ALSO") &&
         !absl::StartsWith(section, "AUTHOR") && !absl::StartsWith(section, "EXAMPLE");
}

bool IsWordChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

struct Word {
  size_t pos;
  std::string text;
};

std::vector<Word> Words(const std::string& text) {
  std::vector<Word> words;
  for (size_t i = 0; i < text.size();) {
    if (!IsWordChar(text[i])) {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < text.size() && IsWordChar(text[i])) ++i;
    words.push_back({start, text.substr(start, i - start)});
  }
  return words;
}

// IBV_ACCESS_MW_BIND yes; IBV_ACCESS_* (a family, not a constant) no.
bool IsConstant(const std::string& text, const Word& w) {
  if (!absl::StartsWith(w.text, "IBV_") && !absl::StartsWith(w.text, "RDMA_")) return false;
  if (w.text.back() == '_') return false;
  for (char c : w.text) {
    if (absl::ascii_islower(c)) return false;
  }
  size_t end = w.pos + w.text.size();
  return end >= text.size() || text[end] != '*';
}

std::vector<std::string> PageVerbs(const ManPage& page) {
  std::vector<std::string> verbs;
  auto add = [&](const std::string& name) {
    if (name.find('_') == std::string::npos || std::find(verbs.begin(), verbs.end(), name) != verbs.end()) return;
    for (char c : name) {
      if (!(absl::ascii_islower(c) || absl::ascii_isdigit(c) || c == '_')) return;
    }
    verbs.push_back(name);
  };
  for (const ManLine& line : page.lines) {
    if (line.section != "NAME") continue;
    size_t dash = line.text.find(" - ");
    if (dash == std::string::npos) continue;
    for (absl::string_view name : absl::StrSplit(line.text.substr(0, dash), absl::ByAnyChar(", "), absl::SkipEmpty())) {
      add(std::string(name));
    }
  }
  static const std::regex kFunction(R"(([A-Za-z_][A-Za-z0-9_]*)\s*\()");
  for (const ManLine& line : page.lines) {
    if (line.section != "SYNOPSIS" || absl::StartsWith(line.text, "#")) continue;
    for (std::sregex_iterator m(line.text.begin(), line.text.end(), kFunction), end; m != end; ++m) {
      const size_t pos = m->position(1);
      if (pos > 0 && line.text[pos - 1] == '*' && pos > 1 && line.text[pos - 2] == '(') continue;  // (*fn)(
      if ((*m)[1] == "sizeof") continue;
      add((*m)[1]);
    }
  }
  return verbs;
}

class Collector {
 public:
  Collector(const ManPage& page, PagePromises& out) : page_(page), out_(out) {}

  void Add(const std::string& verb, PromiseKind kind, const std::string& what, const ManLine& line) {
    if (!seen_.insert({verb, PromiseKindName(kind), what}).second) return;
    out_.promises.push_back({verb, kind, what, page_.name, line.number, line.text});
  }

 private:
  const ManPage& page_;
  PagePromises& out_;
  std::set<std::tuple<std::string, std::string, std::string>> seen_;
};

// Errnos and flags, each to the verb last named in its section.
void ReadNamedValues(const ManPage& page, const std::set<std::string>& verbs, const std::string& primary,
                     Collector& collect) {
  std::string section, verb = primary;
  for (const ManLine& line : page.lines) {
    if (line.section != section) {
      section = line.section;
      verb = primary;
    }
    if (!ReadsPromises(section) || line.text.empty() || absl::StartsWith(line.text, "#include")) continue;
    for (const Word& w : Words(line.text)) {
      if (verbs.count(w.text)) {
        verb = w.text;
      } else if (ErrnoNames().count(w.text)) {
        collect.Add(verb, PromiseKind::kErrno, w.text, line);
      } else if (IsConstant(line.text, w)) {
        collect.Add(verb, PromiseKind::kFlag, w.text, line);
      }
    }
  }
}

// What one verb's part of RETURN VALUE says, as (word, offset of the evidence).
std::vector<std::pair<std::string, size_t>> ReturnWords(const std::string& segment) {
  static const std::vector<std::pair<std::string, std::regex>> kPatterns = {
      {"0", std::regex(R"(return(s|ed)?\s+0\b|\b0 (is|will be) returned)")},
      {"-errno", std::regex(R"(negative errno)")},
      {"negative", std::regex(R"(negative value)")},
      {"errno", std::regex(R"(value of errno|(^|[^e] )errno value|errno will be returned|returns? (the )?errno\b)")},
      {"sets-errno",
       std::regex(R"(sets? errno|errno (is|will be) (set|updated)|errno is set|setting errno)")},
      {"-1", std::regex(R"((^|[^0-9a-z])-1\b)")},
      {"none", std::regex(R"(returns? no value)")},
  };
  const std::string lower = absl::AsciiStrToLower(segment);
  std::vector<std::pair<std::string, size_t>> found;
  for (const auto& [word, pattern] : kPatterns) {
    std::smatch m;
    if (std::regex_search(lower, m, pattern)) found.push_back({word, static_cast<size_t>(m.position(0))});
  }
  for (size_t at = lower.find("null"); at != std::string::npos; at = lower.find("null", at + 1)) {
    bool negated = at >= 4 && lower.compare(at - 4, 4, "non-") == 0;
    bool word = (at == 0 || !IsWordChar(lower[at - 1])) && (at + 4 >= lower.size() || !IsWordChar(lower[at + 4]));
    if (!negated && word) {
      found.push_back({"NULL", at});
      break;
    }
  }
  return found;
}

// RETURN VALUE, cut at each named verb; verbs named together ("ibv_attach_mcast() and
// ibv_detach_mcast() return ...") share the words after them.
void ReadReturns(const ManPage& page, const std::set<std::string>& verbs, const std::string& primary,
                 Collector& collect) {
  std::string text;
  std::vector<std::pair<size_t, const ManLine*>> starts;  // offset in text -> its line
  for (const ManLine& line : page.lines) {
    if (!absl::StartsWith(line.section, "RETURN") || line.text.empty()) continue;
    starts.push_back({text.size(), &line});
    absl::StrAppend(&text, line.text, " ");
  }
  if (text.empty()) return;
  auto line_at = [&](size_t offset) -> const ManLine& {
    auto it = std::upper_bound(starts.begin(), starts.end(), std::make_pair(offset, static_cast<const ManLine*>(nullptr)),
                               [](const auto& a, const auto& b) { return a.first < b.first; });
    return *std::prev(it)->second;
  };
  std::vector<std::string> group = {primary};
  size_t from = 0;
  auto flush = [&](size_t to) {
    const std::string segment = text.substr(from, to - from);
    for (const auto& [word, offset] : ReturnWords(segment)) {
      for (const std::string& verb : group) collect.Add(verb, PromiseKind::kReturns, word, line_at(from + offset));
    }
  };
  bool group_open = false;  // only connectors since the last verb named
  for (const Word& w : Words(text)) {
    if (!verbs.count(w.text)) continue;
    const std::string between = text.substr(from, w.pos - from);
    bool connector = group_open && between.find_first_not_of(" ()/,;and or") == std::string::npos;
    if (connector) {
      group.push_back(w.text);
    } else {
      flush(w.pos);
      group = {w.text};
    }
    group_open = true;
    from = w.pos + w.text.size();
  }
  flush(text.size());
}

}  // namespace

PagePromises ReadPagePromises(const ManPage& page) {
  PagePromises out;
  out.verbs = PageVerbs(page);
  if (out.verbs.empty()) return out;
  const std::set<std::string> verbs(out.verbs.begin(), out.verbs.end());
  Collector collect(page, out);
  ReadReturns(page, verbs, out.verbs[0], collect);
  ReadNamedValues(page, verbs, out.verbs[0], collect);
  return out;
}

absl::StatusOr<PromiseSet> ReadPromiseDir(const std::string& dir) {
  std::error_code ec;
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!absl::StartsWith(name, "ibv_") && !absl::StartsWith(name, "rdma_")) continue;
    if (absl::EndsWith(name, ".3") || absl::EndsWith(name, ".3.gz")) paths.push_back(entry.path().string());
  }
  if (ec) return absl::NotFoundError(absl::StrCat("cannot read man page directory ", dir, ": ", ec.message()));
  if (paths.empty()) return absl::NotFoundError(absl::StrCat("no ibv_*.3 or rdma_*.3 man pages in ", dir));
  std::sort(paths.begin(), paths.end());
  PromiseSet set;
  set.source = dir;
  std::set<std::string> ids;
  for (const std::string& path : paths) {
    absl::StatusOr<ManPage> page = ReadManPage(path);
    if (!page.ok()) return page.status();
    if (page->lines.empty()) continue;
    ++set.pages;
    PagePromises found = ReadPagePromises(*page);
    for (const std::string& verb : found.verbs) {
      set.verb_page.emplace(verb, page->name);
      set.by_verb[verb];
    }
    for (Promise& p : found.promises) {
      if (ids.insert(p.Id()).second) set.by_verb[p.verb].push_back(std::move(p));
    }
  }
  for (auto& [verb, promises] : set.by_verb) {
    std::stable_sort(promises.begin(), promises.end(), [](const Promise& a, const Promise& b) {
      return std::make_pair(a.kind, a.what) < std::make_pair(b.kind, b.what);
    });
  }
  return set;
}

}  // namespace rdmacheck
