// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/config_value.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fathom::config {

/// The type of a configuration key, and so which ConfigValue alternative it holds.
enum class ValueKind {
  Bool,        ///< bool; accepts Accelerate's str_to_bool spellings (y/yes/t/true/on/1, n/no/f/false/off/0)
  Int,         ///< std::int64_t within [minimum, maximum]; `allowed`, when set, lists the legal numbers
  Float,       ///< double
  String,      ///< std::string, free text (paths, host names, class names)
  Enum,        ///< std::string, one of `allowed` (stored in its canonical spelling)
  StringList,  ///< std::vector<std::string>; a YAML sequence or one comma-separated string
  EnumList,    ///< std::vector<std::string>, each one of `allowed`
  BoolList,    ///< std::vector<bool> of exactly `listSize` entries (fp8 override_linear_precision)
  BoolOrEnum,  ///< bool or one of `allowed` (fsdp_reshard_after_forward: FSDP2 bool, FSDP1 strategy)
};

/// Human name of a kind, used in error messages: "a boolean", "an integer", ...
std::string_view describe(ValueKind kind);

/// Everything Fathom knows about one key of the config file. Keys live in sections: "" is the top level of
/// Accelerate's ClusterConfig, "fsdp_config", "deepspeed_config", ... are its sub-dicts, and "fathom",
/// "fathom.profiler", "fathom.planner" are Fathom's own section. A key's path is "section.name" (or "name" at
/// the top level), e.g. "fsdp_config.fsdp_version".
struct KeySpec {
  std::string section;                 ///< "" for the top level
  std::string name;                    ///< the key as written in the file
  ValueKind kind = ValueKind::String;  ///< value type
  std::vector<std::string> allowed;    ///< Enum/EnumList/BoolOrEnum spellings; Int: legal numbers
  std::vector<std::pair<std::string, std::string>> valueAliases;  ///< legacy value -> canonical value
  bool caseInsensitive = false;             ///< Enum matching ignores case (Accelerate upper()s these)
  std::optional<ConfigValue> defaultValue;  ///< Accelerate's default when absent (top level only)
  std::int64_t minimum = std::numeric_limits<std::int64_t>::min();  ///< Int lower bound
  std::int64_t maximum = std::numeric_limits<std::int64_t>::max();  ///< Int upper bound
  std::optional<double> floatMinimum;                               ///< Float lower bound (inclusive), if any
  std::size_t listSize = 0;                                         ///< BoolList length
  bool inFile = true;                    ///< false: resolved from code/flags/environment only
  std::vector<std::string> environment;  ///< Accelerate's variables for this key (FATHOM_* is implied)
  std::string help;                      ///< one line for `fathom config show` and docs/config.md

  /// "section.name", or "name" at the top level.
  std::string path() const { return section.empty() ? name : section + "." + name; }
};

/// A section of the file: its name, the top-level key that holds it, and what it is for.
struct SectionSpec {
  std::string name;  ///< "" (top level), "fsdp_config", ..., "fathom", "fathom.profiler"
  std::string help;  ///< one line
};

/// Every key Fathom reads, in documentation order. The table is built once and never changes.
const std::vector<KeySpec>& allKeys();

/// Every section, top level first.
const std::vector<SectionSpec>& allSections();

/// The key at `path` ("num_processes", "fsdp_config.fsdp_version"), or nullptr.
const KeySpec* findKey(std::string_view path);

/// The key `name` inside `section`, following legacy spellings Accelerate still accepts (in fsdp_config a key
/// without its "fsdp_" prefix; in fp8_config the questionnaire's `amax_history_length`, `amax_compute_algorithm`,
/// `optimization_level`). Returns nullptr for an unknown key.
const KeySpec* findKeyInSection(std::string_view section, std::string_view name);

/// True when `section` names a section (a mapping in the file).
bool isSection(std::string_view section);

/// Keys (and sub-sections) allowed directly inside `section`, sorted, for "allowed keys" in error messages.
std::vector<std::string> allowedKeysIn(std::string_view section);

/// The FATHOM_* variable of a key: "FATHOM_" + the upper-cased path with '.' as "__", the "fathom." prefix dropped
/// (FATHOM_NUM_PROCESSES, FATHOM_FSDP_CONFIG__FSDP_VERSION, FATHOM_PROFILER__ENABLED).
std::string fathomEnvironmentName(const KeySpec& key);

/// Checks and normalises a value given as text (an environment variable, a flag, a piped answer) for `key`.
/// Throws ConfigError naming `origin`, the key, the value and the allowed values.
ConfigValue parseValueText(const KeySpec& key, std::string_view text, std::string_view origin);

/// Checks and normalises a list given item by item (a YAML sequence) for a StringList, EnumList or BoolList key.
/// Throws ConfigError naming `origin`, the key, the bad entry and the allowed values.
ConfigValue parseValueList(const KeySpec& key, const std::vector<std::string>& items, std::string_view origin);

/// Checks a typed value (an explicit argument in code) for `key` and returns it normalised (canonical enum
/// spelling, Int range). Throws ConfigError naming `origin`.
ConfigValue checkValue(const KeySpec& key, const ConfigValue& value, std::string_view origin);

/// Accelerate's str_to_bool: y/yes/t/true/on/1 -> true, n/no/f/false/off/0 -> false (any case), else nullopt.
std::optional<bool> parseBool(std::string_view text);

/// What an `accelerate launch` flag (without dashes, underscores or dashes inside) sets: the key path and, for
/// mode switches (--cpu, --multi_gpu, --use_fsdp, --use_deepspeed, --use_megatron_lm, --tpu), the fixed value.
struct LaunchFlagTarget {
  std::string path;                       ///< key path, e.g. "fsdp_config.fsdp_sharding_strategy"
  std::optional<std::string> fixedValue;  ///< set for mode switches, e.g. "FSDP" for --use_fsdp
};

/// Maps a launch flag name ("num_processes", "num-processes", "fp8_backend", "use_fsdp") to its key, or nullopt
/// when the flag has no config key (--tee, --max_restarts, ...).
std::optional<LaunchFlagTarget> configKeyForLaunchFlag(std::string_view flag);

/// The launch flag (with "--") that sets `path`, e.g. "--fp8_backend" for "fp8_config.backend".
std::string launchFlagForKey(std::string_view path);

}  // namespace fathom::config
