// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/device_map_edit.h>

#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>

#include <algorithm>
#include <optional>
#include <unordered_map>

namespace fathom::bigmodel {

namespace {

std::string shown(std::string_view name) {
  return name.empty() ? std::string("(the model)") : detail::concat("'", terminalSafe(name), "'");
}

/// Whether `name` is `holder` or lies under it ("" holds everything).
bool holds(std::string_view holder, std::string_view name) {
  return holder.empty() || name == holder || (name.starts_with(holder) && name[holder.size()] == '.');
}

/// Whether `name` lies strictly under `holder`.
bool strictlyUnder(std::string_view holder, std::string_view name) {
  return name != holder && holds(holder, name);
}

/// The index of the most specific entry that is `name` or holds it, or std::nullopt.
std::optional<std::size_t> coveringEntry(const DeviceMap& map, std::string_view name) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < map.size(); ++i) {
    if (holds(map[i].module, name) && (!best || map[i].module.size() > map[*best].module.size())) {
      best = i;
    }
  }
  return best;
}

/// Every tensor object of the tree with all its full names, in pre-order of their first name.
std::vector<std::vector<std::string>> tensorObjects(const ModuleTree& tree) {
  std::vector<std::vector<std::string>> objects;
  std::unordered_map<std::int64_t, std::size_t> byId;
  for (const ModuleInfo& m : tree.modules()) {
    for (const auto* tensors : {&m.parameters, &m.buffers}) {
      for (const TensorInfo& t : *tensors) {
        const auto [it, added] = byId.try_emplace(t.tensorId, objects.size());
        if (added) {
          objects.emplace_back();
        }
        objects[it->second].push_back(ModuleTree::qualified(m.name, t.name));
      }
    }
  }
  return objects;
}

/// The parts infer_auto_device_map splits module `index` into: its own parameters, its children, its own buffers.
std::vector<std::string> splitParts(const ModuleTree& tree, std::size_t index) {
  const ModuleInfo& m = tree.module(index);
  std::vector<std::string> parts;
  for (const TensorInfo& p : m.parameters) {
    parts.push_back(ModuleTree::qualified(m.name, p.name));
  }
  for (const std::string& child : m.children) {
    parts.push_back(ModuleTree::qualified(m.name, child));
  }
  for (const TensorInfo& b : m.buffers) {
    parts.push_back(ModuleTree::qualified(m.name, b.name));
  }
  return parts;
}

/// Whether `name` is a tensor of the tree (a module's parameter or buffer, by full name).
bool isTensor(const ModuleTree& tree, std::string_view name) {
  const auto dot = name.rfind('.');
  const std::string_view owner = dot == std::string_view::npos ? std::string_view() : name.substr(0, dot);
  const std::string_view local = dot == std::string_view::npos ? name : name.substr(dot + 1);
  const auto index = tree.findModule(owner);
  if (!index) {
    return false;
  }
  const ModuleInfo& m = tree.module(*index);
  const auto named = [local](const TensorInfo& t) { return t.name == local; };
  return std::any_of(m.parameters.begin(), m.parameters.end(), named) ||
         std::any_of(m.buffers.begin(), m.buffers.end(), named);
}

}  // namespace

std::vector<DeviceKey> devicesOf(const DeviceMap& map, std::string_view name) {
  if (const auto covering = coveringEntry(map, name)) {
    return {map[*covering].device};
  }
  std::vector<DeviceKey> devices;
  for (const DeviceMapEntry& e : map) {
    if (strictlyUnder(name, e.module) && std::find(devices.begin(), devices.end(), e.device) == devices.end()) {
      devices.push_back(e.device);
    }
  }
  std::sort(devices.begin(), devices.end());
  return devices;
}

bool hasEntry(const DeviceMap& map, std::string_view name) {
  return std::any_of(map.begin(), map.end(), [name](const DeviceMapEntry& e) { return e.module == name; });
}

void checkDeviceMap(const ModuleTree& tree, const DeviceMap& map) {
  for (const DeviceMapEntry& e : map) {
    FATHOM_CHECK(e.module.empty() || tree.findModule(e.module) || isTensor(tree, e.module), ConfigError,
                 "device map: ", shown(e.module), " is not a module or tensor of the model");
  }
  for (const std::vector<std::string>& names : tensorObjects(tree)) {
    std::optional<DeviceKey> first;
    for (const std::string& name : names) {
      const auto covering = coveringEntry(map, name);
      FATHOM_CHECK(covering.has_value(), ConfigError, "device map: it places no device for ", shown(name),
                   ": every parameter and buffer must be covered by an entry for it or for a module holding it");
      const DeviceKey& device = map[*covering].device;
      if (!first) {
        first = device;
      }
      FATHOM_CHECK(device == *first, ConfigError, "device map: ", shown(names.front()), " and ", shown(name),
                   " are one tensor (tied) but the map puts them on ", first->toString(), " and ", device.toString(),
                   ": map tied parameters to one device");
    }
  }
}

DeviceMap moveToDevice(const ModuleTree& tree, const DeviceMap& map, const std::string& name, const DeviceKey& device,
                       bool clean) {
  const std::string what = detail::concat("cannot move ", shown(name), " to ", device.toString(), ": ");
  FATHOM_CHECK(name.empty() || tree.findModule(name) || isTensor(tree, name), ConfigError, what, shown(name),
               " is not a module or tensor of the model");

  // Entries under `name` go; `name` takes the place of the first of them.
  DeviceMap out;
  std::optional<std::size_t> place;
  for (const DeviceMapEntry& e : map) {
    if (strictlyUnder(name, e.module)) {
      place = place.value_or(out.size());
    } else {
      out.push_back(e);
    }
  }

  // Split the entry holding `name` down to it, each part keeping the entry's device.
  while (true) {
    const auto covering = coveringEntry(out, name);
    if (!covering || out[*covering].module == name) {
      break;
    }
    const DeviceMapEntry holder = out[*covering];
    const auto index = tree.findModule(holder.module);
    FATHOM_CHECK(index.has_value(), ConfigError, what, "the map's entry ", shown(holder.module),
                 " is a tensor and holds nothing");
    std::vector<DeviceMapEntry> parts;
    for (std::string& part : splitParts(tree, *index)) {
      parts.push_back({std::move(part), holder.device});
    }
    out.erase(out.begin() + static_cast<std::ptrdiff_t>(*covering));
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(*covering), parts.begin(), parts.end());
    if (place && *place > *covering) {
      place = *place + parts.size() - 1;
    }
  }

  const auto it = std::find_if(out.begin(), out.end(), [&name](const DeviceMapEntry& e) { return e.module == name; });
  if (it != out.end()) {
    it->device = device;
  } else {
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(place.value_or(out.size())), {name, device});
  }
  if (clean) {
    out = cleanDeviceMap(std::move(out));
  }
  try {
    checkDeviceMap(tree, out);
  } catch (const ConfigError& e) {
    throw ConfigError(what + e.what());
  }
  return out;
}

}  // namespace fathom::bigmodel
