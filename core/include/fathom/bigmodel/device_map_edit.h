// SPDX-License-Identifier: Apache-2.0
// Editing a device map by hand, as the Studio's device-map view does when a module is dragged to another device:
// where a name is placed under a map, the check that a map places every tensor of a tree and keeps each tied tensor
// on one device, and moving one module (or tensor) to a device. LibTorch-free, like the rest of core/bigmodel.
#pragma once

#include <fathom/bigmodel/device_map.h>
#include <fathom/bigmodel/module_tree.h>

#include <string>
#include <string_view>
#include <vector>

namespace fathom::bigmodel {

/// The devices `name` (a dotted module or tensor name; "" for the whole model) is placed on under `map`: the device of
/// the most specific entry that is `name` or holds it (`name` itself, then each dotted prefix, then ""), else the
/// devices of the entries under it, each once, in device order. Empty when the map places nothing of it. Names only:
/// the tree is not read.
std::vector<DeviceKey> devicesOf(const DeviceMap& map, std::string_view name);

/// Whether `map` holds an entry for `name` exactly.
bool hasEntry(const DeviceMap& map, std::string_view name);

/// check_device_map for a module tree, plus the rule dispatch applies to tied tensors (dispatched_model.h): every entry
/// names a module or tensor of `tree` ("" for the root), every parameter and buffer is placed (by the most specific
/// entry that is its name or holds it), and the names of one tensor object (a tied tensor) are placed on one device.
/// ConfigError naming the entry or the tensors otherwise.
void checkDeviceMap(const ModuleTree& tree, const DeviceMap& map);

/// `map` with `name` (a module or tensor of `tree`, and everything under it) on `device`:
/// - entries under `name` are dropped (it now stands for them);
/// - an entry holding `name` (a prefix of it, or "") is split as infer_auto_device_map splits a module (its own
///   parameters, its children, its own buffers, in its place, each on its device), again in the part holding `name`,
///   until `name` is an entry of its own;
/// - `name` gets `device`, in its place (where the first dropped entry was, or last when it is new).
/// With `clean`, cleanDeviceMap then merges names that share a device. The result is checked with checkDeviceMap:
/// ConfigError "cannot move 'name' to DEVICE: ..." when `name` is not in the tree or the move would put the names of
/// a tied tensor on two devices (move the modules holding them together). `map` itself should pass checkDeviceMap.
DeviceMap moveToDevice(const ModuleTree& tree, const DeviceMap& map, const std::string& name, const DeviceKey& device,
                       bool clean = true);

}  // namespace fathom::bigmodel
