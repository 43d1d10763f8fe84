// The one line that says what went wrong in a failed test's message, for one-line verdicts
// (the health check's drain reason, the fleet report's rows):
//
//   "/src/rc_send_test.cc:176: Value of: recvs[i]\nExpected: ...\n  Actual: 48-byte object
//    <...> (of type ibv_wc), wc{...}: byte_len is 2, expected 1\n..."
//   -> "Value of: recvs[i]: byte_len is 2, expected 1"
//
// GoogleTest's first failure without its "file:line: " prefix and, when its "Actual:" line
// ends in a matcher's explanation ("...: byte_len is 2, expected 1"), that explanation after
// it. Cut at `max` characters ("...").
#ifndef RDMACHECK_RESULTS_FAILURE_LINE_H_
#define RDMACHECK_RESULTS_FAILURE_LINE_H_

#include <string>

namespace rdmacheck {

std::string FailureLine(const std::string& message, size_t max = 160);

}  // namespace rdmacheck

#endif  // RDMACHECK_RESULTS_FAILURE_LINE_H_
