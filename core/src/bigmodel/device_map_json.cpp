// SPDX-License-Identifier: Apache-2.0
#include <fathom/bigmodel/device_map_json.h>

#include <fathom/bigmodel/balanced_memory.h>
#include <fathom/bigmodel/device_map_strategy.h>
#include <fathom/bigmodel/infer_device_map.h>
#include <fathom/bigmodel/module_sizes.h>
#include <fathom/bigmodel/module_tree_json.h>
#include <fathom/common/checked_number.h>
#include <fathom/common/error.h>
#include <fathom/common/json_input.h>
#include <fathom/common/terminal_text.h>

#include <cmath>
#include <optional>
#include <set>

namespace fathom::bigmodel {

namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;

ByteCount bytesFromJson(const json& j, const std::string& what) {
  if (j.is_string()) {
    return static_cast<ByteCount>(parseMemorySize(j.get<std::string>()));
  }
  FATHOM_CHECK(j.is_number() && std::isfinite(j.get<double>()) && j.get<double>() >= 0, ConfigError, what,
               " must be a size >= 0 (bytes, or text like \"10GiB\"), got ", quotedJson(j));
  return j.get<double>();
}

/// The arguments of one call, each read once; the ones never read are reported as unknown.
class Args {
public:
  Args(const json& args, std::string function) : m_args(args), m_function(std::move(function)) {
    FATHOM_CHECK(args.is_object(), ConfigError, m_function, ": 'args' must be an object, got ", quotedJson(args));
  }

  /// The argument, or nullptr when absent or null.
  const json* get(const std::string& key) {
    m_read.insert(key);
    const auto it = m_args.find(key);
    return it == m_args.end() || it->is_null() ? nullptr : &*it;
  }
  const json& required(const std::string& key) {
    const json* v = get(key);
    FATHOM_CHECK(v != nullptr, ConfigError, m_function, ": argument '", key, "' is required");
    return *v;
  }
  std::string what(const std::string& key) const { return m_function + ": argument '" + key + "'"; }

  bool flag(const std::string& key, bool fallback) {
    const json* v = get(key);
    if (v == nullptr) {
      return fallback;
    }
    FATHOM_CHECK(v->is_boolean(), ConfigError, what(key), " must be true or false, got ", quotedJson(*v));
    return v->get<bool>();
  }
  std::optional<Dtype> dtype(const std::string& key) {
    const json* v = get(key);
    if (v == nullptr) {
      return std::nullopt;
    }
    return dtypeOf(*v, what(key));
  }
  SpecialDtypes specialDtypes(const std::string& key) {
    SpecialDtypes out;
    const json* v = get(key);
    if (v == nullptr) {
      return out;
    }
    FATHOM_CHECK(v->is_object(), ConfigError, what(key), " must be an object of tensor name to dtype, got ",
                 quotedJson(*v));
    for (const auto& [name, dtype] : v->items()) {
      out.emplace(name, dtypeOf(dtype, what(key) + " entry '" + name + "'"));
    }
    return out;
  }
  /// A list of names; a single name counts as a list of one (as Accelerate wraps it).
  std::vector<std::string> names(const std::string& key) {
    std::vector<std::string> out;
    const json* v = get(key);
    if (v == nullptr) {
      return out;
    }
    if (v->is_string()) {
      return {v->get<std::string>()};
    }
    FATHOM_CHECK(v->is_array(), ConfigError, what(key), " must be a list of names, got ", quotedJson(*v));
    for (const json& name : *v) {
      FATHOM_CHECK(name.is_string(), ConfigError, what(key), " must be a list of names, got ", quotedJson(*v));
      out.push_back(name.get<std::string>());
    }
    return out;
  }

  void checkAllRead() const {
    for (const auto& [key, value] : m_args.items()) {
      FATHOM_CHECK(m_read.contains(key), ConfigError, m_function, ": unknown argument '", key, "'");
    }
  }

private:
  static Dtype dtypeOf(const json& j, const std::string& what) {
    FATHOM_CHECK(j.is_string(), ConfigError, what, " must be a dtype name, got ", quotedJson(j));
    const auto d = dtypeFromName(j.get<std::string>());
    FATHOM_CHECK(d.has_value(), ConfigError, what, ": unknown dtype ", quotedJson(j));
    return *d;
  }

