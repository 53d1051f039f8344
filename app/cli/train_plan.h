// SPDX-License-Identifier: Apache-2.0
// The plan of a `fathom train` run: what `fathom launch` stores with a run it starts (docs/planner.md, "Plan vs
// actual") and what `fathom runs plan-vs-actual --compute` makes for a run launched without one.
#pragma once

#include <fathom/plan/model_spec.h>
#include <fathom/plan/prediction_json.h>
#include <fathom/plan/training_plan.h>
#include <fathom/store/records.h>

#include <string>
#include <string_view>
#include <vector>

namespace fathom::cli {

/// Whether the worker command `command` (PROGRAM ARGS...) is `fathom train`: a program named fathom, then `train`.
bool isTrainCommand(const std::vector<std::string>& command);

/// The worker command `fathom launch` recorded for `run` (its launch configuration's "command": typed, never split
/// from the command line text). ConfigError for a run not recorded by `fathom launch`.
std::vector<std::string> launchedCommand(const store::RunInfo& run);

/// The hardware a run's plan uses when neither the caller nor its planner section names one: for a run of one
/// machine, plan::kThisMachineProfile when `fathom calibrate` wrote it (and it loads, for the run's device kind);
/// else cpu-host for a run on the CPU and the planner's default GPU preset.
std::string defaultRunHardware(bool onCpu, int numMachines);

/// A `fathom train` run as the planner sees it.
struct TrainRunInputs {
  plan::ModelSpec model;
  plan::Plan plan;
  std::string hardware;  ///< the planner section's hardware, else defaultRunHardware()
};

/// The planner's inputs for the worker command `command` (PROGRAM ARGS..., as `fathom launch` runs it) launched from
/// the run specification `runSpecYaml` (runs.run_spec: config::RunSpec as Accelerate YAML). Only `fathom train` with
/// a built-in model can be planned: ConfigError saying why for any other program, for an empty specification or
/// for arguments `fathom train` rejects.
///
/// The plan is plan::planFromRunSpec() of the specification (world size, precision, the launcher's strategy,
/// accumulation, the fathom.planner section), adjusted as `fathom train` adjusts what the launcher chose: its
/// sharding flags resolved against the variables the launcher gives the workers (as `fathom plan --strategy ...`
/// adjusts a plan), --mixed_precision, --gradient_accumulation_steps when the launcher sets none, micro-batch =
/// --batch_size (divided by the world size with --split_batches), sequence = the GPT's block size (an MLP's sample
/// is one row: sequence 1), --optimizer, CPU threads per process = the OMP_NUM_THREADS the launcher gives the
/// workers. The model is models::introspectModel() of the built-in model.
TrainRunInputs trainRunInputs(const std::vector<std::string>& command, std::string_view runSpecYaml);

/// The planner's report for a run on `hardware`.
plan::PredictionReport predictTrainRun(const TrainRunInputs& run, const plan::HardwareSpec& hardware);

/// The planner's report for a run (trainRunInputs()) on `hardware` when given (a preset, a user profile or a file),
/// else on the run's own (TrainRunInputs::hardware), through chooseHardware(): plans of this machine by the name
/// this-machine use the newest fit of it in the workspace `workspaceFlag` names (hardware_choice.h).
plan::PredictionReport predictTrainRun(const std::vector<std::string>& command, std::string_view runSpecYaml,
                                       const std::string& hardware = {}, const std::string& workspaceFlag = {});

}  // namespace fathom::cli
