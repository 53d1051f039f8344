// SPDX-License-Identifier: Apache-2.0
// A worker for the run monitor's end-to-end tests (tests/app/tst_run_monitor_launch.cpp), run under
// `fathom launch`: a fathom::Accelerator on the CPU (Gloo on 127.0.0.1) whose steps are a sleep (the "compute")
// and one all_reduce of a double, each step logged as "loss" to the workspace through the sqlite tracker.
//
//   collective_program --steps N [--step_ms MS] [--slow_rank R --slow_ms MS] [--skip_rank R --skip_step S]
//                      [--hold_seconds S]
//
// --slow_rank sleeps --slow_ms more in each of its steps (a straggler). --skip_rank does not call the all_reduce of
// step --skip_step and then stays outside any collective for --hold_seconds (its peers wait in that all_reduce: a
// hang the launcher must report, naming this rank). A rank that skipped and went on would pair its next all_reduce
// with the one the others wait in, which Gloo may answer with an error rather than a hang.
#include <fathom/parallel/comm.h>
#include <fathom/train/accelerator.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <thread>

namespace {

int intArg(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], name) == 0) {
      return std::atoi(argv[i + 1]);
    }
  }
  return fallback;
}

void sleepMs(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = intArg(argc, argv, "--steps", 20);
  const int stepMs = intArg(argc, argv, "--step_ms", 20);
  const int slowRank = intArg(argc, argv, "--slow_rank", -1);
  const int slowMs = intArg(argc, argv, "--slow_ms", 0);
  const int skipRank = intArg(argc, argv, "--skip_rank", -1);
  const int skipStep = intArg(argc, argv, "--skip_step", -1);
  const int holdSeconds = intArg(argc, argv, "--hold_seconds", 120);
  try {
    fathom::Accelerator accelerator({.cpu = true});
    accelerator.initTrackers("collective_program", nlohmann::json());
    const int rank = accelerator.processIndex();
    for (int step = 1; step <= steps; ++step) {
      if (fathom::parallel::Comm* comm = accelerator.comm()) {
        comm->markStep(step);
      }
      sleepMs(stepMs + (rank == slowRank ? slowMs : 0));
      if (rank == skipRank && step == skipStep) {
        // Stored as an event of the run with this rank's clock: the test measures the detection time from it.
        accelerator.logLine("skipping the all_reduce of step " + std::to_string(step));
        std::cout << "rank " << rank << " skips the all_reduce of step " << step << std::endl;
        std::this_thread::sleep_for(std::chrono::seconds(holdSeconds));
        return 3;
      }
      const double loss =
          accelerator.reduce(at::scalar_tensor(1.0 / step, at::kDouble), fathom::train::Reduction::Mean).item<double>();
      accelerator.log({{"loss", loss}}, step);
    }
    accelerator.endTraining();
    accelerator.print("done", steps, "steps");
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "collective_program: " << e.what() << std::endl;
    return 1;
  }
}
