// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>

namespace fathom::config {

/// $XDG_CACHE_HOME when set and absolute, else $HOME/.cache (the XDG Base Directory rule).
std::filesystem::path cacheHome();

/// $XDG_CONFIG_HOME when set and absolute, else $HOME/.config (the XDG Base Directory rule).
std::filesystem::path configHome();

/// Fathom's default configuration file: <cacheHome>/fathom/default_config.yaml.
std::filesystem::path defaultConfigFile();

/// Accelerate's default configuration file, resolved as Accelerate does: $HF_HOME/accelerate/
/// default_config.yaml, else $XDG_CACHE_HOME/huggingface/accelerate/default_config.yaml, else
/// ~/.cache/huggingface/accelerate/default_config.yaml.
std::filesystem::path accelerateDefaultConfigFile();

}  // namespace fathom::config
