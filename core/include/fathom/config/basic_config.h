// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/accelerate_config.h>

#include <filesystem>
#include <string>

namespace fathom::config {

/// Inputs of `fathom config default` (Accelerate's write_basic_config).
struct BasicConfigOptions {
  std::string mixedPrecision = "no";  ///< "no", "fp16", "bf16" or "fp8" (any case)
  int cudaDeviceCount = 0;            ///< CUDA devices on this machine; 0 writes a CPU config
};

/// The config write_basic_config builds (accelerate/commands/config/default.py): with CUDA
/// devices num_processes = device count, use_cpu false, MULTI_GPU when more than one device else NO; without,
/// use_cpu true, num_processes 1, NO; then ClusterConfig's field defaults. Throws ConfigError for a bad
/// mixed_precision ("`mixed_precision` should be one of 'no', 'fp16', 'bf16', or 'fp8'").
AccelerateConfig basicConfig(const BasicConfigOptions& options);

/// Writes basicConfig(options) to `file` atomically and returns true, or returns false and writes nothing when
/// `file` already exists (Accelerate: "Configuration already exists at ..., will not override").
bool writeBasicConfig(const BasicConfigOptions& options, const std::filesystem::path& file);

}  // namespace fathom::config
