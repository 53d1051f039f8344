// SPDX-License-Identifier: Apache-2.0
// `fathom plan`: predict per-rank memory, communication and step time for one plan; `fathom plan search`:
// enumerate plans and rank the ones that fit by predicted tokens/s.
#include "command.h"
#include "plan_flags.h"

#include <fathom/common/atomic_file.h>
#include <fathom/plan/predict.h>
#include <fathom/plan/report.h>
#include <fathom/plan/search.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <sstream>

#include <unistd.h>

namespace fathom::cli {
namespace {

struct SearchFlags {
  PlanFlags common;
  std::int64_t globalBatch = 0;
  std::size_t top = 10;
  bool includeOffload = false;
};

int runPlan(const PlanFlags& flags, const std::string& output) {
  std::vector<std::string> notes;
  const auto in = flags.resolve(&notes);
  printPlanNotes(notes);
  plan::PredictOptions options;
  options.explain = flags.explain;
  options.computeEfficiency = flags.efficiency;
  const plan::Prediction p = plan::predict(in.model, in.hardware, in.plan, options);
  std::ostringstream text;
  if (flags.json) {
    text << plan::formatPredictionJson(in.model, in.hardware, in.plan, p) << '\n';
  } else {
    text << plan::formatPredictionTable(in.model, in.hardware, in.plan, p);
    if (flags.explain) {
      text << "\nExplanations (sources: docs/planner.md)\n" << plan::formatExplanations(p);
    }
  }
  if (output.empty()) {
    std::cout << text.str();
    return 0;
  }
  // Whole or not at all: a full disk, the file size limit or a kill leaves the previous file and no temporary.
  AtomicFile::writeWhole(
      output, text.str(),
      {.temporarySuffix = ".tmp-" + std::to_string(::getpid()), .what = "plan file", .unnamedWhileWriting = true});
  std::cerr << "Wrote " << output << '\n';
  return 0;
}

int runSearch(const SearchFlags& flags) {
  std::vector<std::string> notes;
  const auto in = flags.common.resolve(&notes);
  printPlanNotes(notes);
  plan::SearchOptions options;
  options.globalBatch = flags.globalBatch;
  options.limit = flags.top;
  options.includeOffload = flags.includeOffload;
  options.predict.computeEfficiency = flags.common.efficiency;
  const plan::SearchOutcome outcome = plan::search(in.model, in.hardware, in.plan, options);
  if (flags.common.json) {
    std::cout << plan::formatSearchJson(in.model, in.hardware, outcome) << '\n';
    return outcome.results.empty() ? 1 : 0;
  }
  std::cout << "Model: " << in.model.name << ", " << in.model.totalParams << " parameters; hardware "
            << in.hardware.name << "; " << plan::formatRanks(in.hardware, in.plan.numGpus) << "\n";
  std::cout << outcome.evaluated << " plans evaluated, " << outcome.fitting << " fit; best by tokens/s:\n\n";
  std::printf("%-4s %-24s %3s %3s %3s %4s %4s %-10s %12s %14s %9s %6s\n", "#", "strategy", "dp", "tp", "pp", "mb", "ga",
              "recompute", "memory", "tokens/s", "step s", "MFU");
  int rank = 1;
  for (const auto& r : outcome.results) {
    const auto& p = r.plan;
    std::string label = plan::strategyLabel(p) + (p.sequenceParallel ? "+sp" : "") +
                        (p.offloadParams      ? "+offP"
                         : p.offloadOptimizer ? "+offO"
                                              : "");
    std::printf("%-4d %-24s %3d %3d %3d %4d %4d %-10s %9.2f GB %14.0f %9.4f %5.1f%%\n", rank++, label.c_str(),
                r.prediction.dataParallel, p.tp, p.pp, p.microBatch, p.gradAccum,
                std::string(plan::toString(p.recompute)).c_str(), r.prediction.memory.total / 1e9,
                r.prediction.time.tokensPerS, r.prediction.time.stepS, 100.0 * r.prediction.time.mfu);
  }
  if (outcome.results.empty()) {
    std::cout << "no plan fits: add GPUs, allow offload (--include_offload) or pick larger devices\n";
    return 1;
  }
  return 0;
}

}  // namespace

void addPlanCommandWith(CLI::App& root, CommandAction& action, CalibrateFromRun calibrateFrom) {
  auto flags = std::make_shared<PlanFlags>();
  auto output = std::make_shared<std::string>();
  auto search = std::make_shared<SearchFlags>();
  CLI::App* cmd = root.add_subcommand(
      "plan", "Predict per-GPU memory, communication and step time for a DDP/FSDP/ZeRO plan (docs/planner.md)");
  cmd->require_subcommand(0, 1);
  flags->add(cmd);
  CLI::Option* calibrateFromOption = cmd->add_option(
      "--calibrate_from,--calibrate-from", flags->calibrateFrom,
      "Fit this machine's calibrated profile (--hardware, else the run's: this-machine) to a finished run "
      "profiled with `fathom train --profile` (id or name in --workspace): each operator class's and "
      "collective's measured / predicted time; stores the fit in the workspace, where later plans of "
      "this machine find it, and prints it (docs/calibrate.md)");
  cmd->add_option("-o,--output", *output,
                  "Write the prediction (the table, or the JSON object with --json) to PATH instead of standard "
                  "output; the file is replaced whole or not at all")
      ->excludes(calibrateFromOption);
  CLI::App* sub = cmd->add_subcommand(
      "search", "Enumerate strategies, sharding degrees, micro-batches and recomputation; rank plans that fit");
  search->common.add(sub);
  sub->add_option("--global_batch,--global-batch", search->globalBatch,
                  "Sequences per optimizer step (sets gradient accumulation); 0 = accumulation 1");
  sub->add_option("--top", search->top, "Plans to print (default 10)");
  sub->add_flag("--include_offload,--include-offload", search->includeOffload, "Also try CPU offload");
  sub->callback([search, &action] { action = [search] { return runSearch(*search); }; });
  cmd->callback([flags, output, cmd, calibrateFrom, &action] {
    if (cmd->get_subcommands().empty()) {
      action = [flags, output, calibrateFrom] {
        return flags->calibrateFrom.empty() ? runPlan(*flags, *output) : calibrateFrom(*flags);
      };
    }
  });
}

}  // namespace fathom::cli
