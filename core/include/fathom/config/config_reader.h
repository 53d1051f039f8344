// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/accelerate_config.h>

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::config {

/// A position in a config file, 1-based (yaml-cpp's Mark is 0-based).
struct SourceLocation {
  int line = 0;    ///< 1-based line
  int column = 0;  ///< 1-based column
};

/// A config file as read: the values, where each came from, and what was normalised on the way.
struct LoadedConfig {
  AccelerateConfig config;                          ///< the values, legacy spellings normalised
  std::string source;                               ///< the file path (or the name given to parseConfig)
  std::map<std::string, SourceLocation> locations;  ///< key path -> position of its value
  std::vector<std::string> notes;                   ///< one line per legacy spelling that was normalised
};

/// Parses Accelerate's config YAML (JSON, a YAML subset, too). Accepts every ClusterConfig key and sub-dict key
/// (config_schema.h), the legacy spellings Accelerate still accepts (top-level `fp16: true` and `dynamo_backend`,
/// fsdp_config keys without the "fsdp_" prefix, the fp8 questionnaire names, FSDP enum numbers) and the `fathom:`
/// section. Throws ConfigError for an unknown key, a bad value, a duplicate key, a missing `distributed_type`, a
/// SageMaker config or malformed YAML; the message starts with "<source>:<line>:<column>: " and names the key and
/// the allowed values (or allowed keys).
LoadedConfig parseConfig(std::string_view yamlText, std::string_view sourceName);

/// Reads and parses `file`. Throws ConfigError when it does not exist or cannot be read.
LoadedConfig loadConfigFile(const std::filesystem::path& file);

}  // namespace fathom::config
