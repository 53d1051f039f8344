// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>

namespace fathom::track {

/// One logged value: a number (double or integer) or a string. Trackers that only store numbers (TensorBoard
/// scalars, MLflow metrics, DVCLive plots) skip strings or store them elsewhere; each tracker documents it.
using LogValue = std::variant<double, std::int64_t, std::string>;
using LogValues = std::map<std::string, LogValue>;

/// Where and under which names a tracker writes. Paths are created on demand.
struct TrackerOptions {
  /// The experiment: TensorBoard's and the CSV/JSONL trackers' sub-directory, MLflow's experiment name.
  std::string projectName = "fathom";
  /// Root of MLflow's `mlruns/` and DVCLive's `dvclive/` (Accelerate's `project_dir`).
  std::filesystem::path projectDir = ".";
  /// Root of TensorBoard, CSV and JSONL output (Accelerate's `logging_dir`); empty means `projectDir`.
  std::filesystem::path loggingDir;
  /// The run's display name (MLflow's `run_name`); empty means one is generated from the start time.
  std::string runName;
  /// The workspace the built-in `sqlite` tracker writes when the process runs without `fathom launch` (under the
  /// launcher it sends to the launcher's collector instead).
  std::filesystem::path workspace = "fathom.sqlite";

  std::filesystem::path effectiveLoggingDir() const { return loggingDir.empty() ? projectDir : loggingDir; }
};

/// An experiment tracker, after Accelerate's `GeneralTracker`: it receives the run's configuration once and
/// then values per step, and must leave what it wrote readable by its tool.
///
/// The public calls are non-virtual and check the call order (no call after finish(), finish() idempotent);
/// implementations override the protected `do*` hooks. Every built-in tracker flushes its files at the end of
/// each call, so a killed process keeps everything logged so far. I/O failures throw fathom::StorageError
/// naming the path.
class Tracker {
public:
  virtual ~Tracker() = default;
  Tracker(const Tracker&) = delete;
  Tracker& operator=(const Tracker&) = delete;

  /// The registry name ("tensorboard", "mlflow", ...).
  virtual std::string name() const = 0;
  /// True when the tracker writes files under a logging directory (Accelerate's `requires_logging_directory`).
  virtual bool requiresLoggingDirectory() const = 0;
  /// True (the default) when only the main process of a distributed run should create and feed this tracker.
  virtual bool mainProcessOnly() const { return true; }

  /// Records the run's configuration (hyper-parameters). A nested object is stored as the tracker's format
  /// allows (flattened with '/' separators where the format is flat).
  void storeInitConfiguration(const nlohmann::json& config);

  /// Logs `values` at `step`. Without a step the previous call's step is reused (0 for the first call), as
  /// DVCLive does; TensorBoard and MLflow default to 0 themselves, so pass steps explicitly.
  void log(const LogValues& values, std::optional<std::int64_t> step = std::nullopt);
  /// Convenience for all-double maps (a braced list `{{"loss", 0.5}}` picks the LogValues overload).
  template <typename Map>
  requires std::same_as<Map, std::map<std::string, double>>
  void log(const Map& values, std::optional<std::int64_t> step = std::nullopt) {
    log(LogValues(values.begin(), values.end()), step);
  }

  /// Writes the final state and closes the files. Idempotent; every other call afterwards throws
  /// fathom::ConfigError.
  void finish();
  bool finished() const { return m_finished; }

protected:
  Tracker() = default;

  virtual void doStoreInitConfiguration(const nlohmann::json& config) = 0;
  /// `wallTime` is seconds since the Unix epoch, taken once per log() call and shared by every value.
  virtual void doLog(const LogValues& values, std::int64_t step, double wallTime) = 0;
  virtual void doFinish() = 0;

private:
  void checkOpen(const char* call) const;

  std::optional<std::int64_t> m_lastStep;
  bool m_finished = false;
};

}  // namespace fathom::track
