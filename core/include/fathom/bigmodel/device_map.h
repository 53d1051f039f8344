// SPDX-License-Identifier: Apache-2.0
// A device map: which device each module (or tensor) goes to, as Accelerate's ordered dict of name -> device.
#pragma once

#include <fathom/bigmodel/device_key.h>

#include <string>
#include <string_view>
#include <vector>

namespace fathom::bigmodel {

struct DeviceMapEntry {
  std::string module;  ///< a dotted module or tensor name; "" for the whole model
  DeviceKey device;

  friend bool operator==(const DeviceMapEntry&, const DeviceMapEntry&) = default;
};

/// In insertion order, each name once. Accelerate's tests compare maps as dicts, but the order is what a dispatcher
/// and a reader see, so it is kept exactly.
using DeviceMap = std::vector<DeviceMapEntry>;

/// `map[module] = device` as on a Python dict: an existing name keeps its place, a new one goes last.
void assignDevice(DeviceMap& map, const std::string& module, const DeviceKey& device);

/// The device of `module`, or std::nullopt when the name is not in the map (no lookup of parents).
std::optional<DeviceKey> deviceOf(const DeviceMap& map, std::string_view module);

/// clean_device_map: wherever every name under a prefix ("" for all) shares one device and there is more than one,
/// those names are replaced by the prefix, appended at the end; then the same for each child prefix. Accelerate
/// visits the child prefixes in Python set order (hash-seeded); we visit them in order of first appearance, which
/// only changes the order of the result when two sibling prefixes both merge.
DeviceMap cleanDeviceMap(DeviceMap map);

}  // namespace fathom::bigmodel
