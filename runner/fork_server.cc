#include "runner/fork_server.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "harness/status.h"

namespace rdmacheck {
namespace {

int ThreadCount() {
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return -1;
  int n = 0;
  while (dirent* entry = readdir(dir)) n += entry->d_name[0] != '.';
  closedir(dir);
  return n;
}

// To a socket or a pipe; MSG_NOSIGNAL: a server gone is an error here, not a SIGPIPE.
bool WriteAll(int fd, const void* data, size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = send(fd, p, size, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) n = write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

bool ReadAll(int fd, void* data, size_t size) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = read(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

// A request is a count and that many length-prefixed strings: the log, then the arguments.
bool WriteStrings(int fd, const std::vector<std::string>& strings) {
  uint32_t count = static_cast<uint32_t>(strings.size());
  if (!WriteAll(fd, &count, sizeof(count))) return false;
  for (const std::string& s : strings) {
    uint32_t size = static_cast<uint32_t>(s.size());
    if (!WriteAll(fd, &size, sizeof(size)) || !WriteAll(fd, s.data(), s.size())) return false;
  }
  return true;
}

bool ReadStrings(int fd, std::vector<std::string>& strings) {
  uint32_t count = 0;
  if (!ReadAll(fd, &count, sizeof(count))) return false;
  strings.assign(count, "");
  for (std::string& s : strings) {
    uint32_t size = 0;
    if (!ReadAll(fd, &size, sizeof(size))) return false;
    s.resize(size);
    if (!ReadAll(fd, s.data(), size)) return false;
  }
  return true;
}

[[noreturn]] void RunChild(const ForkServer::Body& body, const std::vector<std::string>& request) {
  AttachChildOutput(request[0]);
  setenv(kForkedChildEnv, "1", 1);
  const int status = body(std::vector<std::string>(request.begin() + 1, request.end()));
  std::cout.flush();
  fflush(nullptr);
  _exit(status);  // not exit(): the static objects are the server's copies
}

// The child's pid goes to `run` only once the helper has exited: until then the child is
// the helper's, and a waitpid() in `run` would fail (ECHILD).
[[noreturn]] void Serve(int socket, const ForkServer::Body& body) {
  std::vector<std::string> request;
  while (ReadStrings(socket, request) && !request.empty()) {
    int32_t reply = 0;
    int pid_pipe[2];
    if (pipe2(pid_pipe, O_CLOEXEC) != 0) {
      reply = -errno;
    } else if (pid_t helper = fork(); helper == 0) {
      close(pid_pipe[0]);
      pid_t child = fork();
      if (child == 0) {
        close(socket);
        close(pid_pipe[1]);
        RunChild(body, request);
      }
      const int32_t pid = child < 0 ? -errno : child;
      WriteAll(pid_pipe[1], &pid, sizeof(pid));
      _exit(0);  // the child, an orphan now, goes to the subreaper
    } else {
      close(pid_pipe[1]);
      if (helper < 0) {
        reply = -errno;
      } else {
        waitpid(helper, nullptr, 0);
        if (!ReadAll(pid_pipe[0], &reply, sizeof(reply))) reply = -EPIPE;
      }
      close(pid_pipe[0]);
    }
    if (!WriteAll(socket, &reply, sizeof(reply))) break;
  }
  _exit(0);
}

}  // namespace

void AttachChildOutput(const std::string& log) {
  int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd >= 0) {
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    close(fd);
  }
  int null = open("/dev/null", O_RDONLY);
  if (null > STDIN_FILENO) {
    dup2(null, STDIN_FILENO);
    close(null);
  }
}

absl::StatusOr<std::unique_ptr<ForkServer>> ForkServer::Start(Body body) {
  if (int threads = ThreadCount(); threads != 1) {
    return absl::FailedPreconditionError(absl::StrCat("fork server: ", threads, " threads in this process"));
  }
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) return ErrnoStatus(errno, "prctl(PR_SET_CHILD_SUBREAPER)");
  int sockets[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sockets) != 0) return ErrnoStatus(errno, "socketpair");
  std::cout.flush();  // or each child would write out what this process had buffered
  fflush(nullptr);
  pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(sockets[0]);
    close(sockets[1]);
    return ErrnoStatus(err, "fork");
  }
  if (pid == 0) {
    close(sockets[0]);
    Serve(sockets[1], body);
  }
  close(sockets[1]);
  return std::unique_ptr<ForkServer>(new ForkServer(sockets[0], pid));
}

ForkServer::~ForkServer() {
  close(socket_);
  waitpid(pid_, nullptr, 0);
}

absl::StatusOr<pid_t> ForkServer::Spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<std::string> request = {log};
  request.insert(request.end(), args.begin(), args.end());
  std::lock_guard<std::mutex> hold(lock_);
  int32_t reply = 0;
  if (!WriteStrings(socket_, request) || !ReadAll(socket_, &reply, sizeof(reply))) {
    return absl::UnavailableError("fork server: gone");
  }
  if (reply < 0) return ErrnoStatus(-reply, "fork server: fork");
  return static_cast<pid_t>(reply);
}

}  // namespace rdmacheck
