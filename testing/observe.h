// Records what the device did where the spec leaves room, or what a test could not read:
// a property of the current test (rdmacheck_observed, carried into results.json) and a
// line in the suite log ("[ OBSERVED ] Test.Name: what").
//
//   Observe("the QP went to SQE, not ERR");
#ifndef RDMACHECK_TESTING_OBSERVE_H_
#define RDMACHECK_TESTING_OBSERVE_H_

#include <string>

namespace rdmacheck {

void Observe(const std::string& what);

}  // namespace rdmacheck

#endif  // RDMACHECK_TESTING_OBSERVE_H_
