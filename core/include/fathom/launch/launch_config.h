// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/config_resolver.h>
#include <fathom/launch/launch_options.h>

namespace fathom::launch {

/// The launch options an effective configuration decides: fathom::config::resolveConfig() has already applied
/// the precedence (flag > environment > config file > default) to every config key, so this only translates:
/// num_processes (a value < 1, Accelerate's "not set", keeps 1), num_machines, machine_rank, main_process_ip,
/// main_process_port, mixed_precision, use_cpu, debug, distributed_type (FSDP / DEEPSPEED / MEGATRON_LM switch the
/// mode; NO, MULTI_CPU and MULTI_GPU need nothing; any other type is a ConfigError), the fsdp_config keys that
/// have an --fsdp_* flag, deepspeed_config.zero_stage, and gradient_accumulation_steps (only when not a default,
/// because the variable overrides the program's own value; with DeepSpeed also the deepspeed_config one).
/// Launcher-only settings (restarts, logs, tee, ...) keep their defaults: they are flags, not config keys.
LaunchOptions launchOptionsFromConfig(const config::EffectiveConfig& effective);

}  // namespace fathom::launch
