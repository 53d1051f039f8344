// SPDX-License-Identifier: Apache-2.0
#pragma once

// The built-in file trackers. Each writes the format its tool reads; docs/trackers.md describes the files and
// how to open them. Constructors create the directories and files and throw fathom::StorageError naming the
// path when they cannot.

#include <fathom/track/tracker.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace fathom::track {

namespace detail {
/// A file opened for appending whose every write is checked and flushed to the OS; errors name the path.
class AppendFile {
public:
  explicit AppendFile(std::filesystem::path path, bool truncate = false);
  ~AppendFile();
  AppendFile(const AppendFile&) = delete;
  AppendFile& operator=(const AppendFile&) = delete;

  void write(std::string_view bytes);
  void flush();
  void close();
  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
  std::FILE* m_file = nullptr;
};

/// Creates `dir` and its parents; throws fathom::StorageError naming it on failure.
void createDirectories(const std::filesystem::path& dir);
/// Writes `contents` to `path` atomically (temporary file + rename); throws fathom::StorageError naming it.
void writeFileAtomically(const std::filesystem::path& path, std::string_view contents);
}  // namespace detail

/// TensorBoard event files: `<loggingDir>/<projectName>/events.out.tfevents.<unix_ts>.<hostname>.<pid>.<n>`.
/// TFRecord framing with masked CRC-32C; the first record is the `brain.Event:2` file-version event, then one
/// Event per log() call holding a scalar summary value per number. Strings and the init configuration become
/// text summaries (TensorBoard's "Text" tab); the configuration is also written as `hparams.json` beside the
/// event file. The hparams plugin's own protobufs are not written.
class TensorBoardTracker : public Tracker {
public:
  explicit TensorBoardTracker(const TrackerOptions& options);
  ~TensorBoardTracker() override;

  std::string name() const override { return "tensorboard"; }
  bool requiresLoggingDirectory() const override { return true; }
  const std::filesystem::path& logDir() const { return m_logDir; }
  const std::filesystem::path& eventFile() const { return m_file->path(); }

protected:
  void doStoreInitConfiguration(const nlohmann::json& config) override;
  void doLog(const LogValues& values, std::int64_t step, double wallTime) override;
  void doFinish() override;

private:
  void writeRecord(const std::string& data);

  std::filesystem::path m_logDir;
  std::unique_ptr<detail::AppendFile> m_file;
};

/// MLflow's file store under `<projectDir>/mlruns/`: the default experiment `0`, an experiment named
/// `projectName` (reused when one with that name exists), and one run directory per tracker with `meta.yaml`,
/// `metrics/<key>` ("<timestamp_ms> <value> <step>" lines), `params/<key>` and `tags/<key>`. Strings logged
/// with log() become tags (MLflow metrics are numeric).
class MlflowTracker : public Tracker {
public:
  explicit MlflowTracker(const TrackerOptions& options);
  ~MlflowTracker() override;

  std::string name() const override { return "mlflow"; }
  bool requiresLoggingDirectory() const override { return true; }
  const std::filesystem::path& mlrunsDir() const { return m_root; }
  const std::string& experimentId() const { return m_experimentId; }
  const std::string& runId() const { return m_runId; }
  std::filesystem::path runDir() const { return m_root / m_experimentId / m_runId; }

protected:
  void doStoreInitConfiguration(const nlohmann::json& config) override;
  void doLog(const LogValues& values, std::int64_t step, double wallTime) override;
  void doFinish() override;

private:
  void writeRunMeta(int status, std::optional<std::int64_t> endTimeMs);
  void writeTag(const std::string& key, const std::string& value);

  std::filesystem::path m_root;
  std::string m_experimentId;
  std::string m_runId;
  std::string m_runName;
  std::string m_user;
  std::int64_t m_startTimeMs = 0;
  std::map<std::string, std::unique_ptr<detail::AppendFile>> m_metricFiles;
};

/// DVCLive's layout under `<projectDir>/dvclive/`: `metrics.json` (the latest value of every metric plus
/// "step", nested at '/'), `plots/metrics/<key>.tsv` ("step\t<last key component>" header, one row per value),
/// `params.yaml` (the init configuration) and `dvc.yaml` (declares them for `dvc metrics/params/plots`).
/// Strings are not metrics and are skipped.
class DvcLiveTracker : public Tracker {
public:
  explicit DvcLiveTracker(const TrackerOptions& options);
  ~DvcLiveTracker() override;

  std::string name() const override { return "dvclive"; }
  bool requiresLoggingDirectory() const override { return true; }
  const std::filesystem::path& dir() const { return m_dir; }

protected:
  void doStoreInitConfiguration(const nlohmann::json& config) override;
  void doLog(const LogValues& values, std::int64_t step, double wallTime) override;
  void doFinish() override;

private:
  void writeSummary();

  std::filesystem::path m_dir;
  std::map<std::string, double> m_latest;
  std::int64_t m_step = 0;
  std::map<std::string, std::unique_ptr<detail::AppendFile>> m_plotFiles;
};

/// A tracker that appends lines to one file, `<loggingDir>/<projectName>/<fileName>`, and writes the init
/// configuration to `config.json` beside it: what the CSV and JSONL trackers share. Subclasses format the lines.
class LineFileTracker : public Tracker {
public:
  ~LineFileTracker() override;
  bool requiresLoggingDirectory() const override { return true; }
  const std::filesystem::path& file() const;

protected:
  /// Opens the file for appending; `header` is written only when the file is new.
  LineFileTracker(const TrackerOptions& options, const char* fileName, std::string_view header);
  /// Appends `lines` and flushes them, so a killed run keeps them.
  void append(std::string_view lines);
  void doStoreInitConfiguration(const nlohmann::json& config) override;
  void doFinish() override;

private:
  std::unique_ptr<detail::AppendFile> m_file;
};

/// `<loggingDir>/<projectName>/metrics.csv` in long format, one row per value: `step,wall_time,key,value`
/// (RFC 4180 quoting; strings as they are).
class CsvTracker : public LineFileTracker {
public:
  explicit CsvTracker(const TrackerOptions& options);
  std::string name() const override { return "csv"; }

protected:
  void doLog(const LogValues& values, std::int64_t step, double wallTime) override;
};

/// `<loggingDir>/<projectName>/metrics.jsonl`: one JSON object per log() call,
/// `{"step": N, "wall_time": seconds, "values": {...}}` (non-finite numbers become null).
class JsonlTracker : public LineFileTracker {
public:
  explicit JsonlTracker(const TrackerOptions& options);
  std::string name() const override { return "jsonl"; }

protected:
  void doLog(const LogValues& values, std::int64_t step, double wallTime) override;
};

}  // namespace fathom::track
