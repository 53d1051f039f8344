// SPDX-License-Identifier: Apache-2.0
#include <fathom/config/basic_config.h>

#include <fathom/common/error.h>
#include <fathom/config/config_writer.h>
#include <fathom/config/vocabulary.h>

namespace fathom::config {

AccelerateConfig basicConfig(const BasicConfigOptions& options) {
  const std::string mp = kMixedPrecisions.canonical(options.mixedPrecision);
  // Accelerate's own message (commands/config/default.py).
  FATHOM_CHECK(!mp.empty(), ConfigError,
               "--mixed_precision: `mixed_precision` should be one of 'no', 'fp16', 'bf16', or 'fp8'. Received '",
               options.mixedPrecision, "'");
  FATHOM_CHECK(options.cudaDeviceCount >= 0, ConfigError, "cudaDeviceCount must be >= 0, got ",
               options.cudaDeviceCount);
  AccelerateConfig config;
  config.set("compute_environment", std::string("LOCAL_MACHINE"));
  config.set("mixed_precision", mp);
  if (options.cudaDeviceCount > 0) {
    config.set("num_processes", std::int64_t{options.cudaDeviceCount});
    config.set("use_cpu", false);
    config.set("distributed_type", std::string(options.cudaDeviceCount > 1 ? "MULTI_GPU" : "NO"));
  } else {
    config.set("use_cpu", true);
    config.set("num_processes", std::int64_t{1});
    config.set("distributed_type", std::string("NO"));
  }
  config.set("debug", false);
  config.set("enable_cpu_affinity", false);
  config.fillAccelerateDefaults();
  return config;
}

bool writeBasicConfig(const BasicConfigOptions& options, const std::filesystem::path& file) {
  const AccelerateConfig config = basicConfig(options);  // checks before touching the disk
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) {
    return false;
  }
  saveConfigFile(config, file);
  return true;
}

}  // namespace fathom::config
