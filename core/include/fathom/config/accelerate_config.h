// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/config/config_value.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::config {

/// The contents of one config file (a RunSpec): Accelerate's ClusterConfig keys, its sub-dicts and Fathom's
/// `fathom:` section, as typed values keyed by path ("num_processes", "fsdp_config.fsdp_version",
/// "fathom.profiler.enabled").
///
/// Invariant: every stored value has passed the schema (config_schema.h): its key exists, its type matches and
/// enumerations are in canonical spelling. Unset keys are absent (Accelerate drops None and empty dicts when it
/// writes), so two configs are equal exactly when they would resolve to the same effective configuration.
class AccelerateConfig {
public:
  /// Sets `path` to `value` after checking it against the schema; throws ConfigError naming the key and the
  /// allowed values. `origin` names where the value came from in that message ("--num_processes", a file).
  void set(std::string_view path, const ConfigValue& value, std::string_view origin = "value");

  /// Parses `text` for the key at `path` (as an environment variable or flag would be) and sets it.
  void setText(std::string_view path, std::string_view text, std::string_view origin = "value");

  /// Removes `path`; returns whether it was set.
  bool erase(std::string_view path);

  /// The value at `path`, or nullptr when unset.
  const ConfigValue* find(std::string_view path) const;

  /// True when `path` is set.
  bool contains(std::string_view path) const { return find(path) != nullptr; }

  /// Every set value, ordered by path.
  const std::map<std::string, ConfigValue, std::less<>>& values() const { return m_values; }

  /// Fills what Accelerate's `process_config` and ClusterConfig's field defaults fill when a file is read
  /// (compute_environment, num_processes = 1 for distributed_type NO, use_cpu, debug, enable_cpu_affinity,
  /// machine_rank, num_machines, rdzv_backend, same_network, main_training_function, downcast_bf16, tpu_*):
  /// what `accelerate config update` writes back.
  void fillAccelerateDefaults();

  /// Typed accessors for the keys the launcher and runtime need; they return the Accelerate default when unset.
  std::string distributedType() const;  ///< "NO", "MULTI_GPU", "FSDP", ...
  std::string mixedPrecision() const;   ///< "no", "fp16", "bf16", "fp8"
  std::int64_t numProcesses() const;    ///< -1 when unset and distributed_type is not NO (Accelerate's default)
  std::int64_t numMachines() const;     ///< 1 when unset
  std::int64_t machineRank() const;     ///< 0 when unset
  bool useCpu() const;                  ///< false when unset
  std::optional<std::string> mainProcessIp() const;     ///< unset: the launcher uses 127.0.0.1
  std::optional<std::int64_t> mainProcessPort() const;  ///< unset: the launcher uses 29500

  /// Typed getters for any key; nullopt when unset or of another type.
  std::optional<bool> getBool(std::string_view path) const;
  std::optional<std::int64_t> getInt(std::string_view path) const;
  std::optional<double> getDouble(std::string_view path) const;
  std::optional<std::string> getString(std::string_view path) const;

  bool operator==(const AccelerateConfig& other) const { return m_values == other.m_values; }

private:
  std::map<std::string, ConfigValue, std::less<>> m_values;
};

}  // namespace fathom::config
