// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/accelerate_config.h>

#include <filesystem>
#include <string>

namespace fathom::config {

/// Renders `config` as Accelerate writes it (yaml.safe_dump of ClusterConfig.to_dict()): keys sorted at every
/// level, unset values and empty sections left out, enumerations in canonical spelling, and strings that YAML 1.1
/// would read as something else ('NO', 'no', '1234') single-quoted so that PyYAML and Fathom read them back
/// unchanged. The `fathom:` section is written like any other section. Keys that are not file keys
/// (gradient_accumulation_steps, which only code, flags and the environment set) are left out.
std::string emitConfig(const AccelerateConfig& config);

/// Writes emitConfig(config) to `file` atomically: a temporary file in the same directory, fsync, rename. Parent
/// directories are created. On any failure nothing is left at `file` that was not there before, the temporary
/// file is removed and StorageError names the path and the reason.
void saveConfigFile(const AccelerateConfig& config, const std::filesystem::path& file);

}  // namespace fathom::config