  const json& m_args;
  std::string m_function;
  std::set<std::string> m_read;
};

ModuleSizes sizesFromJson(const json& j, const std::string& what) {
  FATHOM_CHECK(j.is_object(), ConfigError, what, " must be an object of name to bytes, got ", quotedJson(j));
  ModuleSizes sizes;
  for (const auto& [name, value] : j.items()) {
    sizes.add(name, bytesFromJson(value, what + " entry '" + name + "'"));
  }
  return sizes;
}

ojson answerModuleSizes(const ModuleTree& tree, Args& args) {
  const auto dtype = args.dtype("dtype");
  const ModuleSizes sizes = computeModuleSizes(tree, dtype, args.specialDtypes("special_dtypes"));
  args.checkAllRead();
  ojson out = ojson::object();
  for (const auto& [name, size] : sizes.entries()) {
    out[name] = bytesToJson(size);
  }
  return ojson{{"module_sizes", out}};
}

ojson answerTotalBufferSize(const ModuleTree& tree, Args& args) {
  const auto dtype = args.dtype("dtype");
  const ByteCount total = computeModuleTotalBufferSize(tree, dtype, args.specialDtypes("special_dtypes"));
  args.checkAllRead();
  return ojson{{"total_buffer_size", bytesToJson(total)}};
}

ojson answerSizeWithTies(Args& args) {
  const std::vector<std::string> tiedParams = args.names("tied_params");
  const ByteCount moduleSize = bytesFromJson(args.required("module_size"), args.what("module_size"));
  const ModuleSizes sizes = sizesFromJson(args.required("module_sizes"), args.what("module_sizes"));
  const std::vector<std::string> queue = args.names("modules_to_treat");
  args.checkAllRead();
  const SizeWithTies result = getModuleSizeWithTies(tiedParams, moduleSize, sizes, queue);
  ojson out;
  out["module_size_with_ties"] = bytesToJson(result.size);
  out["tied_module_names"] = result.tiedModules;
  out["tied_modules"] = result.tiedModules;
  return out;
}

ojson answerInfer(const ModuleTree& tree, Args& args) {
  InferOptions options;
  options.maxMemory = maxMemoryFromJson(args.required("max_memory"));
  options.noSplitModuleClasses = args.names("no_split_module_classes");
  options.dtype = args.dtype("dtype");
  options.specialDtypes = args.specialDtypes("special_dtypes");
  (void)args.flag("verbose", false);  // Accelerate prints its steps; we have nothing to print
  options.cleanResult = args.flag("clean_result", true);
  options.offloadBuffers = args.flag("offload_buffers", false);
  options.fallbackAllocation = args.flag("fallback_allocation", false);
  args.checkAllRead();
  const InferResult result = inferAutoDeviceMap(tree, options);
  ojson out;
  out["device_map"] = toJson(result.deviceMap);
  out["buffer_warning"] = result.bufferWarning;
  out["buffer_warning_bytes"] = result.bufferWarning ? bytesToJson(result.bufferWarningBytes) : ojson(nullptr);
  out["insufficient_memory_minimums"] = toJson(result.insufficientMemoryMinimums);
  return out;
}

/// Fathom's plan_device_map: a map by strategy name (device_map_strategy.h), with what each strategy's limits and
/// loads were, and for optimal how it compares with balanced.
ojson answerPlan(const ModuleTree& tree, Args& args) {
  const json* name = args.get("strategy");
  FATHOM_CHECK(name == nullptr || name->is_string(), ConfigError, args.what("strategy"), " must be a name, got ",
               quotedJson(*name));
  DeviceMapStrategy strategy = DeviceMapStrategy::Sequential;
  try {
    strategy = name == nullptr ? strategy : parseStrategy(name->get<std::string>());
  } catch (const ConfigError& e) {
    throw ConfigError(args.what("strategy") + ": " + e.what());
  }
  InferOptions options;
  options.maxMemory = maxMemoryFromJson(args.required("max_memory"));
  options.noSplitModuleClasses = args.names("no_split_module_classes");
  options.dtype = args.dtype("dtype");
  options.specialDtypes = args.specialDtypes("special_dtypes");
  options.cleanResult = args.flag("clean_result", true);
  options.offloadBuffers = args.flag("offload_buffers", false);
  options.fallbackAllocation = args.flag("fallback_allocation", false);
  args.checkAllRead();
  const StrategyResult plan = planDeviceMap(tree, strategy, options);
  ojson out;
  out["strategy"] = std::string(strategyName(strategy));
  out["max_memory"] = toJson(plan.maxMemory);
  out["device_map"] = toJson(plan.result.deviceMap);
  out["buffer_warning"] = plan.result.bufferWarning;
  out["buffer_warning_bytes"] =
      plan.result.bufferWarning ? bytesToJson(plan.result.bufferWarningBytes) : ojson(nullptr);
  out["insufficient_memory_minimums"] = toJson(plan.result.insufficientMemoryMinimums);
  out["max_gpu_load"] = bytesToJson(plan.loads.maxGpuLoad);
  out["offloaded_bytes"] = bytesToJson(plan.loads.offloadedBytes);
  if (strategy == DeviceMapStrategy::Optimal) {
    // Where Accelerate's planning fails on the model (a tied parameter it can no longer find), optimal still
    // answers; the comparison says why it is missing.
    std::optional<StrategyResult> balanced;
    try {
      balanced = planDeviceMap(tree, DeviceMapStrategy::Balanced, options);
    } catch (const ConfigError& e) {
      out["balanced_error"] = e.what();
    }
    const std::optional<StrategyGain> gain = balanced ? std::optional(strategyGain(plan, *balanced)) : std::nullopt;
    out["balanced_max_gpu_load"] = gain ? bytesToJson(gain->balancedMaxGpuLoad) : ojson(nullptr);
    out["balanced_offloaded_bytes"] = gain ? bytesToJson(gain->balancedOffloadedBytes) : ojson(nullptr);
    out["gain"] = gain ? ojson(gain->gain) : ojson(nullptr);
  }
  return out;
}

ojson answerBalanced(const ModuleTree& tree, Args& args) {
  const MaxMemory maxMemory = maxMemoryFromJson(args.required("max_memory"));
  BalancedMemoryOptions options;
  options.noSplitModuleClasses = args.names("no_split_module_classes");
  options.dtype = args.dtype("dtype");
  options.specialDtypes = args.specialDtypes("special_dtypes");
  options.lowZero = args.flag("low_zero", false);
  args.checkAllRead();
  return ojson{{"max_memory", toJson(getBalancedMemory(tree, maxMemory, options))}};
}

}  // namespace

