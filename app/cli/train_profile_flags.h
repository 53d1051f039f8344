// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <CLI/CLI.hpp>

#include <fathom/profile/profiler_options.h>

#include <optional>
#include <string>

namespace fathom::cli {

/// `fathom train --profile` and its flags (docs/profiler.md, "fathom train --profile"): Accelerate's ProfileKwargs
/// as flags. Without --profile nothing is recorded and the other --profile_* flags are refused.
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
  /// The profiler's options, or std::nullopt without --profile. ConfigError naming the flag for a bad value, or
  /// for --profile_* flags given without --profile.
  std::optional<profile::ProfilerOptions> options() const;

private:
  std::vector<CLI::Option*> m_details;  ///< every --profile_* option, to tell whether one was given
};

}  // namespace fathom::cli
