// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

#include <fathom/runtime/process_state.h>
#include <fathom/train/accelerator_options.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::cli {

/// `fathom train --strategy ddp|fsdp|zero1|zero2|zero3` and the FSDP / ZeRO flags (docs/sharding.md,
/// "Configuration and flags"), and how they become AcceleratorOptions::fsdp / ::deepspeed.
///
/// Precedence, per field: a flag given > the launcher's variables (FSDP_*, ACCELERATE_DEEPSPEED_*) > the
/// defaults of FsdpOptions / ZeroOptions. `--strategy ddp` (the default) sets nothing, so a run started by
/// `fathom launch --use_fsdp` / `--use_deepspeed` (or a config file saying FSDP / DEEPSPEED) is sharded as the
/// launcher says, as an Accelerate script is; FSDP or ZeRO flags then adjust what the launcher chose.
struct TrainShardingFlags {
  std::string strategy = "ddp";
  std::string fsdpShardingStrategy, fsdpAutoWrapPolicy, fsdpTransformerLayerClsToWrap, fsdpBackwardPrefetch,
      fsdpStateDictType, fsdpForwardPrefetch, fsdpOffloadParams, fsdpSyncModuleStates;
  std::int64_t fsdpMinNumParams = 0;
  int fsdpHybridGroupSize = 0;
  std::int64_t zeroReduceBucketSize = 0;
  std::string offloadOptimizerDevice, offloadParamDevice;

  /// Registers the flags on `cmd` (underscore and dashed spellings).
  void add(CLI::App* cmd);
  /// Sets accelerator.fsdp / accelerator.deepspeed from the flags given and `env`. Throws ConfigError naming the
  /// flag: a bad value, FSDP flags with a ZeRO strategy (or the reverse), or FSDP / ZeRO flags under
  /// `--strategy ddp` when the launcher did not select that strategy either.
  void apply(train::AcceleratorOptions& accelerator, const runtime::EnvLookup& env) const;

private:
  std::vector<CLI::Option*> m_fsdpOptions;  ///< the --fsdp_* options, to tell which were given
  std::vector<CLI::Option*> m_zeroOptions;  ///< --zero_reduce_bucket_size and the offload devices
  CLI::Option* m_strategy = nullptr;
};

}  // namespace fathom::cli
