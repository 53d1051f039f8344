// SPDX-License-Identifier: Apache-2.0
// MLflow's file store (mlflow/store/tracking/file_store.py), which `mlflow ui --backend-store-uri <dir>/mlruns`
// reads:
//
//   mlruns/<experiment_id>/meta.yaml             artifact_location, creation_time, experiment_id, last_update_time,
//                                                lifecycle_stage, name
//   mlruns/<experiment_id>/<run_id>/meta.yaml    RunInfo; status and source_type are stored as enum numbers
//   mlruns/<experiment_id>/<run_id>/metrics/<key>  "<timestamp_ms> <value> <step>" per line ('/' in a key makes
//                                                sub-directories, as MLflow does)
//   mlruns/<experiment_id>/<run_id>/params/<key>   the value, no newline
//   mlruns/<experiment_id>/<run_id>/tags/<key>     the value, no newline
//
// Experiment 0 ("Default") is created when missing, as FileStore does on first use.
#include "track/track_util.h"

#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/track/file_trackers.h>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <random>

#include <pwd.h>
#include <unistd.h>

namespace fathom::track {

namespace {

constexpr int kStatusRunning = 1;
constexpr int kStatusFinished = 3;
constexpr int kSourceTypeLocal = 4;

std::string yamlQuoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    out += c == '\'' ? std::string("''") : std::string(1, c);
  }
  return out + "'";
}

std::string fileUri(const std::filesystem::path& p) {
  return "file://" + std::filesystem::absolute(p).lexically_normal().string();
}

std::int64_t nowMs() {
  return static_cast<std::int64_t>(std::llround(unixNowSeconds() * 1000.0));
}

std::string userName() {
  if (const char* u = std::getenv("USER"); u != nullptr && *u != '\0') {
    return u;
  }
  if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_name != nullptr) {
    return pw->pw_name;
  }
  return "unknown";
}

std::string randomRunId() {
  std::random_device rd;
  std::mt19937_64 gen((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id;
  for (int i = 0; i < 32; ++i) {
    id += kHex[gen() & 0xF];
  }
  return id;
}

/// MLflow accepts alphanumerics, '_', '-', '.', ' ' and '/' in keys, and no '..' path components.
std::string sanitizeKey(const std::string& key) {
  std::string out;
  for (const char c : key) {
    const bool ok =
        std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ' ' || c == '/';
    out += ok ? c : '_';
  }
  return detail::safeRelativePath(out);
}

void writeExperimentMeta(const std::filesystem::path& root, const std::string& id, const std::string& name) {
  const auto dir = root / id;
  detail::createDirectories(dir);
  const auto ms = std::to_string(nowMs());
  detail::writeFileAtomically(dir / "meta.yaml", "artifact_location: " + yamlQuoted(fileUri(dir)) +
                                                     "\ncreation_time: " + ms + "\nexperiment_id: " + yamlQuoted(id) +
                                                     "\nlast_update_time: " + ms +
                                                     "\nlifecycle_stage: active\nname: " + yamlQuoted(name) + "\n");
}

/// The id of the active experiment named `name`, creating it (max numeric id + 1) when there is none.
std::string findOrCreateExperiment(const std::filesystem::path& root, const std::string& name) {
  long maxId = 0;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    const auto id = entry.path().filename().string();
    const auto meta = entry.path() / "meta.yaml";
    if (!entry.is_directory() || !std::filesystem::exists(meta)) {
      continue;
    }
    char* end = nullptr;
    const long numeric = std::strtol(id.c_str(), &end, 10);
    if (end != nullptr && *end == '\0') {
      maxId = std::max(maxId, numeric);
    }
    try {
      const YAML::Node node = YAML::LoadFile(meta.string());
      if (node["name"] && node["name"].as<std::string>() == name && node["lifecycle_stage"] &&
          node["lifecycle_stage"].as<std::string>() == "active") {
        return id;
      }
    } catch (const YAML::Exception&) {
      // Not ours to judge: MLflow itself reports a malformed experiment.
    }
  }
  const auto id = std::to_string(maxId + 1);
  writeExperimentMeta(root, id, name);
  return id;
}

}  // namespace

