// SPDX-License-Identifier: Apache-2.0
// The plan of a `fathom train` run: what `fathom launch` stores with a run it starts (docs/planner.md, "Plan vs
// actual") and what `fathom runs plan-vs-actual --compute` makes for a run launched without one.
#pragma once

#include <fathom/plan/prediction_json.h>

#include <string>
#include <string_view>
#include <vector>

namespace fathom::cli {

/// Whether the worker command `command` (PROGRAM ARGS...) is `fathom train`: a program named fathom, then `train`.
bool isTrainCommand(const std::vector<std::string>& command);

/// The planner's report for the worker command `command` (PROGRAM ARGS..., as `fathom launch` runs it) launched from
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
/// workers. The model is models::introspectModel() of the built-in model; the hardware `hardware` when given (a
/// preset, a user profile or a file: plan::loadHardware), else the planner section's, else, for a run of one
/// machine, the profile `fathom calibrate` wrote for this machine (this-machine, of the run's device kind), else
/// cpu-host for a run on the CPU (use_cpu, --cpu, or no CUDA device here), else the planner's default preset.
plan::PredictionReport predictTrainRun(const std::vector<std::string>& command, std::string_view runSpecYaml,
                                       const std::string& hardware = {});

}  // namespace fathom::cli
