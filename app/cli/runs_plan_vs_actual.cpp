// SPDX-License-Identifier: Apache-2.0
// `fathom runs plan-vs-actual RUN`: the plan stored with a run next to what each rank measured (docs/cli.md,
// docs/planner.md "Plan vs actual"). The comparison is core's (plan/plan_vs_actual.h); this file prints it.
#include "runs_plan_vs_actual.h"

#include "text_table.h"
#include "train_plan.h"
#include "workspace_flag.h"

#include <fathom/common/error.h>
#include <fathom/config/config_resolver.h>
#include <fathom/plan/plan_vs_actual.h>
#include <fathom/plan/prediction_json.h>
#include <fathom/store/run_measurements.h>
#include <fathom/store/workspace.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace fathom::cli {
namespace {

struct PlanVsActualFlags {
  std::string workspace;
  std::string run;
  bool json = false;
  bool compute = false;
  std::string hardware;  ///< plan the run again on this hardware (nothing stored)
};

std::string bytesCell(const std::optional<double>& bytes) {
  return bytes ? formatBinaryBytes(*bytes, 2) : std::string("-");
}

/// "exact", "+1024 B", "-3 B" (bytes to the unit: the size of a difference is the point), "-" when a side is unknown.
std::string bytesDifference(const plan::Compared& c) {
  if (c.exact()) {
    return "exact";
  }
  const auto d = c.difference();
  if (!d) {
    return "-";
  }
  char text[48];
  std::snprintf(text, sizeof text, "%+lld B", static_cast<long long>(std::llround(*d)));
  return text;
}

std::string collectiveCell(const std::optional<plan::CollectiveCount>& c) {
  return c ? std::to_string(c->count) + " x, " + formatBinaryBytes(c->bytes, 2) : std::string("-");
}

std::string collectiveDifference(const plan::ComparedCollective& c) {
  if (c.exact()) {
    return "exact";
  }
  const plan::CollectiveCount predicted = c.predicted.value_or(plan::CollectiveCount{});
  const plan::CollectiveCount measured = c.measured.value_or(plan::CollectiveCount{});
  char text[80];
  std::snprintf(text, sizeof text, "%+lld calls, %+lld B", static_cast<long long>(measured.count - predicted.count),
                static_cast<long long>(std::llround(measured.bytes - predicted.bytes)));
  return text;
}

std::string secondsCell(const std::optional<double>& s) {
  return s ? formatSeconds(*s) : std::string("-");
}

std::string secondsDifference(const plan::Compared& c) {
  const auto d = c.difference();
  if (!d) {
    return "-";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%+.4g s", *d);
  return text;
}

void printText(const store::RunInfo& run, const store::RunPlan& stored, const plan::PredictionReport& report,
               const plan::PlanVsActual& comparison) {
  std::cout << "Plan vs actual: run " << run.id.value << " (" << run.name << "), plan "
            << plan::strategyLabel(report.plan) << " on " << report.plan.numGpus << " x " << report.hardwareName << " ("
            << stored.source << ")\n";
  for (const plan::RankComparison& r : comparison.ranks) {
    std::cout << "Rank " << r.rank << "\n";
    std::vector<std::vector<std::string>> rows{{"", "PREDICTED", "MEASURED", "DIFFERENCE"}};
    for (std::size_t i = 0; i < plan::kComparedMemoryCategories.size(); ++i) {
      const std::string name(toString(plan::kComparedMemoryCategories[i]));
      rows.push_back({name == "activations" ? "peak activations" : name, bytesCell(r.memory[i].predicted),
                      bytesCell(r.memory[i].measured), bytesDifference(r.memory[i])});
    }
    rows.push_back({"total (profiled peak)", bytesCell(r.totalBytes.predicted), bytesCell(r.totalBytes.measured),
                    bytesDifference(r.totalBytes)});
    for (const plan::ComparedCollective& c : r.collectives) {
      rows.push_back({std::string(toString(c.kind)) + " per step", collectiveCell(c.predicted),
                      collectiveCell(c.measured), collectiveDifference(c)});
    }
    rows.push_back({"step time", secondsCell(r.stepSeconds.predicted), secondsCell(r.stepSeconds.measured),
                    secondsDifference(r.stepSeconds)});
    printTable(std::cout, rows);
  }
}

int planVsActual(const PlanVsActualFlags& flags) {
  store::Workspace ws = openExistingWorkspace(flags.workspace);
  const store::RunInfo run = ws.resolveRun(flags.run);
  std::optional<store::RunPlan> stored;
  if (!flags.hardware.empty()) {
    // A what-if: the run planned again on other hardware (a recalibrated profile, another preset); kept out of the
    // workspace, whose stored plan stays the one the run was launched with.
    const plan::PredictionReport made =
        predictTrainRun(launchedCommand(run), run.runSpec, flags.hardware, flags.workspace);
    stored = store::RunPlan{.source = "recomputed", .predictionJson = plan::toJson(made).dump()};
  } else {
    stored = ws.runPlan(run.id);
  }
  if (!stored) {
    FATHOM_CHECK(flags.compute, ConfigError, "run ", run.id.value, " (", run.name,
                 ") has no stored plan; --compute makes one from its run specification and command and stores it");
    const plan::PredictionReport made = predictTrainRun(launchedCommand(run), run.runSpec, {}, flags.workspace);
    ws.setRunPlan(run.id, "computed", plan::toJson(made).dump());
    stored = ws.runPlan(run.id);
  }
  const plan::PredictionReport report =
      plan::predictionReportFromJson(nlohmann::json::parse(stored->predictionJson), "run plan");
  const plan::PlanVsActual comparison =
      plan::comparePlanToRun(run.id.value, report.prediction, store::measuredRanks(ws, run.id));
  if (flags.json) {
    nlohmann::ordered_json out = plan::toJson(comparison);
    out["plan"] = {{"source", stored->source},
                   {"hardware", report.hardwareName},
                   {"strategy", plan::strategyLabel(report.plan)},
                   {"time", nlohmann::ordered_json::parse(stored->predictionJson).at("time")}};
    std::cout << out.dump(2) << '\n';
  } else {
    printText(run, *stored, report, comparison);
  }
  return 0;
}

}  // namespace

void addRunsPlanVsActual(CLI::App& runs, CommandAction& action) {
  auto flags = std::make_shared<PlanVsActualFlags>();
  CLI::App* cmd = runs.add_subcommand(
      "plan-vs-actual", "The plan stored with a run next to what each rank measured: bytes per memory category, "
                        "collectives per step, step time (docs/planner.md, \"Plan vs actual\")");
  cmd->add_option("run", flags->run, "Run id or name")->required();
  addWorkspaceOption(*cmd, flags->workspace);
  cmd->add_flag("--json", flags->json, "Print JSON instead of text");
  cmd->add_flag("--compute", flags->compute,
                "For a run launched without a plan: compute it from the run's specification and command, and store it");
  cmd->add_option("--hardware", flags->hardware,
                  "Plan the run again on this hardware (a preset, a profile such as this-machine, or a YAML/JSON file) "
                  "instead of its stored plan; nothing is stored")
      ->excludes("--compute");
  cmd->callback([flags, &action] { action = [flags] { return planVsActual(*flags); }; });
}

}  // namespace fathom::cli