ojson toJson(const DeviceKey& device) {
  return device.isGpu() ? ojson(device.index()) : ojson(device.toString());
}

DeviceKey deviceKeyFromJson(const json& j, const std::string& what) {
  if (j.is_string()) {
    const std::string text = j.get<std::string>();
    if (text == "cpu" || text == "disk" || text == "mps") {
      return *DeviceKey::parse(text);
    }
  } else if (const auto index = jsonInteger<int>(j); index && *index >= 0) {
    return DeviceKey::gpu(*index);
  }
  throw ConfigError(what + ": device " + quotedJson(j) +
                    " is not recognized: use an integer (a GPU index) or \"mps\", \"cpu\", \"disk\"");
}

ojson bytesToJson(ByteCount bytes) {
  if (const auto whole = narrowed<std::int64_t>(bytes)) {
    return ojson(*whole);
  }
  return ojson(bytes);
}

MaxMemory maxMemoryFromJson(const json& j) {
  MaxMemory out;
  if (j.is_object()) {
    // Accelerate's dict, as JSON can write it: GPU indexes as text keys ({"0": "10GiB", "cpu": "30GiB"}). The order
    // is lost, and does not matter: limits are put in device order anyway.
    for (const auto& [key, value] : j.items()) {
      const auto device = DeviceKey::parse(key);
      FATHOM_CHECK(device.has_value(), ConfigError, "max_memory: device ", quotedJson(json(key)),
                   " is not recognized: use a GPU index or \"mps\", \"cpu\", \"disk\"");
      out.push_back({*device, bytesFromJson(value, "max_memory for device " + device->toString())});
    }
    return out;
  }
  FATHOM_CHECK(j.is_array(), ConfigError, "max_memory must be a list of [device, bytes] pairs, got ", quotedJson(j));
  for (const json& pair : j) {
    FATHOM_CHECK(pair.is_array() && pair.size() == 2, ConfigError,
                 "max_memory must be a list of [device, bytes] pairs; got the entry ", quotedJson(pair));
    const DeviceKey device = deviceKeyFromJson(pair[0], "max_memory");
    out.push_back({device, bytesFromJson(pair[1], "max_memory for device " + device.toString())});
  }
  return out;
}

