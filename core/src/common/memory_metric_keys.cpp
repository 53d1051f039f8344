// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/memory_metric_keys.h>

namespace fathom {
namespace {

constexpr std::string_view kBytesSuffix = "_bytes";
constexpr std::string_view kPeakPrefix = "peak_";
constexpr std::string_view kProfilePrefix = "profile/memory/";

std::string_view placeName(MemoryPlace place) {
  return place == MemoryPlace::Host ? "host" : "device";
}

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

}  // namespace

std::string memoryMetricKey(MemoryPlace place, MemoryCategory category) {
  return std::string("memory/").append(placeName(place)).append("/").append(toString(category)).append(kBytesSuffix);
}

std::string peakMemoryMetricKey(MemoryPlace place, MemoryCategory category) {
  return std::string("memory/")
      .append(placeName(place))
      .append("/")
      .append(kPeakPrefix)
      .append(toString(category))
      .append(kBytesSuffix);
}

std::string profiledPeakMetricKey(std::string_view device, MemoryCategory category) {
  return std::string(kProfilePrefix)
      .append(device)
      .append("/")
      .append(kPeakPrefix)
      .append(toString(category))
      .append(kBytesSuffix);
}

std::string profiledPeakTotalMetricKey(std::string_view device) {
  return std::string(kProfilePrefix)
      .append(device)
      .append("/")
      .append(kPeakPrefix)
      .append("total")
      .append(kBytesSuffix);
}

std::optional<std::string> currentMetricKey(std::string_view key) {
  if (key == "memory/peak_gathered_parameters_bytes") {
    return peakMemoryMetricKey(MemoryPlace::Device, MemoryCategory::GatheredParameters);
  }
  // profile/memory/<device>/peak_<category>_bytes, <device> without '/' ("cpu", "cuda:0").
  if (!startsWith(key, kProfilePrefix) || !endsWith(key, kBytesSuffix)) {
    return std::nullopt;
  }
  const std::string_view rest = key.substr(kProfilePrefix.size());
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos || !startsWith(rest.substr(slash + 1), kPeakPrefix)) {
    return std::nullopt;
  }
  const std::string_view device = rest.substr(0, slash);
  const std::string_view name =
      rest.substr(slash + 1 + kPeakPrefix.size(), rest.size() - slash - 1 - kPeakPrefix.size() - kBytesSuffix.size());
  const std::optional<MemoryCategory> category = memoryCategoryFromString(name);
  if (!category || toString(*category) == name) {
    return std::nullopt;
  }
  return profiledPeakMetricKey(device, *category);
}

}  // namespace fathom
