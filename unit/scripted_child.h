// A stand-in for a suite's child process (runner/supervisor.h) in the supervisor's tests: a
// shell script that appends the events a real child would write to its events file, then
// ends the way the test needs ("exit 0", "exec sleep 60", "kill -SEGV $$").
#ifndef RDMACHECK_UNIT_SCRIPTED_CHILD_H_
#define RDMACHECK_UNIT_SCRIPTED_CHILD_H_

#include <stdlib.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "runner/events.h"
#include "runner/supervisor.h"

namespace rdmacheck::fixtures {

inline TestEvent Event(TestEvent::Kind kind, const std::string& name, TestStatus status = TestStatus::kPass,
                       const std::string& message = "") {
  TestEvent e;
  e.kind = kind;
  e.name = name;
  e.status = status;
  e.message = message;
  return e;
}

class ScriptedChild {
 public:
  ScriptedChild(const std::vector<TestEvent>& events, const std::string& ending) {
    char dir_template[] = "/tmp/rdmacheck-supervisor-XXXXXX";
    dir_ = mkdtemp(dir_template);
    std::string lines;
    for (const TestEvent& e : events) lines += EncodeEvent(e) + "\n";
    std::ofstream(dir_ + "/events.txt") << lines;
    script_ = dir_ + "/child.sh";
    std::ofstream(script_) << "#!/bin/sh\n"
                           << "for a; do case $a in --events=*) out=${a#--events=};; esac; done\n"
                           << "cat " << dir_ << "/events.txt >> \"$out\"\n"
                           << ending << "\n";
    chmod(script_.c_str(), 0755);
  }
  ScriptedChild(const ScriptedChild&) = delete;
  ScriptedChild& operator=(const ScriptedChild&) = delete;
  ~ScriptedChild() { std::system(absl::StrCat("rm -rf ", dir_).c_str()); }

  // Runs this script as the child, its logs in its directory.
  ChildOptions Options() const {
    ChildOptions options;
    options.executable = script_;
    options.log_dir = dir_;
    options.test_timeout = absl::Seconds(30);
    options.teardown_timeout = absl::Seconds(2);
    return options;
  }

 private:
  std::string dir_, script_;
};

}  // namespace rdmacheck::fixtures

#endif  // RDMACHECK_UNIT_SCRIPTED_CHILD_H_