MlflowTracker::MlflowTracker(const TrackerOptions& options)
    : m_root(std::filesystem::absolute(options.projectDir / "mlruns").lexically_normal()), m_runId(randomRunId()),
      m_user(userName()), m_startTimeMs(nowMs()) {
  detail::createDirectories(m_root);
  if (!std::filesystem::exists(m_root / "0" / "meta.yaml")) {
    writeExperimentMeta(m_root, "0", "Default");
  }
  m_experimentId = options.projectName == "Default" ? "0" : findOrCreateExperiment(m_root, options.projectName);
  m_runName = options.runName.empty() ? "run-" + std::to_string(m_startTimeMs) : options.runName;
  for (const char* sub : {"metrics", "params", "tags", "artifacts"}) {
    detail::createDirectories(runDir() / sub);
  }
  writeRunMeta(kStatusRunning, std::nullopt);
  writeTag("mlflow.runName", m_runName);
  writeTag("mlflow.user", m_user);
  writeTag("mlflow.source.name", "fathom");
  writeTag("mlflow.source.type", "LOCAL");
}

MlflowTracker::~MlflowTracker() = default;

void MlflowTracker::writeRunMeta(int status, std::optional<std::int64_t> endTimeMs) {
  const auto dir = runDir();
  const std::string text = "artifact_uri: " + yamlQuoted(fileUri(dir / "artifacts")) +
                           "\nend_time: " + (endTimeMs ? std::to_string(*endTimeMs) : std::string("null")) +
                           "\nentry_point_name: ''\nexperiment_id: " + yamlQuoted(m_experimentId) +
                           "\nlifecycle_stage: active\nrun_id: " + yamlQuoted(m_runId) +
                           "\nrun_name: " + yamlQuoted(m_runName) + "\nrun_uuid: " + yamlQuoted(m_runId) +
                           "\nsource_name: ''\nsource_type: " + std::to_string(kSourceTypeLocal) +
                           "\nsource_version: ''\nstart_time: " + std::to_string(m_startTimeMs) +
                           "\nstatus: " + std::to_string(status) + "\ntags: []\nuser_id: " + yamlQuoted(m_user) + "\n";
  detail::writeFileAtomically(dir / "meta.yaml", text);
}

void MlflowTracker::writeTag(const std::string& key, const std::string& value) {
  const auto path = runDir() / "tags" / sanitizeKey(key);
  detail::createDirectories(path.parent_path());
  detail::writeFileAtomically(path, value);
}

void MlflowTracker::doStoreInitConfiguration(const nlohmann::json& config) {
  for (const auto& [key, value] : detail::flattenConfig(config)) {
    const auto path = runDir() / "params" / sanitizeKey(key);
    detail::createDirectories(path.parent_path());
    detail::writeFileAtomically(path, value);
  }
}

void MlflowTracker::doLog(const LogValues& values, std::int64_t step, double wallTime) {
  const auto ms = std::to_string(static_cast<std::int64_t>(std::llround(wallTime * 1000.0)));
  for (const auto& [key, value] : values) {
    const auto number = detail::numeric(value);
    if (!number) {
      writeTag(key, std::get<std::string>(value));
      continue;
    }
    const auto safe = sanitizeKey(key);
    auto& file = m_metricFiles[safe];
    if (!file) {
      const auto path = runDir() / "metrics" / safe;
      detail::createDirectories(path.parent_path());
      file = std::make_unique<detail::AppendFile>(path);
    }
    file->write(ms + " " + detail::formatDouble(*number) + " " + std::to_string(step) + "\n");
    file->flush();
  }
}

void MlflowTracker::doFinish() {
  for (auto& [key, file] : m_metricFiles) {
    file->close();
  }
  writeRunMeta(kStatusFinished, nowMs());
}

}  // namespace fathom::track
