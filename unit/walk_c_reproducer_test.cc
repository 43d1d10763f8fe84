// walk/c_reproducer.h: the shrunk lists of the walk's siw findings as C programs that
// compile against libibverbs and check the answers the model allows.
#include "walk/c_reproducer.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace rdmacheck::walk {
namespace {

using ::testing::HasSubstr;

std::vector<Action> Actions(const char* json) {
  std::vector<Action> out;
  for (const nlohmann::json& j : nlohmann::json::parse(json)) {
    absl::StatusOr<Action> a = ActionFromJson(j);
    EXPECT_TRUE(a.ok()) << a.status();
    if (a.ok()) out.push_back(*a);
  }
  return out;
}

// The C compiler accepts it (syntax and types against the installed verbs.h).
bool Compiles(const std::string& program, const std::string& name) {
  const std::string path = ::testing::TempDir() + "/" + name + ".c";
  std::ofstream(path) << program;
  return std::system(absl::StrCat("cc -std=c11 -Wall -Werror -fsyntax-only ", path).c_str()) == 0;
}

TEST(WalkCReproducerTest, ARefusedCqDestroyThenAPoll) {
  absl::StatusOr<std::string> c = CReproducer(
      Actions(R"([{"op": "create_pd", "id": 1}, {"op": "create_cq", "id": 2},
                  {"op": "create_qp", "id": 3, "pd": 1, "cq": 2, "srq": -1, "type": "RC"},
                  {"op": "destroy", "obj": 2}, {"op": "poll", "cq": 2}])"),
      "siw0", "killed by SEGV in poll");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(*c, HasSubstr("int rc = ibv_destroy_cq(cq2);"));
  EXPECT_THAT(*c, HasSubstr("(rc == EBUSY)"));  // a QP uses it
  EXPECT_THAT(*c, HasSubstr("ibv_poll_cq(cq2, 16, wc)"));
  EXPECT_THAT(*c, HasSubstr("\"siw0\""));
  if (std::system("command -v cc >/dev/null 2>&1") == 0) EXPECT_TRUE(Compiles(*c, "cq_destroy"));
}

TEST(WalkCReproducerTest, AnIllegalMoveIsCheckedForEinval) {
  absl::StatusOr<std::string> c = CReproducer(
      Actions(R"([{"op": "create_pd", "id": 1}, {"op": "create_cq", "id": 2},
                  {"op": "create_qp", "id": 3, "pd": 1, "cq": 2, "srq": -1, "type": "RC"},
                  {"op": "modify_qp", "qp": 3, "to": "INIT"}, {"op": "modify_qp", "qp": 3, "to": "SQE"}])"),
      "siw0", "modify_qp RC INIT->SQE: success instead of EINVAL");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_THAT(*c, HasSubstr("ibv_modify_qp(qp3, RESET->INIT)\", rc, (rc == 0)"));
  EXPECT_THAT(*c, HasSubstr("ibv_modify_qp(qp3, INIT->SQE)\", rc, (rc == EINVAL)"));
  EXPECT_THAT(*c, HasSubstr("attr.port_num = 1;"));  // RESET->INIT carries the port
  if (std::system("command -v cc >/dev/null 2>&1") == 0) EXPECT_TRUE(Compiles(*c, "sqe"));
}

TEST(WalkCReproducerTest, TheDataPathIsRefusedWithItsStep) {
  absl::StatusOr<std::string> c = CReproducer(
      Actions(R"([{"op": "create_pd", "id": 1}, {"op": "create_cq", "id": 2},
                  {"op": "create_qp", "id": 3, "pd": 1, "cq": 2, "srq": -1, "type": "RC"},
                  {"op": "create_qp", "id": 4, "pd": 1, "cq": 2, "srq": -1, "type": "RC"},
                  {"op": "connect", "qp": 3, "peer": 4}])"),
      "rxe0", "x");
  EXPECT_EQ(c.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(std::string(c.status().message()), HasSubstr("step 5 (connect"));
}

}  // namespace
}  // namespace rdmacheck::walk
