// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/accelerate_config.h>
#include <fathom/config/config_value.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::config {

/// Where an effective value came from, lowest precedence first.
enum class ValueSource {
  Default,      ///< Accelerate's default (ClusterConfig field defaults, process_config, launch defaults)
  ConfigFile,   ///< the config file
  Environment,  ///< ACCELERATE_* / FSDP_* / MEGATRON_LM_* / PARALLELISM_CONFIG_* or FATHOM_* variables
  CommandLine,  ///< a flag the user gave explicitly
  Code,         ///< an explicit argument in the program (Accelerator's constructor)
};

/// "default", "config file", "environment", "command line", "code".
std::string_view toString(ValueSource source);

/// What resolveConfig() combines. Keys are config paths ("num_processes", "fsdp_config.fsdp_version"; see
/// config_schema.h; configKeyForLaunchFlag() maps launch flag names to them).
struct ResolveInputs {
  /// `--config_file`. When set, that file must exist. When empty the default file is read if it exists
  /// (defaultConfigFile(), else accelerateDefaultConfigFile(), which is reported), unless `useDefaultConfigFile`
  /// is false or the command line sets use_cpu (Accelerate skips the default file under `--cpu`).
  std::optional<std::filesystem::path> configFile;
  /// Read the default config file when no configFile is given.
  bool useDefaultConfigFile = true;
  /// Flags given explicitly on the command line, as text: path -> value ("mixed_precision" -> "bf16").
  std::map<std::string, std::string> commandLine;
  /// Explicit arguments in code, typed: path -> value. Checked like everything else.
  std::map<std::string, ConfigValue> code;
  /// The environment to read; nullopt reads the process environment (environ).
  std::optional<std::map<std::string, std::string>> environment;
};

/// One effective value and its provenance.
struct ResolvedValue {
  ConfigValue value;                          ///< the value in effect
  ValueSource source = ValueSource::Default;  ///< which level won
  std::string origin;                   ///< "file.yaml:3:18", "ACCELERATE_MIXED_PRECISION", "--num_processes", "code"
  std::vector<std::string> overridden;  ///< "origin = value" of lower levels that also set it (not defaults)
};

/// The configuration in effect after precedence, with the provenance of every value.
struct EffectiveConfig {
  AccelerateConfig config;                          ///< the effective values (what a launch uses)
  std::map<std::string, ResolvedValue> values;      ///< path -> value and where it came from (same keys as config)
  std::optional<std::filesystem::path> configFile;  ///< the file that was read, if any
  bool usedAccelerateFallback = false;              ///< the file is Accelerate's default config (Fathom's was absent)
  std::vector<std::string> notes;  ///< things a user should know: fallback file, quirks applied, legacy keys

  /// The entry for `path`, or nullptr.
  const ResolvedValue* find(std::string_view path) const;
};

/// Resolves the configuration exactly as Accelerate does: explicit code argument > command-line flag >
/// environment > config file > defaults, per key, with Accelerate's exceptions (docs/config.md, "Quirks"):
/// - ACCELERATE_GRADIENT_ACCUMULATION_STEPS overrides the code argument gradient_accumulation_steps
///   (accelerator.py: `int(parse_choice_from_env(name, default=arg))`); code still beats the file and flags.
/// - The default config file is not read when the command line sets use_cpu (`--cpu`) (launch.py).
/// - distributed_type is also derived from ACCELERATE_USE_DEEPSPEED / ACCELERATE_USE_FSDP /
///   ACCELERATE_USE_MEGATRON_LM (state.py), in that order.
/// - num_processes defaults to 1 only when distributed_type is NO (process_config), else -1.
/// - Within the environment level FATHOM_* beats the ACCELERATE_* name of the same key.
/// Throws ConfigError for a bad file, a bad variable or flag value (naming the variable or flag), or an unknown
/// key in `commandLine`/`code`.
EffectiveConfig resolveConfig(const ResolveInputs& inputs = {});

/// The workspace file in effect (the key `fathom.workspace`, docs/workspace.md), with its provenance: `--workspace`
/// when given, else FATHOM_WORKSPACE, else the config file's `fathom.workspace`, else "fathom.sqlite" (in the
/// current directory; source Default).
struct WorkspaceSetting {
  std::filesystem::path path;
  ValueSource source = ValueSource::Default;
  std::string origin;  ///< "--workspace", "FATHOM_WORKSPACE", "file.yaml:3:12" or "default"
};
/// The default workspace file: "fathom.sqlite" in the current directory.
inline constexpr const char* kDefaultWorkspaceFile = "fathom.sqlite";
/// The workspace of an already resolved configuration (`fathom launch`, whose --workspace is a command-line entry
/// of its ResolveInputs).
WorkspaceSetting workspaceSetting(const EffectiveConfig& effective);
/// The workspace for a command that resolves nothing else (`fathom train`, `fathom runs`): the flag when given (no
/// file is read then), else resolveConfig() with `inputs` restricted to this key: only FATHOM_WORKSPACE of the
/// environment is read (an unrelated bad variable is not this command's error); the config file is inputs.configFile,
/// else the default file as resolveConfig() picks it. ConfigError for a bad config file.
WorkspaceSetting resolveWorkspace(const std::optional<std::string>& flag, ResolveInputs inputs = {});

/// The variables resolveConfig() reads for `path`, highest precedence first (FATHOM_* first).
std::vector<std::string> environmentNamesFor(std::string_view path);

}  // namespace fathom::config
