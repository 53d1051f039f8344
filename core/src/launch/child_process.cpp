// SPDX-License-Identifier: Apache-2.0
#include "launch/child_process.h"

#include <fathom/common/error.h>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fathom::launch::detail {

pid_t spawnInOwnGroup(const std::vector<std::string>& argv, int in, int out, int err) {
  std::vector<char*> args;
  for (const std::string& a : argv) {
    args.push_back(const_cast<char*>(a.c_str()));
  }
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  FATHOM_CHECK(pid >= 0, Error, "cannot start ", argv.front(), ": fork failed: ", std::strerror(errno));
  if (pid == 0) {
    ::setpgid(0, 0);  // a terminal's Ctrl-C reaches the launcher, which stops the agents in order
    if (::dup2(in, 0) < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) {
      ::_exit(127);
    }
    ::execve(args[0], args.data(), environ);
    ::_exit(127);
  }
  return pid;
}

std::string captureOutput(const std::vector<std::string>& argv) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    return {};
  }
  const int devnull = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  pid_t pid = -1;
  try {
    pid = spawnInOwnGroup(argv, devnull, out[1], devnull);
  } catch (const Error&) {
  }
  ::close(out[1]);
  ::close(devnull);
  std::string text;
  char chunk[4096];
  for (ssize_t n; (n = ::read(out[0], chunk, sizeof(chunk))) != 0;) {
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      break;
    }
    text.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  if (pid > 0) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  return pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? text : std::string();
}

}  // namespace fathom::launch::detail
