// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/vocabulary.h>
#include <fathom/runtime/process_state.h>

#include <cstdint>
#include <string_view>

namespace fathom::parallel {

/// DeepSpeed's offload_optimizer.device / offload_param.device (config/vocabulary.h). Nvme is accepted by the
/// config reader and refused by the engine (ConfigError): Fathom offloads to host memory only.
using OffloadDevice = config::OffloadDevice;

/// DeepSpeed ZeRO settings (the `zero_optimization` section of a DeepSpeed config, and Accelerate's
/// deepspeed_config keys), with DeepSpeed's defaults. docs/sharding.md has the table.
///
/// Semantics: stage 1 partitions optimizer states (each rank steps its 1/N of a flat fp32 view of the
/// parameters; gradients stay whole and are reduce-scattered once per optimizer step); stage 2 also
/// partitions gradients (reduce-scattered during backward, every micro-step, into the rank's partition);
/// stage 3 also partitions parameters (gathered per unit before it runs in forward and in backward, freed
/// after). Stages 1-2 all-gather the updated partitions after each optimizer step.
struct ZeroOptions {
  int stage = 2;                                         ///< zero_stage: 1, 2 or 3
  OffloadDevice offloadOptimizer = OffloadDevice::None;  ///< offload_optimizer_device (stages 1-3)
  OffloadDevice offloadParams = OffloadDevice::None;     ///< offload_param_device (stage 3 only)
  /// reduce_bucket_size, in elements (DeepSpeed default 5e8): stage 1-2 gradients are reduce-scattered in
  /// buckets of at most this many elements (a bucket closes once it reaches the cap; a tensor is never split).
  std::int64_t reduceBucketSize = 500'000'000;
  /// allgather_bucket_size, in elements: the updated partitions are all-gathered in the same buckets as the
  /// gradients (Fathom keeps one bucket layout; the value is validated and reported).
  std::int64_t allgatherBucketSize = 500'000'000;
  /// overlap_comm: stage 2 issues a bucket's reduce-scatter asynchronously as soon as its gradients are ready,
  /// during backward (waited for at its end); stage 3 prefetches and reduces asynchronously
  /// (FullyShardedConfig::overlapComm). false: every collective synchronous; the results are the same.
  bool overlapComm = true;
  /// zero3_save_16bit_model: save_model() under stage 3 writes one consolidated 16-bit (bf16) state dict.
  bool save16bitModel = false;
};

/// ConfigError naming the value: stage outside 1..3, a bucket size < 1, offload_param_device set below stage 3.
void validate(const ZeroOptions& options);

/// ZeRO options from ACCELERATE_DEEPSPEED_ZERO_STAGE, ACCELERATE_DEEPSPEED_OFFLOAD_OPTIMIZER_DEVICE and
/// ACCELERATE_DEEPSPEED_OFFLOAD_PARAM_DEVICE (what `fathom launch --use_deepspeed` sets), starting from `base`.
/// ConfigError names the variable and value that does not parse.
ZeroOptions zeroOptionsFromEnvironment(const runtime::EnvLookup& env, ZeroOptions base = {});

/// "none", "cpu", "nvme" (case-insensitive; config::kOffloadDevices); ConfigError "invalid offload device ..."
/// otherwise.
OffloadDevice parseOffloadDevice(std::string_view text);
std::string_view toString(OffloadDevice device);

}  // namespace fathom::parallel
