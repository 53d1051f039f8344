// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/device_map.h>

#include <algorithm>

namespace fathom::bigmodel {

namespace {

bool hasPrefix(const std::string& name, const std::string& prefix) {
  return name.starts_with(prefix);
}

void clean(DeviceMap& map, const std::string& module) {
  const std::string prefix = module.empty() ? std::string() : module + ".";
  std::vector<DeviceKey> values;
  for (const DeviceMapEntry& e : map) {
    if (hasPrefix(e.module, prefix)) {
      values.push_back(e.device);
    }
  }
  const bool oneDevice = std::all_of(values.begin(), values.end(), [&](const DeviceKey& d) { return d == values[0]; });
  if (values.size() > 1 && oneDevice) {
    const DeviceKey device = values.front();
    std::erase_if(map, [&](const DeviceMapEntry& e) { return hasPrefix(e.module, prefix); });
    assignDevice(map, module, device);
  }

  // The child prefixes one level below `module`, in order of first appearance.
  const std::size_t depth =
      module.empty() ? 0 : static_cast<std::size_t>(std::count(module.begin(), module.end(), '.')) + 1;
  std::vector<std::string> children;
  for (const DeviceMapEntry& e : map) {
    if (!hasPrefix(e.module, prefix) || e.module.size() <= module.size()) {
      continue;
    }
    std::size_t end = 0;
    for (std::size_t part = 0; part <= depth && end != std::string::npos; ++part) {
      end = e.module.find('.', part == 0 ? 0 : end + 1);
    }
    std::string child = e.module.substr(0, end);
    if (std::find(children.begin(), children.end(), child) == children.end()) {
      children.push_back(std::move(child));
    }
  }
  for (const std::string& child : children) {
    clean(map, child);
  }
}

}  // namespace

void assignDevice(DeviceMap& map, const std::string& module, const DeviceKey& device) {
  const auto it = std::find_if(map.begin(), map.end(), [&](const DeviceMapEntry& e) { return e.module == module; });
  if (it != map.end()) {
    it->device = device;
  } else {
    map.push_back({module, device});
  }
}

std::optional<DeviceKey> deviceOf(const DeviceMap& map, std::string_view module) {
  const auto it = std::find_if(map.begin(), map.end(), [&](const DeviceMapEntry& e) { return e.module == module; });
  return it == map.end() ? std::nullopt : std::optional<DeviceKey>(it->device);
}

DeviceMap cleanDeviceMap(DeviceMap map) {
  clean(map, "");
  return map;
}

}  // namespace fathom::bigmodel
