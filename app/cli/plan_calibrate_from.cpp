// SPDX-License-Identifier: Apache-2.0
#include "plan_calibrate_from.h"

#include "command.h"
#include "text_table.h"
#include "train_plan.h"
#include "workspace_flag.h"

#include <fathom/calibrate/calibrate.h>
#include <fathom/calibrate/run_fit.h>
#include <fathom/calibrate/run_fit_report.h>
#include <fathom/common/error.h>
#include <fathom/trace/trace_file_names.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace fathom::cli {
namespace {

namespace fs = std::filesystem;

/// The run's per-rank trace files (merged traces left out: they repeat the ranks' events), checked to exist.
std::vector<fs::path> rankTraces(const store::Workspace& ws, const store::RunInfo& run) {
  std::vector<fs::path> files;
  for (const store::ArtifactRow& a : ws.artifacts(run.id)) {
    if (a.artifact.kind != store::ArtifactKind::Trace || trace::isMergedTraceName(a.artifact.path)) {
      continue;
    }
    FATHOM_CHECK(fs::exists(a.artifact.path), ConfigError, "run ", run.id.value, " (", run.name, "): its trace ",
                 a.artifact.path, " is gone (moved or deleted); the fit reads every rank's trace");
    files.emplace_back(a.artifact.path);
  }
  FATHOM_CHECK(!files.empty(), ConfigError, "run ", run.id.value, " (", run.name,
               ") has no rank traces: launch it with `fathom train --profile` to calibrate from it");
  return files;
}

std::string factor(double f) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", f);
  return text;
}

void printText(const calibrate::RunFitReport& r, const plan::RunFit& f) {
  std::cout << "Calibrated from run " << r.run << " (" << r.runName << "): " << r.traces << " trace(s) x " << r.steps
            << " profiled step(s), " << f.processes << " process(es) x " << f.threads << " thread(s); hardware "
            << r.hardware << " measured " << r.measuredAt << " on " << r.host << "\n";
  std::vector<std::vector<std::string>> rows{{"PER STEP", "MEASURED", "CALIBRATED", "FACTOR"}};
  for (const calibrate::FittedClass& c : r.classes) {
    const bool priced = c.name != "overhead";  // the calibrated model has no overhead: the fit adds it
    rows.push_back({c.name, formatSeconds(c.measuredS), priced ? formatSeconds(c.predictedS) : std::string("-"),
                    priced ? factor(c.factor) : std::string("-")});
  }
  printTable(std::cout, rows);
  std::cout << "Step time: measured " << formatSeconds(r.measuredStepS) << ", predicted "
            << formatSeconds(r.calibratedStepS) << " calibrated, " << formatSeconds(r.fittedStepS) << " fitted\n"
            << "Stored as hardware fit " << r.fitId << " in " << r.workspace
            << ": plans of this machine (--hardware this-machine, the plans `fathom launch` stores) use it\n";
}

}  // namespace

int calibrateFromRun(const PlanFlags& flags) {
  store::Workspace ws = openExistingWorkspace(flags.workspace);
  const store::RunInfo run = ws.resolveRun(flags.calibrateFrom);
  FATHOM_CHECK(run.status != store::RunStatus::Running, ConfigError, "run ", run.id.value, " (", run.name,
               ") is still running: calibrate from it once it has ended");
  const TrainRunInputs inputs = trainRunInputs(launchedCommand(run), run.runSpec);
  // The calibration alone: a profile that carries an earlier fit is fitted again from what was measured.
  plan::HardwareSpec base = plan::loadHardware(!flags.hardware.empty() ? flags.hardware : inputs.hardware);
  FATHOM_CHECK(base.calibration.has_value(), ConfigError, "hardware '", base.name, "' (", base.source,
               ") was not measured by `fathom calibrate`: a run fit refines a calibration, so run `fathom calibrate` "
               "first (or pass --hardware PROFILE)");
  base.calibration->runFit.reset();

  calibrate::RunFitInput in;
  in.model = inputs.model;
  in.predicted = predictTrainRun(inputs, base);
  in.base = std::move(base);
  in.runId = run.id.value;
  in.runName = run.name;
  in.fittedAt = calibrate::utcNow();
  const std::vector<fs::path> files = rankTraces(ws, run);
  for (std::size_t i = 0; i < files.size(); ++i) {
    std::cerr << "fathom plan: reading trace " << i + 1 << "/" << files.size() << ": " << files[i].string() << '\n';
    in.ranks.push_back(trace::operatorClassTimes(files[i]));
  }
  const calibrate::RunFitResult fit = calibrate::fitRun(in);

  const plan::HardwareCalibration& cal = *fit.fitted.calibration;
  const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const store::HardwareFitId id =
      ws.addHardwareFit({run.id, now, cal.host, cal.device, cal.measuredAt, plan::formatHardwareYaml(fit.fitted)});
  const calibrate::RunFitReport report = calibrate::makeRunFitReport(fit, id.value, fs::absolute(ws.path()).string());
  if (flags.json) {
    std::cout << calibrate::toJson(report).dump(2) << '\n';
  } else {
    printText(report, *cal.runFit);
  }
  return 0;
}

void addPlanCommand(CLI::App& root, CommandAction& action) {
  addPlanCommandWith(root, action, &calibrateFromRun);
}

}  // namespace fathom::cli
