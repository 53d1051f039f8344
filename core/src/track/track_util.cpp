// SPDX-License-Identifier: Apache-2.0
#include "track/track_util.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>

#include <unistd.h>

namespace fathom::track::detail {

namespace {
void flattenInto(const nlohmann::json& value, const std::string& prefix,
                 std::vector<std::pair<std::string, std::string>>& out) {
  if (value.is_object() && !value.empty()) {
    for (const auto& [key, child] : value.items()) {
      flattenInto(child, prefix.empty() ? key : prefix + "/" + key, out);
    }
  } else if (value.is_string()) {
    out.emplace_back(prefix, value.get<std::string>());
  } else {
    out.emplace_back(prefix, value.dump());
  }
}
}  // namespace

std::vector<std::pair<std::string, std::string>> flattenConfig(const nlohmann::json& config) {
  std::vector<std::pair<std::string, std::string>> out;
  flattenInto(config, config.is_object() ? "" : "config", out);
  return out;
}

std::optional<double> numeric(const LogValue& value) {
  if (const auto* d = std::get_if<double>(&value)) {
    return *d;
  }
  if (const auto* i = std::get_if<std::int64_t>(&value)) {
    return static_cast<double>(*i);
  }
  return std::nullopt;
}

std::string formatDouble(double value) {
  if (std::isnan(value)) {
    return "nan";
  }
  if (std::isinf(value)) {
    return value > 0 ? "inf" : "-inf";
  }
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, ec == std::errc{} ? end : buf);
}

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof(name) - 1) == 0 && name[0] != '\0') {
    return name;
  }
  return "localhost";
}

std::string safeRelativePath(const std::string& key) {
  std::string cleaned;
  std::size_t pos = 0;
  while (pos <= key.size()) {
    const auto slash = key.find('/', pos);
    auto part = key.substr(pos, slash == std::string::npos ? std::string::npos : slash - pos);
    pos = slash == std::string::npos ? key.size() + 1 : slash + 1;
    if (part.empty()) {
      continue;
    }
    if (part == "." || part == "..") {
      part = "_";
    }
    cleaned += (cleaned.empty() ? "" : "/") + part;
  }
  return cleaned.empty() ? "_" : cleaned;
}

}  // namespace fathom::track::detail
