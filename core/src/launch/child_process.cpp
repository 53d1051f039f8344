// SPDX-License-Identifier: Apache-2.0
#include "launch/child_process.h"

#include <fathom/common/error.h>

#include <cerrno>
#include <cstring>

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

bool readAvailable(int fd, std::string& text) {
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof(chunk));
    if (n > 0) {
      text.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    return n < 0 && (errno == EAGAIN || errno == EINTR);
  }
}

}  // namespace fathom::launch::detail
