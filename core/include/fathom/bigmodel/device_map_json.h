// SPDX-License-Identifier: Apache-2.0
// The JSON forms of device-map values, and one entry point that answers a whole request in Accelerate's terms (for
// the tests' cases and a later `fathom device-map`). Maps and limits are lists of [key, value] pairs, so GPU
// integers stay apart from "cpu" and the order is kept: [[0, 200], ["cpu", 1000]], [["linear1", 0], ["x", "disk"]].
#pragma once

#include <fathom/bigmodel/device_map.h>
#include <fathom/bigmodel/dtype.h>

#include <nlohmann/json.hpp>

namespace fathom::bigmodel {

/// A GPU as its integer index, the rest by name ("mps", "cpu", "disk").
nlohmann::ordered_json toJson(const DeviceKey& device);
/// An integer >= 0 or "mps", "cpu", "disk"; ConfigError naming `what` and the value otherwise.
DeviceKey deviceKeyFromJson(const nlohmann::json& j, const std::string& what);

/// A size: a whole number written as an integer (sizes are whole unless a bool or sub-byte dtype is involved).
nlohmann::ordered_json bytesToJson(ByteCount bytes);

/// [[device, bytes], ...], or an object keyed by device name ({"0": 200, "cpu": "1GB"}: Accelerate's dict, GPU
/// indexes written as text); bytes a number or a size with a unit ("1GB", as Accelerate accepts).
MaxMemory maxMemoryFromJson(const nlohmann::json& j);
nlohmann::ordered_json toJson(const MaxMemory& maxMemory);
nlohmann::ordered_json toJson(const DeviceMap& map);

/// A device map as Hugging Face writes it, the form accelerate.dispatch_model and from_pretrained(device_map=...)
/// take: an object of module name -> device, in the map's order ({"transformer.wte": 0, "lm_head": "cpu"}).
nlohmann::ordered_json toHfJson(const DeviceMap& map);
/// A device map from either form: Hugging Face's object (its key order is the map's order, so parse the file as an
/// ordered_json) or the [[name, device], ...] list. Devices as deviceKeyFromJson reads them, plus "cuda:N" as GPU N.
/// ConfigError naming `what`, the entry and the problem (a name twice, a bad device, anything else).
DeviceMap deviceMapFromJson(const nlohmann::ordered_json& j, const std::string& what);

/// Answers {"model": <module tree>, "call": {"function": f, "args": {...}}} with the result in the form of Accelerate's
/// return value, as accelerate_asserted_cases.json writes it under "expected":
///   compute_module_sizes              {"module_sizes": {name: bytes, ...}} (in Accelerate's key order)
///   compute_module_total_buffer_size  {"total_buffer_size": bytes}
///   get_module_size_with_ties         {"module_size_with_ties", "tied_module_names", "tied_modules"} (names)
///   infer_auto_device_map             {"device_map", "buffer_warning", "buffer_warning_bytes" (null without a
///                                      warning), "insufficient_memory_minimums" ([[device, bytes], ...])}
///   get_balanced_memory               {"max_memory": [[device, bytes], ...]}
/// and Fathom's own function, a device map by strategy (device_map_strategy.h; args: "strategy", one of auto, balanced,
/// balanced_low_0, sequential (the default), optimal, and infer_auto_device_map's but verbose):
///   plan_device_map                   {"strategy", "max_memory" (the limits planned with), "device_map",
///                                      "buffer_warning", "buffer_warning_bytes", "insufficient_memory_minimums",
///                                      "max_gpu_load", "offloaded_bytes" (device_load.h), and for optimal
///                                      "balanced_max_gpu_load", "balanced_offloaded_bytes", "gain" (a fraction;
///                                      all three null, with "balanced_error", where balanced's planning fails)}
/// Arguments use Accelerate's names; null stands for an argument not given, and an unknown argument is an error.
/// ConfigError for an unknown function or a bad argument, naming it.
nlohmann::ordered_json answerRequest(const nlohmann::json& request);

}  // namespace fathom::bigmodel
