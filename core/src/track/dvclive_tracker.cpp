// SPDX-License-Identifier: Apache-2.0
// DVCLive's output directory, as `dvclive.Live` writes it and `dvc metrics/params/plots show` read it:
//
//   dvclive/metrics.json               {"step": N, <metric>: latest value, ...}; "a/b" keys nest as {"a": {"b": ..}}
//   dvclive/plots/metrics/<key>.tsv    "step\t<basename of key>" header, then "<step>\t<value>" rows
//   dvclive/params.yaml                the init configuration
//   dvclive/dvc.yaml                   declares the three above (metrics, params, plots with x: step)
#include "track/track_util.h"

#include <fathom/common/error.h>
#include <fathom/track/file_trackers.h>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <cmath>

namespace fathom::track {

namespace {

YAML::Node toYaml(const nlohmann::json& j) {
  YAML::Node node;
  switch (j.type()) {
  case nlohmann::json::value_t::object:
    node = YAML::Node(YAML::NodeType::Map);
    for (const auto& [key, value] : j.items()) {
      node[key] = toYaml(value);
    }
    break;
  case nlohmann::json::value_t::array:
    node = YAML::Node(YAML::NodeType::Sequence);
    for (const auto& value : j) {
      node.push_back(toYaml(value));
    }
    break;
  case nlohmann::json::value_t::string: node = j.get<std::string>(); break;
  case nlohmann::json::value_t::boolean: node = j.get<bool>(); break;
  case nlohmann::json::value_t::number_integer: node = j.get<std::int64_t>(); break;
  case nlohmann::json::value_t::number_unsigned: node = j.get<std::uint64_t>(); break;
  case nlohmann::json::value_t::number_float: node = j.get<double>(); break;
  default: node = YAML::Node(YAML::NodeType::Null); break;
  }
  return node;
}

/// DVCLive's metric names are paths: no empty, "." or ".." components.
std::string sanitizeKey(const std::string& key) {
  return detail::safeRelativePath(key);
}

nlohmann::ordered_json jsonNumber(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(nullptr);
}

/// Sets `summary["a"]["b"]` for key "a/b" (as DVCLive nests metric names); false when "a" is already a number.
bool setNested(nlohmann::ordered_json& summary, const std::string& key, const nlohmann::ordered_json& value) {
  nlohmann::ordered_json* node = &summary;
  std::size_t pos = 0;
  for (auto slash = key.find('/'); slash != std::string::npos; slash = key.find('/', pos)) {
    node = &(*node)[key.substr(pos, slash - pos)];
    if (node->is_null()) {
      *node = nlohmann::ordered_json::object();
    }
    if (!node->is_object()) {
      return false;
    }
    pos = slash + 1;
  }
  auto& leaf = (*node)[key.substr(pos)];
  if (leaf.is_object()) {
    return false;
  }
  leaf = value;
  return true;
}

}  // namespace

DvcLiveTracker::DvcLiveTracker(const TrackerOptions& options) : m_dir(options.projectDir / "dvclive") {
  detail::createDirectories(m_dir / "plots" / "metrics");
  detail::writeFileAtomically(m_dir / "dvc.yaml", "metrics:\n- metrics.json\nparams:\n- params.yaml\nplots:\n"
                                                  "- plots/metrics:\n    x: step\n");
}

DvcLiveTracker::~DvcLiveTracker() = default;

void DvcLiveTracker::doStoreInitConfiguration(const nlohmann::json& config) {
  YAML::Emitter out;
  out << toYaml(config.is_object() ? config : nlohmann::json{{"config", config}});
  detail::writeFileAtomically(m_dir / "params.yaml", std::string(out.c_str()) + "\n");
}

void DvcLiveTracker::doLog(const LogValues& values, std::int64_t step, double /*wallTime*/) {
  bool any = false;
  for (const auto& [key, value] : values) {
    const auto number = detail::numeric(value);
    if (!number) {
      continue;  // DVCLive metrics are numbers
    }
    const auto safe = sanitizeKey(key);
    auto& file = m_plotFiles[safe];
    if (!file) {
      const auto path = m_dir / "plots" / "metrics" / (safe + ".tsv");
      detail::createDirectories(path.parent_path());
      const bool fresh = !std::filesystem::exists(path) || std::filesystem::file_size(path) == 0;
      file = std::make_unique<detail::AppendFile>(path);
      if (fresh) {
        file->write("step\t" + std::filesystem::path(safe).filename().string() + "\n");
      }
    }
    file->write(std::to_string(step) + "\t" + detail::formatDouble(*number) + "\n");
    file->flush();
    m_latest[safe] = *number;
    any = true;
  }
  m_step = step;
  if (any) {
    writeSummary();
  }
}

void DvcLiveTracker::writeSummary() {
  nlohmann::ordered_json summary;
  summary["step"] = m_step;
  for (const auto& [key, value] : m_latest) {
    if (!setNested(summary, key, jsonNumber(value))) {
      summary[key] = jsonNumber(value);  // "a" is a metric and "a/b" too: keep the flat name
    }
  }
  detail::writeFileAtomically(m_dir / "metrics.json", summary.dump(4) + "\n");
}

void DvcLiveTracker::doFinish() {
  for (auto& [key, file] : m_plotFiles) {
    file->close();
  }
  writeSummary();
}

}  // namespace fathom::track
