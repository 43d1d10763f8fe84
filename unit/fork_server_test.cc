// The fork server `run` starts its children from: a child runs the body with its
// arguments, writes to its log, and is this process's child (waitpid sees its exit status
// or its signal), as an exec'd child is.
#include "runner/fork_server.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace rdmacheck {
namespace {

std::string TempLog(const char* name) {
  std::string path = ::testing::TempDir() + name + std::to_string(getpid()) + ".log";
  unlink(path.c_str());
  return path;
}

std::string Contents(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

int Body(const std::vector<std::string>& args) {
  if (args.at(0) == "crash") abort();
  for (const std::string& a : args) printf("%s\n", a.c_str());
  return static_cast<int>(args.size());
}

TEST(ForkServerTest, ChildRunsTheBodyWritesItsLogAndIsOursToWaitFor) {
  absl::StatusOr<std::unique_ptr<ForkServer>> server = ForkServer::Start(Body);
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string log = TempLog("fork_server_child");
  absl::StatusOr<pid_t> pid = (*server)->Spawn({"__child", "--events=x"}, log);
  ASSERT_TRUE(pid.ok()) << pid.status();
  int wstatus = 0;
  ASSERT_EQ(waitpid(*pid, &wstatus, 0), *pid) << "the child is not this process's child";
  ASSERT_TRUE(WIFEXITED(wstatus));
  EXPECT_EQ(WEXITSTATUS(wstatus), 2);
  EXPECT_EQ(Contents(log), "__child\n--events=x\n");
}

TEST(ForkServerTest, ACrashIsASignalOfTheChildAndTheServerGoesOn) {
  absl::StatusOr<std::unique_ptr<ForkServer>> server = ForkServer::Start(Body);
  ASSERT_TRUE(server.ok()) << server.status();
  absl::StatusOr<pid_t> crashed = (*server)->Spawn({"crash"}, TempLog("fork_server_crash"));
  ASSERT_TRUE(crashed.ok()) << crashed.status();
  int wstatus = 0;
  ASSERT_EQ(waitpid(*crashed, &wstatus, 0), *crashed);
  ASSERT_TRUE(WIFSIGNALED(wstatus));
  EXPECT_EQ(WTERMSIG(wstatus), SIGABRT);

  absl::StatusOr<pid_t> next = (*server)->Spawn({"again"}, TempLog("fork_server_next"));
  ASSERT_TRUE(next.ok()) << next.status();
  ASSERT_EQ(waitpid(*next, &wstatus, 0), *next);
  EXPECT_TRUE(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 1);
}

TEST(ForkServerTest, RefusedWhileAnotherThreadRuns) {
  std::mutex m;
  std::condition_variable cv;
  bool stop = false;
  std::thread other([&] {
    std::unique_lock<std::mutex> hold(m);
    cv.wait(hold, [&] { return stop; });
  });
  absl::StatusOr<std::unique_ptr<ForkServer>> server = ForkServer::Start(Body);
  {
    std::lock_guard<std::mutex> hold(m);
    stop = true;
  }
  cv.notify_one();
  other.join();
  EXPECT_EQ(server.status().code(), absl::StatusCode::kFailedPrecondition) << server.status();
}

}  // namespace
}  // namespace rdmacheck
