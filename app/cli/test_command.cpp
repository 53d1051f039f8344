// SPDX-License-Identifier: Apache-2.0
// `fathom test [--num_processes N]`: `accelerate test` for Fathom. Launches N copies of this executable in the
// hidden `test-worker` mode through the launcher; each joins a c10d group and runs runtime::runSelfCheck().
#include "command.h"
#include "launch_flags.h"

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/launch/local_launcher.h>
#include <fathom/runtime/self_check.h>

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <iostream>
#include <memory>

namespace fathom::cli {
namespace {

struct TestFlags {
  LaunchFlags launch;
  std::string backend = "gloo";
  double timeoutSeconds = 60.0;
};

std::string selfExecutable() {
  std::string path(4096, '\0');
  const ssize_t n = readlink("/proc/self/exe", path.data(), path.size() - 1);
  FATHOM_CHECK(n > 0, Error, "cannot find this executable (/proc/self/exe): ", std::strerror(errno));
  path.resize(static_cast<std::size_t>(n));
  return path;
}

runtime::CommBackend backendFrom(const std::string& name) {
  return name == "nccl" ? runtime::CommBackend::Nccl : runtime::CommBackend::Gloo;
}

int runWorker(const TestFlags& flags) {
  const auto backend = backendFrom(flags.backend);
  const auto state = runtime::ProcessState::fromEnvironment({.cpu = backend == runtime::CommBackend::Gloo});
  const auto timeout = std::chrono::milliseconds(
      checkedNarrow<long long>(std::round(flags.timeoutSeconds * 1000.0), "--timeout (in milliseconds)", 1));
  const auto report = runtime::runSelfCheck(state, {.backend = backend, .timeout = timeout});
  std::string steps;
  for (const auto& step : report.steps) {
    steps += (steps.empty() ? "" : ", ") + step;
  }
  const std::string where = "rank " + std::to_string(state.processIndex()) + " of " +
                            std::to_string(state.numProcesses()) + " (" + runtime::toString(backend) + ", " +
                            state.device().toString() + ")";
  if (!report.ok()) {
    std::cerr << "self-check FAILED on " << where << ": " << report.failure
              << " (passed: " << (steps.empty() ? std::string("none") : steps) << ")" << std::endl;
    return 1;
  }
  std::cout << "self-check passed on " << where << ": " << steps << std::endl;
  return 0;
}

}  // namespace

void addTestCommand(CLI::App& root, CommandAction& action) {
  auto flags = std::make_shared<TestFlags>();
  CLI::App* cmd = root.add_subcommand("test", "Run a distributed self-check over N processes: rendezvous, "
                                              "all-reduce, broadcast, barrier, gather (as `accelerate test`)");
  flags->launch.addTo(*cmd, LaunchFlags::Scope::Test);
  cmd->add_option("--backend", flags->backend, "c10d backend to check: gloo (CPU tensors) or nccl (one GPU each)")
      ->check(CLI::IsMember({"gloo", "nccl"}));
  cmd->add_option("--timeout", flags->timeoutSeconds, "Seconds each rendezvous and collective may take (default 60)")
      ->check(CLI::PositiveNumber);
  cmd->callback([flags, &action] {
    action = [flags] {
      std::vector<std::string> notes;
      launch::LaunchOptions options = flags->launch.resolve(&notes);
      LaunchFlags::printNotes("test", notes, options);
      options.command = {selfExecutable(), "test-worker", "--backend",
                         flags->backend,   "--timeout",   std::to_string(flags->timeoutSeconds)};
      launch::LocalLauncher launcher(std::move(options));
      const auto n = launcher.options().numProcesses;
      const launch::LaunchResult result = launcher.run();
      if (result.exitCode != 0) {
        std::cerr << "fathom test: the distributed self-check failed";
        if (result.failure) {
          std::cerr << " on rank " << result.failure->rank << " (" << result.failure->status.describe() << ")";
        }
        std::cerr << '\n';
        return result.exitCode;
      }
      std::cout << "fathom test: " << n << (n == 1 ? " process" : " processes") << " over " << flags->backend
                << " passed rendezvous, all-reduce, broadcast, barrier and gather\n"
                << "Test is a success! You are ready for your distributed training!" << std::endl;
      return 0;
    };
  });

  CLI::App* worker = root.add_subcommand("test-worker", "One rank of `fathom test` (started by it)");
  worker->group("");  // hidden from --help
  worker->add_option("--backend", flags->backend)->check(CLI::IsMember({"gloo", "nccl"}));
  worker->add_option("--timeout", flags->timeoutSeconds)->check(CLI::PositiveNumber);
  worker->callback([flags, &action] { action = [flags] { return runWorker(*flags); }; });
}

}  // namespace fathom::cli
