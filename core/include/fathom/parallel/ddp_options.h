// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <optional>
#include <string_view>

namespace fathom::parallel {

/// How DDP compresses gradient buckets on the wire: Accelerate's DDPCommunicationHookType NO / FP16 / BF16
/// (`comm_hook`), i.e. torch's default all-reduce, fp16_compress_hook and bf16_compress_hook. A compressed
/// bucket is cast to the low-precision type, divided by the world size, all-reduced (summed) and cast back.
enum class GradCompression { None, Fp16, Bf16 };

/// DDP's settings, with torch.nn.parallel.DistributedDataParallel's defaults. Names map to Accelerate's
/// DistributedDataParallelKwargs (docs/ddp.md has the table).
struct DdpOptions {
  /// Bucket capacity in MiB (bucket_cap_mb; × 1024 × 1024, truncated to whole bytes). A bucket is closed once
  /// its size reaches the cap, so one parameter larger than the cap gets a bucket of its own. Must be > 0.
  double bucketCapMb = 25.0;
  /// Capacity of the first bucket (the gradients ready first) in MiB: torch's _DEFAULT_FIRST_BUCKET_BYTES
  /// (1 MiB). Small, so the first all-reduce starts early in the backward pass. Must be > 0.
  double firstBucketCapMb = 1.0;
  /// Broadcast every buffer (BatchNorm statistics, ...) from rank 0 after each synchronized backward
  /// (broadcast_buffers).
  bool broadcastBuffers = true;
  /// Tolerate parameters that get no gradient in a backward pass (find_unused_parameters); costs one extra
  /// small all-reduce per synchronized step. Without it such a backward throws.
  bool findUnusedParameters = false;
  /// Gradient compression on the wire (comm_hook).
  GradCompression commHook = GradCompression::None;
};

/// Throws ConfigError naming the offending value (a cap that is not a positive, finite number).
void validate(const DdpOptions& options);

/// "no", "fp16", "bf16": Accelerate's spellings.
const char* toString(GradCompression compression);
/// Parses Accelerate's spellings ("no", "fp16", "bf16"; case-insensitive); std::nullopt for anything else.
std::optional<GradCompression> gradCompressionFromString(std::string_view text);

}  // namespace fathom::parallel
