// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/track/tracker.h>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::track {

using TrackerFactory = std::function<std::unique_ptr<Tracker>(const TrackerOptions&)>;

/// Registers a user tracker under `name` (lower-case letters, digits, '_' and '-'). Throws fathom::ConfigError
/// when the name is malformed, is "all", or is already taken (built-ins included). Thread-safe.
void registerTracker(const std::string& name, TrackerFactory factory);

/// Registers a tracker that `--log_with all` includes. For Fathom's own trackers that live outside this
/// directory (the workspace's `sqlite` tracker); same rules as registerTracker().
void registerBuiltinTracker(const std::string& name, TrackerFactory factory);

/// Removes a user tracker (tests, plugins being unloaded). Built-ins cannot be removed; returns whether one was.
bool unregisterTracker(const std::string& name);

/// Creates the tracker registered under `name`. Throws fathom::ConfigError for an unknown name, listing the
/// known ones; the factory's own errors (fathom::StorageError for an unwritable directory) pass through.
std::unique_ptr<Tracker> makeTracker(const std::string& name, const TrackerOptions& options);

/// The built-in trackers' names, sorted: csv, dvclive, jsonl, mlflow, tensorboard (and sqlite once the
/// workspace registers it).
std::vector<std::string> builtinTrackerNames();
/// Every registered name, built-in and user, sorted.
std::vector<std::string> registeredTrackerNames();

/// Parses a `--log_with` value: names separated by commas (spaces around them ignored, duplicates dropped,
/// order kept). "all" stands for every built-in, as in Accelerate. An empty list gives no trackers. Throws
/// fathom::ConfigError naming each unknown name and listing the known ones.
std::vector<std::string> parseLogWith(std::string_view list);

/// The trackers of one run, as Accelerate's `init_trackers` / `log` / `get_tracker` / `end_training` use them.
/// On a process that is not the main one, trackers whose mainProcessOnly() is true are never created.
class TrackerGroup {
public:
  TrackerGroup() = default;
  /// Creates each named tracker (see parseLogWith()). A failure destroys those already made and rethrows.
  TrackerGroup(const std::vector<std::string>& names, const TrackerOptions& options, bool isMainProcess = true);

  /// Adds an already-built tracker (skipped, returning false, when it is main-process-only and this is not
  /// the main process).
  bool add(std::unique_ptr<Tracker> tracker);

  void storeInitConfiguration(const nlohmann::json& config);
  void log(const LogValues& values, std::optional<std::int64_t> step = std::nullopt);
  /// Finishes every tracker, even when one throws; the first error is rethrown afterwards.
  void finish();

  /// The tracker named `name`, or nullptr.
  Tracker* get(std::string_view name) const;
  const std::vector<std::unique_ptr<Tracker>>& trackers() const { return m_trackers; }
  bool empty() const { return m_trackers.empty(); }

private:
  std::vector<std::unique_ptr<Tracker>> m_trackers;
  bool m_isMainProcess = true;
};

}  // namespace fathom::track
