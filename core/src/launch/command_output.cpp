// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/launch/command_output.h>

#include "launch/child_process.h"

#include <csignal>
#include <cstdlib>
#include <thread>

#include <poll.h>
#include <unistd.h>

extern char** environ;

namespace fathom::launch {
namespace {

/// Appends what `fd` has to `text`; closes it (through `process`) at end of file.
void drain(WorkerProcess& process, int fd, std::string& text) {
  if (!detail::readAvailable(fd, text)) {
    process.closeOutput(fd);
  }
}

}  // namespace

std::vector<std::string> CommandOutput::lines() const {
  std::vector<std::string> result;
  std::size_t start = 0;
  while (start < out.size()) {
    auto end = out.find('\n', start);
    if (end == std::string::npos) {
      end = out.size();
    }
    std::string line = out.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') {
      line.pop_back();
    }
    if (!line.empty()) {
      result.push_back(std::move(line));
    }
    start = end + 1;
  }
  return result;
}

std::string CommandOutput::errorLine() const {
  const std::size_t end = err.find_last_not_of("\r\n \t");
  if (end == std::string::npos) {
    return timedOut ? std::string("it did not finish in time") : "it ended with " + status.describe();
  }
  const std::size_t newline = err.rfind('\n', end);
  const std::size_t start = newline == std::string::npos ? 0 : newline + 1;
  return err.substr(start, end + 1 - start);
}

CommandOutput CommandOutput::run(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
  FATHOM_ASSERT(!argv.empty(), "no command");
  const char* path = std::getenv("PATH");
  WorkerProcess::Spec spec;
  spec.program = WorkerProcess::resolveProgram(argv.front(), path != nullptr ? path : "");
  spec.arguments.assign(argv.begin() + 1, argv.end());
  for (char** e = environ; *e != nullptr; ++e) {
    spec.environment.emplace_back(*e);
  }
  const auto process = WorkerProcess::spawn(spec);
  CommandOutput result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (process->stdoutFd() >= 0 || process->stderrFd() >= 0) {
    std::vector<pollfd> fds;
    for (int fd : {process->stdoutFd(), process->stderrFd()}) {
      if (fd >= 0) {
        fds.push_back({fd, POLLIN, 0});
      }
    }
    ::poll(fds.data(), fds.size(), 50);
    if (process->stdoutFd() >= 0) {
      drain(*process, process->stdoutFd(), result.out);
    }
    if (process->stderrFd() >= 0) {
      drain(*process, process->stderrFd(), result.err);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      // A descendant may hold the pipes open after the program ended: the group goes, which closes them.
      result.timedOut = true;
      process->signalGroup(SIGKILL);
      process->closeOutput(process->stdoutFd());
      process->closeOutput(process->stderrFd());
    }
  }
  while (!process->poll()) {
    if (std::chrono::steady_clock::now() > deadline && !result.timedOut) {
      result.timedOut = true;
      process->signalGroup(SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  result.status = *process->status();
  return result;
}

}  // namespace fathom::launch
