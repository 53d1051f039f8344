// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

#include <fathom/config/run_spec.h>
#include <fathom/profile/profiler_options.h>

#include <optional>
#include <string>

namespace fathom::cli {

/// `fathom train --profile` and its flags (docs/profiler.md, "fathom train --profile"): Accelerate's ProfileKwargs
/// as flags. Under `fathom launch --config_file F` the configuration's fathom.profiler section arrives as
/// FATHOM_PROFILER__* variables (config::workerSettingsFromEnvironment()); each flag given wins over it, field by
/// field. Without --profile and without fathom.profiler.enabled nothing is recorded and the other --profile_* flags
/// are refused.
struct TrainProfileFlags {
  bool enabled = false;
  std::string dir = "fathom_profile";
  std::string schedule = "1,1,3,1";
  std::string memory = "true";
  std::string cuda = "auto";
  bool recordShapes = false;
  bool withStack = false;
  bool withFlops = false;
  bool withModules = false;
  bool gzip = false;

  /// Registers the flags on `cmd` (underscore and dashed spellings).
  void add(CLI::App* cmd);
  /// The profiler's options, or std::nullopt when neither --profile nor `launched.enabled` asks for a profile.
  /// ConfigError naming the flag for a bad value, or for --profile_* flags given without a profile.
  std::optional<profile::ProfilerOptions> options(const config::ProfilerSpec& launched = {}) const;

private:
  std::vector<CLI::Option*> m_details;  ///< every --profile_* option, to tell whether one was given
  CLI::Option* m_enabled = nullptr;     ///< --profile
  CLI::Option* m_dir = nullptr;
  CLI::Option* m_schedule = nullptr;
  CLI::Option* m_memory = nullptr;
  CLI::Option* m_cuda = nullptr;
  CLI::Option* m_recordShapes = nullptr;
  CLI::Option* m_withStack = nullptr;
  CLI::Option* m_withFlops = nullptr;
  CLI::Option* m_withModules = nullptr;
};

}  // namespace fathom::cli
