// SPDX-License-Identifier: Apache-2.0
// The plain-file trackers: long-format CSV and JSON Lines. Both append, so a second run into the same directory
// adds rows after the first run's (wall_time tells them apart).
#include "track/track_util.h"

#include <fathom/common/error.h>
#include <fathom/track/file_trackers.h>

#include <nlohmann/json.hpp>

namespace fathom::track {

namespace {

/// RFC 4180: a field with a comma, quote, CR or LF is quoted, quotes doubled.
std::string csvField(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) {
    return s;
  }
  std::string out = "\"";
  for (const char c : s) {
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return out + "\"";
}

std::unique_ptr<detail::AppendFile> openInProjectDir(const TrackerOptions& options, const char* fileName,
                                                     std::string_view headerIfNew) {
  const auto dir = options.effectiveLoggingDir() / options.projectName;
  detail::createDirectories(dir);
  const auto path = dir / fileName;
  std::error_code ec;
  const bool fresh = !std::filesystem::exists(path, ec) || std::filesystem::file_size(path, ec) == 0;
  auto file = std::make_unique<detail::AppendFile>(path);
  if (fresh && !headerIfNew.empty()) {
    file->write(headerIfNew);
    file->flush();
  }
  return file;
}

void writeConfigJson(const detail::AppendFile& beside, const nlohmann::json& config) {
  detail::writeFileAtomically(beside.path().parent_path() / "config.json", config.dump(2) + "\n");
}

}  // namespace

// --- shared ------------------------------------------------------------------------------------------------

LineFileTracker::LineFileTracker(const TrackerOptions& options, const char* fileName, std::string_view header)
    : m_file(openInProjectDir(options, fileName, header)) {}

LineFileTracker::~LineFileTracker() = default;

const std::filesystem::path& LineFileTracker::file() const {
  return m_file->path();
}

void LineFileTracker::append(std::string_view lines) {
  m_file->write(lines);
  m_file->flush();
}

void LineFileTracker::doStoreInitConfiguration(const nlohmann::json& config) {
  writeConfigJson(*m_file, config);
}

void LineFileTracker::doFinish() {
  m_file->close();
}

// --- CSV ---------------------------------------------------------------------------------------------------

CsvTracker::CsvTracker(const TrackerOptions& options)
    : LineFileTracker(options, "metrics.csv", "step,wall_time,key,value\n") {}

void CsvTracker::doLog(const LogValues& values, std::int64_t step, double wallTime) {
  std::string rows;
  const auto prefix = std::to_string(step) + "," + detail::formatDouble(wallTime) + ",";
  for (const auto& [key, value] : values) {
    std::string text;
    if (const auto* d = std::get_if<double>(&value)) {
      text = detail::formatDouble(*d);
    } else if (const auto* i = std::get_if<std::int64_t>(&value)) {
      text = std::to_string(*i);
    } else {
      text = std::get<std::string>(value);
    }
    rows += prefix + csvField(key) + "," + csvField(text) + "\n";
  }
  append(rows);
}

// --- JSONL -------------------------------------------------------------------------------------------------

JsonlTracker::JsonlTracker(const TrackerOptions& options) : LineFileTracker(options, "metrics.jsonl", {}) {}

void JsonlTracker::doLog(const LogValues& values, std::int64_t step, double wallTime) {
  nlohmann::ordered_json line;
  line["step"] = step;
  line["wall_time"] = wallTime;
  auto& out = line["values"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : values) {
    std::visit([&out, &key](const auto& v) { out[key] = v; }, value);
  }
  // Non-finite doubles are written as null (JSON has no NaN); invalid UTF-8 is replaced, not thrown.
  append(line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n");
}

}  // namespace fathom::track
