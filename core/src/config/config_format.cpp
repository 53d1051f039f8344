// SPDX-License-Identifier: Apache-2.0
#include <fathom/config/config_format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <sstream>

namespace fathom::config {
namespace {

nlohmann::json toJson(const ConfigValue& value) {
  return std::visit([](const auto& v) { return nlohmann::json(v); }, value);
}

}  // namespace

std::string formatEffectiveConfigText(const EffectiveConfig& effective) {
  std::ostringstream out;
  out << "Config file: " << (effective.configFile ? effective.configFile->string() : std::string("(none)"))
      << (effective.usedAccelerateFallback ? " (Accelerate's default config; Fathom's is absent)" : "") << '\n';
  for (const auto& note : effective.notes) {
    out << "note: " << note << '\n';
  }
  std::size_t width = 0;
  for (const auto& [path, value] : effective.values) {
    width = std::max(width, path.size() + 2 + toDisplayString(value.value).size());
  }
  for (const auto& [path, value] : effective.values) {
    const std::string line = path + ": " + toDisplayString(value.value);
    out << line << std::string(width - line.size() + 2, ' ') << '[' << toString(value.source);
    if (value.source != ValueSource::Default && value.source != ValueSource::Code) {
      out << ' ' << value.origin;
    }
    if (!value.overridden.empty()) {
      out << "; overrides ";
      for (std::size_t i = 0; i < value.overridden.size(); ++i) {
        out << (i ? ", " : "") << value.overridden[i];
      }
    }
    out << "]\n";
  }
  return out.str();
}

std::string formatEffectiveConfigJson(const EffectiveConfig& effective) {
  nlohmann::ordered_json root = nlohmann::ordered_json::object();
  for (const auto& [path, value] : effective.config.values()) {
    nlohmann::ordered_json* node = &root;
    std::string rest = path;
    for (auto dot = rest.find('.'); dot != std::string::npos; dot = rest.find('.')) {
      node = &(*node)[rest.substr(0, dot)];
      rest = rest.substr(dot + 1);
    }
    (*node)[rest] = toJson(value);
  }
  return root.dump(2);
}

}  // namespace fathom::config
