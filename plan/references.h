// The spec sections a test cites, read from its RDMACHECK_ABOUT reference:
//
//   "ibv_bind_mw(3); IBTA Vol 1 10.6.7.2 (binding), C10-73"  -> IBTA Vol 1 10.6.7.2, IBTA Vol 1 C10-73
//   "IBTA Vol 1 ch. 11 (Create SRQ)"                         -> IBTA Vol 1 ch. 11
//   "IBTA Vol 1 1.5 A19.4.2" (release 1.5, annex A19)        -> IBTA Vol 1 Annex A19.4.2
//   "RFC 5040 7.1, 4.8 (Terminate), RFC 5041 7.2"            -> RFC 5040 7.1, RFC 5040 4.8, RFC 5041 7.2
//   "RFC 5044 (MPA: ...)"                                    -> RFC 5044
// Words in parentheses are the reader's notes, not citations, and are skipped.
#ifndef RDMACHECK_PLAN_REFERENCES_H_
#define RDMACHECK_PLAN_REFERENCES_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace rdmacheck {

// The sections, each once, in the order cited.
std::vector<std::string> CitedSections(absl::string_view reference);

}  // namespace rdmacheck

#endif  // RDMACHECK_PLAN_REFERENCES_H_
