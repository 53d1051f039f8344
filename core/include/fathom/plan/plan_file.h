// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/run_spec.h>
#include <fathom/plan/model_spec.h>
#include <fathom/plan/training_plan.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace fathom::plan {

/// Everything a plan file can say: the plan, where the model comes from, and the hardware.
struct PlanInputs {
  Plan plan;                            ///< the training plan (defaults where the file is silent)
  std::int64_t params = 0;              ///< `params:` a bare parameter count (0 = not given)
  std::optional<TransformerDims> dims;  ///< `arch:` + dimensions, when given
  std::string hfConfig;                 ///< `hf_config:` path (made absolute relative to the file)
  std::string model;                    ///< `model:` a built-in model name (models::builtinModelNames())
  std::string hardware;                 ///< `hardware:` preset name, or a file path made absolute like hf_config
};

/// The plan a run specification describes: what `fathom launch` with the same configuration would run.
///  - num_processes (unset: 1) GPUs; num_processes / num_machines per node when the file gave num_processes or
///    num_machines was given (a world size from a flag or the environment alone keeps the hardware preset's GPUs
///    per node); mixed_precision (`no` = fp32);
///  - distributed_type FSDP: fsdp_config's effective sharding strategy (FsdpSpec::effectiveShardingStrategy), wrap
///    policy, fsdp_min_num_params and fsdp_offload_params (parameters and optimizer), fp32 master weights (FSDP's flat
///    parameters); DEEPSPEED: zero_stage (default 2) and the offload devices, fp32 master weights, DeepSpeed's bytes
///    convention; anything else: DDP with Accelerate's autocast mixed precision (fp32 parameters);
///  - gradient accumulation as the workers get it: gradient_accumulation_steps when given (the launcher's variable
///    overrides the program), else deepspeed_config's under DEEPSPEED, else fathom.planner's;
///  - the `fathom.planner` section for the rest (model, hardware, micro-batch, sequence, optimizer, ...). Relative
///    hf_config and hardware paths that came from a file are made absolute against RunSpec::fileDirectory.
/// Throws ConfigError naming the key for a value the planner cannot use (a sharding strategy Fathom does not run, a
/// parameter count < 1).
PlanInputs planFromRunSpec(const config::RunSpec& spec);

/// Reads a plan file. Two shapes are understood:
///  - a Fathom plan: flat keys spelled like `fathom plan`'s flags (strategy, num_gpus, tp, micro_batch, precision,
///    arch, layers, hidden, hf_config, hardware, ...); an unknown key is an error (typos must not pass silently);
///    precision defaults to fp32, as Accelerate's mixed_precision `no`;
///  - a configuration (it has `distributed_type`): read as `fathom launch --config_file` reads it (the schema, then
///    config::runSpecFromConfig()) and planned with planFromRunSpec(). No environment applies here; `fathom plan
///    --config_file` resolves the environment and its flags first (config::resolveConfig()).
/// Throws ConfigError naming the file and the bad key or value.
PlanInputs loadPlanFile(const std::filesystem::path& path);

/// Whether `path` holds a configuration (it has `distributed_type`) rather than a flat Fathom plan file. A file that
/// cannot be read or parsed counts as a configuration, so that the configuration reader reports what is wrong.
bool isConfigurationFile(const std::filesystem::path& path);

/// Same, from YAML text; `baseDir` resolves a relative hf_config.
PlanInputs parsePlanText(const std::string& text, const std::string& origin, const std::filesystem::path& baseDir);

}  // namespace fathom::plan
