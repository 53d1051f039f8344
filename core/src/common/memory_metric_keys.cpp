// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/memory_metric_keys.h>

namespace fathom {
namespace {

constexpr std::string_view kBytesSuffix = "_bytes";
constexpr std::string_view kPeakPrefix = "peak_";
constexpr std::string_view kProfilePrefix = "profile/memory/";
constexpr std::string_view kMemoryPrefix = "memory/";
constexpr std::string_view kTotalName = "total";

std::string_view placeName(MemoryPlace place) {
  return place == MemoryPlace::Host ? "host" : "device";
}

bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool endsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

/// profile/memory/<device>/peak_<name>_bytes, <device> without '/' ("cpu", "cuda:0"), cut into device and name
/// (spelled as written: a category's key or legacy key, "total", or anything else).
struct ProfiledPeakParts {
  std::string_view device;
  std::string_view name;
};
std::optional<ProfiledPeakParts> splitProfiledPeakKey(std::string_view key) {
  if (!startsWith(key, kProfilePrefix) || !endsWith(key, kBytesSuffix)) {
    return std::nullopt;
  }
  const std::string_view rest = key.substr(kProfilePrefix.size());
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos || !startsWith(rest.substr(slash + 1), kPeakPrefix) ||
      rest.size() < slash + 1 + kPeakPrefix.size() + kBytesSuffix.size()) {
    return std::nullopt;
  }
  return ProfiledPeakParts{
      rest.substr(0, slash),
      rest.substr(slash + 1 + kPeakPrefix.size(), rest.size() - slash - 1 - kPeakPrefix.size() - kBytesSuffix.size())};
}

/// The key `name` names (what the four key functions make).
std::string keyOf(const MemoryMetricName& name) {
  switch (name.kind) {
  case MemoryMetricName::Kind::Current: return memoryMetricKey(name.place, *name.category);
  case MemoryMetricName::Kind::Peak: return peakMemoryMetricKey(name.place, *name.category);
  case MemoryMetricName::Kind::ProfiledPeak:
    return name.category ? profiledPeakMetricKey(name.device, *name.category) : profiledPeakTotalMetricKey(name.device);
  }
  return {};
}

}  // namespace

std::string memoryMetricKey(MemoryPlace place, MemoryCategory category) {
  return std::string(kMemoryPrefix)
      .append(placeName(place))
      .append("/")
      .append(toString(category))
      .append(kBytesSuffix);
}

std::string peakMemoryMetricKey(MemoryPlace place, MemoryCategory category) {
  return std::string(kMemoryPrefix)
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
      .append(kTotalName)
      .append(kBytesSuffix);
}

std::optional<std::string> currentMetricKey(std::string_view key) {
  if (key == "memory/peak_gathered_parameters_bytes") {
    return peakMemoryMetricKey(MemoryPlace::Device, MemoryCategory::GatheredParameters);
  }
  const std::optional<ProfiledPeakParts> parts = splitProfiledPeakKey(key);
  if (!parts) {
    return std::nullopt;
  }
  const std::optional<MemoryCategory> category = memoryCategoryFromString(parts->name);
  if (!category || toString(*category) == parts->name) {
    return std::nullopt;
  }
  return profiledPeakMetricKey(parts->device, *category);
}

std::optional<MemoryMetricName> parseMemoryMetricKey(std::string_view key) {
  MemoryMetricName out;
  std::string_view name;
  if (const std::optional<ProfiledPeakParts> parts = splitProfiledPeakKey(key)) {
    if (parts->device.empty()) {
      return std::nullopt;
    }
    out.kind = MemoryMetricName::Kind::ProfiledPeak;
    out.device = std::string(parts->device);
    name = parts->name;
  } else {
    // memory/<place>/[peak_]<category>_bytes
    if (!startsWith(key, kMemoryPrefix) || !endsWith(key, kBytesSuffix)) {
      return std::nullopt;
    }
    const std::string_view rest =
        key.substr(kMemoryPrefix.size(), key.size() - kMemoryPrefix.size() - kBytesSuffix.size());
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos) {
      return std::nullopt;  // memory/rss_bytes and the allocator's counters name no category
    }
    const std::string_view place = rest.substr(0, slash);
    if (place == placeName(MemoryPlace::Host)) {
      out.place = MemoryPlace::Host;
    } else if (place != placeName(MemoryPlace::Device)) {
      return std::nullopt;
    }
    name = rest.substr(slash + 1);
    if (startsWith(name, kPeakPrefix)) {
      out.kind = MemoryMetricName::Kind::Peak;
      name.remove_prefix(kPeakPrefix.size());
    }
  }
  if (!(out.kind == MemoryMetricName::Kind::ProfiledPeak && name == kTotalName)) {
    out.category = memoryCategoryFromString(name);
    if (!out.category) {
      return std::nullopt;
    }
  }
  // Only the current spelling: a legacy category name (or any other near miss) does not make the same key again.
  if (keyOf(out) != key) {
    return std::nullopt;
  }
  return out;
}

}  // namespace fathom
