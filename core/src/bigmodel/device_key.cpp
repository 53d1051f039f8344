// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/device_key.h>

#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace fathom::bigmodel {

DeviceKey DeviceKey::gpu(int index) {
  FATHOM_CHECK(index >= 0, ConfigError, "device map: a GPU index must be >= 0, got ", index);
  return DeviceKey(Kind::Gpu, index);
}

std::optional<DeviceKey> DeviceKey::parse(std::string_view text) {
  if (text == "cpu") {
    return cpu();
  }
  if (text == "disk") {
    return disk();
  }
  if (text == "mps") {
    return mps();
  }
  int index = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || index < 0 ||
      !std::isdigit(static_cast<unsigned char>(text.front()))) {
    return std::nullopt;
  }
  return gpu(index);
}

std::string DeviceKey::toString() const {
  switch (m_kind) {
  case Kind::Gpu: return std::to_string(m_index);
  case Kind::Mps: return "mps";
  case Kind::Cpu: return "cpu";
  case Kind::Disk: return "disk";
  }
  return "?";
}

MaxMemory normalizeMaxMemory(MaxMemory maxMemory) {
  for (const MemoryLimit& limit : maxMemory) {
    FATHOM_CHECK(limit.bytes >= 0 && std::isfinite(limit.bytes), ConfigError, "max_memory for device ",
                 limit.device.toString(), " must be a size >= 0, got ", limit.bytes);
  }
  std::stable_sort(maxMemory.begin(), maxMemory.end(),
                   [](const MemoryLimit& a, const MemoryLimit& b) { return a.device < b.device; });
  const auto twice = std::adjacent_find(maxMemory.begin(), maxMemory.end(),
                                        [](const auto& a, const auto& b) { return a.device == b.device; });
  FATHOM_CHECK(twice == maxMemory.end(), ConfigError, "max_memory lists device ", twice->device.toString(), " twice");
  return maxMemory;
}

std::optional<ByteCount> limitOf(const MaxMemory& maxMemory, const DeviceKey& device) {
  for (const MemoryLimit& limit : maxMemory) {
    if (limit.device == device) {
      return limit.bytes;
    }
  }
  return std::nullopt;
}

std::int64_t parseMemorySize(std::string_view text) {
  const auto bad = [&] {
    return ConfigError("size '" + std::string(text) +
                       "' is not in a valid format: use a number of bytes, or a number with a unit (like '5.0GB')");
  };
  std::string upper(text);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  struct Unit {
    std::string_view suffix;
    double factor;
    bool decimal;  ///< a power of 10, where a lower-case final "b" means bits
  };
  static constexpr Unit kUnits[] = {{"GIB", 1073741824.0, false},
                                    {"MIB", 1048576.0, false},
                                    {"KIB", 1024.0, false},
                                    {"GB", 1e9, true},
                                    {"MB", 1e6, true},
                                    {"KB", 1e3, true}};
  for (const Unit& unit : kUnits) {
    if (!upper.ends_with(unit.suffix)) {
      continue;
    }
    const std::string_view number = text.substr(0, text.size() - unit.suffix.size());
    double value = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
    if (number.empty() || error != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) {
      throw bad();
    }
    const auto bytes = narrowed<std::int64_t>(std::trunc(value * unit.factor));
    if (!bytes || *bytes < 0) {
      throw bad();
    }
    return unit.decimal && text.ends_with('b') ? *bytes / 8 : *bytes;
  }
  throw bad();
}

}  // namespace fathom::bigmodel
