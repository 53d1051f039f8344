// SPDX-License-Identifier: Apache-2.0
#pragma once

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

/// Reads a plan file. Two shapes are understood:
///  - a Fathom plan: flat keys spelled like `fathom plan`'s flags (strategy, num_gpus, tp, micro_batch, precision,
///    arch, layers, hidden, hf_config, hardware, ...); an unknown key is an error (typos must not pass silently);
///  - an Accelerate config (it has `distributed_type`): num_processes, num_machines, mixed_precision, fsdp_config,
///    deepspeed_config are mapped, other keys ignored, and a `fathom: planner:` section is read as a Fathom plan.
/// Throws ConfigError naming the file and the bad key or value.
PlanInputs loadPlanFile(const std::filesystem::path& path);

/// Same, from YAML text; `baseDir` resolves a relative hf_config.
PlanInputs parsePlanText(const std::string& text, const std::string& origin, const std::filesystem::path& baseDir);

}  // namespace fathom::plan
