// SPDX-License-Identifier: Apache-2.0
#include <fathom/config/accelerate_config.h>

#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/config/config_schema.h>

namespace fathom::config {
namespace {

const KeySpec& requireKey(std::string_view path, std::string_view origin) {
  const KeySpec* key = findKey(path);
  if (key == nullptr) {
    std::string section;
    if (auto dot = path.rfind('.'); dot != std::string_view::npos) {
      section = std::string(path.substr(0, dot));
    }
    std::string allowed;
    for (const auto& name : allowedKeysIn(section)) {
      allowed += (allowed.empty() ? "" : ", ") + name;
    }
    throw ConfigError(detail::concat(terminalSafe(origin), ": unknown key '", terminalSafe(path), "'; allowed keys",
                                     section.empty() ? "" : " in " + section, ": ", allowed));
  }
  return *key;
}

}  // namespace

void AccelerateConfig::set(std::string_view path, const ConfigValue& value, std::string_view origin) {
  const KeySpec& key = requireKey(path, origin);
  m_values.insert_or_assign(std::string(path), checkValue(key, value, origin));
}

void AccelerateConfig::setText(std::string_view path, std::string_view text, std::string_view origin) {
  const KeySpec& key = requireKey(path, origin);
  m_values.insert_or_assign(std::string(path), parseValueText(key, text, origin));
}

bool AccelerateConfig::erase(std::string_view path) {
  auto it = m_values.find(path);
  if (it == m_values.end()) {
    return false;
  }
  m_values.erase(it);
  return true;
}

const ConfigValue* AccelerateConfig::find(std::string_view path) const {
  auto it = m_values.find(path);
  return it == m_values.end() ? nullptr : &it->second;
}

void AccelerateConfig::fillAccelerateDefaults() {
  for (const auto& key : allKeys()) {
    if (!key.section.empty() || !key.inFile || !key.defaultValue || contains(key.name)) {
      continue;
    }
    if (key.name == "num_processes") {
      // process_config: num_processes defaults to 1 only for distributed_type NO; otherwise the field default -1.
      m_values.emplace(key.name, distributedType() == "NO" ? std::int64_t{1} : std::int64_t{-1});
      continue;
    }
    if (key.name == "mixed_precision" || key.name == "distributed_type") {
      continue;  // None is dropped on write; distributed_type is required in a file
    }
    m_values.emplace(key.name, *key.defaultValue);
  }
}

std::optional<bool> AccelerateConfig::getBool(std::string_view path) const {
  const ConfigValue* v = find(path);
  return v && std::holds_alternative<bool>(*v) ? std::optional<bool>(std::get<bool>(*v)) : std::nullopt;
}

std::optional<std::int64_t> AccelerateConfig::getInt(std::string_view path) const {
  const ConfigValue* v = find(path);
  return v && std::holds_alternative<std::int64_t>(*v) ? std::optional<std::int64_t>(std::get<std::int64_t>(*v))
                                                       : std::nullopt;
}

std::optional<double> AccelerateConfig::getDouble(std::string_view path) const {
  const ConfigValue* v = find(path);
  return v && std::holds_alternative<double>(*v) ? std::optional<double>(std::get<double>(*v)) : std::nullopt;
}

std::optional<std::string> AccelerateConfig::getString(std::string_view path) const {
  const ConfigValue* v = find(path);
  return v && std::holds_alternative<std::string>(*v) ? std::optional<std::string>(std::get<std::string>(*v))
                                                      : std::nullopt;
}

std::string AccelerateConfig::distributedType() const {
  return getString("distributed_type").value_or("NO");
}

std::string AccelerateConfig::mixedPrecision() const {
  return getString("mixed_precision").value_or("no");
}

std::int64_t AccelerateConfig::numProcesses() const {
  if (auto n = getInt("num_processes")) {
    return *n;
  }
  return distributedType() == "NO" ? 1 : -1;
}

std::int64_t AccelerateConfig::numMachines() const {
  return getInt("num_machines").value_or(1);
}

std::int64_t AccelerateConfig::machineRank() const {
  return getInt("machine_rank").value_or(0);
}

bool AccelerateConfig::useCpu() const {
  return getBool("use_cpu").value_or(false);
}

std::optional<std::string> AccelerateConfig::mainProcessIp() const {
  return getString("main_process_ip");
}

std::optional<std::int64_t> AccelerateConfig::mainProcessPort() const {
  return getInt("main_process_port");
}

}  // namespace fathom::config