ojson toJson(const MaxMemory& maxMemory) {
  ojson out = ojson::array();
  for (const MemoryLimit& limit : maxMemory) {
    out.push_back(ojson::array({toJson(limit.device), bytesToJson(limit.bytes)}));
  }
  return out;
}

ojson toJson(const DeviceMap& map) {
  ojson out = ojson::array();
  for (const DeviceMapEntry& e : map) {
    out.push_back(ojson::array({ojson(e.module), toJson(e.device)}));
  }
  return out;
}

ojson toHfJson(const DeviceMap& map) {
  ojson out = ojson::object();
  for (const DeviceMapEntry& e : map) {
    out[e.module] = toJson(e.device);
  }
  return out;
}

DeviceMap deviceMapFromJson(const ojson& j, const std::string& what) {
  FATHOM_CHECK(j.is_object() || j.is_array(), ConfigError, what,
               ": a device map is an object of module -> device ({\"transformer.h.0\": 0, \"lm_head\": \"cpu\"}) or a "
               "list of [module, device] pairs");
  DeviceMap map;
  const auto add = [&](const std::string& name, const ojson& device) {
    FATHOM_CHECK(!deviceOf(map, name).has_value(), ConfigError, what, ": module '", terminalSafe(name),
                 "' is mapped twice");
    const std::string entry = detail::concat(what, ": module '", terminalSafe(name), "'");
    if (device.is_string() && device.get<std::string>().starts_with("cuda:")) {
      const std::string index = device.get<std::string>().substr(5);
      FATHOM_CHECK(!index.empty() && index.size() <= 4 && index.find_first_not_of("0123456789") == std::string::npos,
                   ConfigError, entry, ": device ", quotedJson(device), " is not recognized");
      map.push_back({name, DeviceKey::gpu(std::stoi(index))});
    } else {
      map.push_back({name, deviceKeyFromJson(json(device), entry)});
    }
  };
  if (j.is_object()) {
    for (const auto& [name, device] : j.items()) {
      add(name, device);
    }
  } else {
    for (const ojson& pair : j) {
      FATHOM_CHECK(pair.is_array() && pair.size() == 2 && pair.at(0).is_string(), ConfigError, what,
                   ": each entry of a list-form device map is [module, device], got ", quotedJson(pair));
      add(pair.at(0).get<std::string>(), pair.at(1));
    }
  }
  return map;
}

ojson answerRequest(const json& request) {
  FATHOM_CHECK(request.is_object() && request.contains("call"), ConfigError,
               "device-map request: expected an object with 'model' and 'call'");
  const json& call = request.at("call");
  FATHOM_CHECK(call.is_object() && call.contains("function") && call.at("function").is_string(), ConfigError,
               "device-map request: 'call' must have a 'function' name");
  const std::string function = call.at("function").get<std::string>();
  static const json kNoArgs = json::object();
  Args args(call.contains("args") ? call.at("args") : kNoArgs, function);
  if (function == "get_module_size_with_ties") {
    return answerSizeWithTies(args);  // works on the sizes given, not on a model
  }
  const auto model = request.find("model");
  FATHOM_CHECK(model != request.end(), ConfigError, "device-map request: ", function, " needs a 'model'");
  const ModuleTree tree = moduleTreeFromJson(*model);
  if (function == "compute_module_sizes") {
    return answerModuleSizes(tree, args);
  }
  if (function == "compute_module_total_buffer_size") {
    return answerTotalBufferSize(tree, args);
  }
  if (function == "infer_auto_device_map") {
    return answerInfer(tree, args);
  }
  if (function == "get_balanced_memory") {
    return answerBalanced(tree, args);
  }
  if (function == "plan_device_map") {
    return answerPlan(tree, args);
  }
  throw ConfigError("device-map request: unknown function '" + function +
                    "' (known: compute_module_sizes, compute_module_total_buffer_size, get_module_size_with_ties, "
                    "infer_auto_device_map, get_balanced_memory, plan_device_map)");
}

}  // namespace fathom::bigmodel
