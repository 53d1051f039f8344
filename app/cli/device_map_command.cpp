// SPDX-License-Identifier: Apache-2.0
// `fathom device-map`: Accelerate's device-map planning (core/bigmodel, docs/bigmodel.md) from the command line. A
// request file (a model and one call in Accelerate's terms) is answered by bigmodel::answerRequest as it stands; a
// model with flags becomes such a request (infer_auto_device_map, get_balanced_memory, or with --strategy Fathom's
// plan_device_map), the model a module tree in JSON, a built-in model, a Hugging Face config.json or a safetensors
// checkpoint. --json prints the answer, else a table. The planning and the reading of models are all in core: this
// file reads flags and files and prints.
#include "command.h"
#include "device_map_run.h"
#include "model_flags.h"
#include "text_table.h"

#include <fathom/bigmodel/checkpoint_module_tree.h>
#include <fathom/bigmodel/device_key.h>
#include <fathom/bigmodel/device_map_json.h>
#include <fathom/bigmodel/device_map_strategy.h>
#include <fathom/bigmodel/dtype.h>
#include <fathom/bigmodel/hf_module_tree.h>
#include <fathom/bigmodel/module_tree_json.h>
#include <fathom/bigmodel/torch_module_tree.h>
#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/models/model_factory.h>
#include <fathom/plan/hf_config.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace fathom::cli {
namespace {

using nlohmann::json;
using ojson = nlohmann::ordered_json;
namespace bm = bigmodel;

struct DeviceMapFlags {
  std::string request;
  std::string moduleTree;
  std::string model;       ///< a built-in model's name
  std::string config;      ///< --config: a Hugging Face config.json (or its folder)
  std::string checkpoint;  ///< --checkpoint: model.safetensors, an index, or a folder holding one
  bool printTree = false;
  BuiltinModelFlags modelFlags;
  std::string deviceMap;  ///< --device_map FILE: the map to dispatch, instead of one inferred
  std::string output;     ///< --output FILE: the map in Hugging Face's JSON form
  bool run = false;
  std::string offloadFolder;
  std::uint64_t seed = 0;
  std::int64_t batchSize = 1;
  std::int64_t seqLen = 0;
  std::vector<std::string> maxMemory;
  std::vector<std::string> noSplit;
  std::string dtype;
  std::vector<std::string> specialDtypes;
  std::string strategy;  ///< empty: not given (infer_auto_device_map, which is what "sequential" does)
  bool noCleanResult = false;
  bool offloadBuffers = false;
  bool fallbackAllocation = false;
  bool balancedMemory = false;
  bool lowZero = false;
  bool json = false;
};

/// The text of `path` ("-": standard input). ConfigError naming the flag and the file when it cannot be read.
std::string readInput(const std::string& flag, const std::string& path) {
  if (path == "-") {
    return {std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>()};
  }
  std::error_code ec;
  const std::string shown = terminalSafe(path);
  FATHOM_CHECK(std::filesystem::exists(path, ec), ConfigError, flag, ": no such file '", shown, "'");
  FATHOM_CHECK(!std::filesystem::is_directory(path, ec), ConfigError, flag, ": '", shown,
               "' is a folder; expected a JSON file");
  std::ifstream in(path, std::ios::binary);
  FATHOM_CHECK(in.good(), ConfigError, flag, ": cannot read '", shown, "'");
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  FATHOM_CHECK(!in.bad(), ConfigError, flag, ": cannot read '", shown, "'");
  return text;
}

/// The JSON in `text`. ConfigError naming the flag, the file and where the JSON breaks (nlohmann's line and column).
template <typename Json = json>
Json parseInput(const std::string& flag, const std::string& path, const std::string& text) {
  try {
    return Json::parse(text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number a double cannot hold (1e400)
    std::string message = e.what();
    if (const auto end = message.find("] "); message.starts_with("[json.exception.") && end != std::string::npos) {
      message.erase(0, end + 2);  // "[json.exception.parse_error.101] " says nothing to a user
    }
    throw ConfigError(detail::concat(flag, ": '", terminalSafe(path == "-" ? "standard input" : path),
                                     "' is not valid JSON: ", message));
  }
}

/// A dtype as Accelerate names it ("float16", "torch.bfloat16", "half", "int4", ...), or Fathom's mixed-precision
/// shorthands bf16, fp16, fp32. ConfigError naming the flag and the known names.
std::string dtypeFlag(const std::string& flag, const std::string& text) {
  static const std::map<std::string, std::string> kShorthands{
      {"bf16", "bfloat16"}, {"fp16", "float16"}, {"fp32", "float32"}};
  if (const auto it = kShorthands.find(text); it != kShorthands.end()) {
    return it->second;
  }
  if (const auto dtype = bm::dtypeFromName(text)) {
    return std::string(bm::dtypeName(*dtype));
  }
  std::string known;
  for (const std::string& name : bm::dtypeNames()) {
    known += (known.empty() ? "" : ", ") + name;
  }
  throw ConfigError(detail::concat(flag, ": unknown dtype '", terminalSafe(text), "' (expected one of ", known,
                                   ", \"torch.\"-prefixed or not, torch's aliases such as half, or bf16, fp16, fp32)"));
}

/// `NAME=VALUE`, split at the first '='. ConfigError naming the flag when there is no '=' or an empty side.
std::pair<std::string, std::string> keyValue(const std::string& flag, const std::string& text,
                                             const std::string& example) {
  const auto eq = text.find('=');
  FATHOM_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < text.size(), ConfigError, flag, ": expected ", example,
               ", got '", terminalSafe(text), "'");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

/// --max_memory 0=20GiB,1=20GiB,cpu=64GiB as Accelerate's max_memory ([[device, bytes], ...]): a GPU index or mps,
/// cpu, disk; a size with a unit as Accelerate writes it (parseMemorySize), or a whole number of bytes.
json maxMemoryArg(const std::vector<std::string>& entries) {
  json out = json::array();
  for (const std::string& entry : entries) {
    const auto [key, value] = keyValue("--max_memory", entry, "DEVICE=SIZE (0=20GiB, cpu=64GiB)");
    const auto device = bm::DeviceKey::parse(key);
    FATHOM_CHECK(device.has_value(), ConfigError, "--max_memory: device '", terminalSafe(key),
                 "' is not recognized: use a GPU index (0, 1, ...) or mps, cpu, disk");
    json bytes;
    if (value.find_first_not_of("0123456789") == std::string::npos) {
      const double whole = std::strtod(value.c_str(), nullptr);
      FATHOM_CHECK(whole < 0x1p63, ConfigError, "--max_memory: the size for device ", key, " is too large: ", value);
      bytes = static_cast<std::int64_t>(whole);
    } else {
      try {
        bytes = bm::parseMemorySize(value);
      } catch (const ConfigError& e) {
        throw ConfigError(detail::concat("--max_memory: device ", key, ": ", e.what()));
      }
    }
    out.push_back(json::array({device->isGpu() ? json(device->index()) : json(device->toString()), bytes}));
  }
  return out;
}

/// The built-in model --model names, built once (on the CPU, from seed 0: only its structure is read here).
std::shared_ptr<models::Model> builtModel(const DeviceMapFlags& f) {
  static std::shared_ptr<models::Model> built;
  if (!built) {
    built = models::makeModel(f.modelFlags.request(f.model));
  }
  return built;
}

/// A model given by flags: its module tree in JSON, the flag and file it came from (for messages), and its default
/// no-split classes: a built-in model's repeated block, a Hugging Face family's _no_split_modules (what
/// from_pretrained(device_map="auto") passes); none for a module tree or a checkpoint of no known family.
struct ModelSource {
  json model;
  std::string flag;
  std::string file;
  std::vector<std::string> noSplit;
  std::string what() const { return flag + " " + file; }
};

/// "a, b, c and 4 more", for notes.
std::string someNames(const std::vector<std::string>& names) {
  std::string out;
  const std::size_t shown = std::min<std::size_t>(names.size(), 5);
  for (std::size_t i = 0; i < shown; ++i) {
    out += (i ? ", " : "") + terminalSafe(names[i]);
  }
  return names.size() > shown ? out + " and " + std::to_string(names.size() - shown) + " more" : out;
}

ModelSource configSource(const std::string& given) {
  std::error_code ec;
  std::filesystem::path path(given);
  if (std::filesystem::is_directory(path, ec)) {
    path /= "config.json";
  }
  FATHOM_CHECK(std::filesystem::is_regular_file(path, ec), ConfigError, "--config: no such file '",
               terminalSafe(path.string()), "'");
  try {
    const plan::HfConfig config = plan::readHfConfig(path);
    const bm::ModuleTree tree = bm::moduleTreeFromHfConfig(config);
    return {json::parse(bm::toJson(tree).dump()),
            "--config",
            terminalSafe(path.string()),
            {std::string(bm::hfFamily(config.modelType)->noSplit)}};
  } catch (const ConfigError& e) {
    throw ConfigError(detail::concat("--config: ", e.what()));
  }
}

/// A checkpoint's model; notes on standard error when its tensors and its config's model differ in what they hold.
ModelSource checkpointSource(const std::string& given) {
  const bm::CheckpointModel m = [&] {
    try {
      return bm::readCheckpointModel(given);
    } catch (const Error& e) {  // StorageError too: a broken checkpoint is bad input here
      throw ConfigError(detail::concat("--checkpoint: ", e.what()));
    }
  }();
  const std::string model = m.tree.root().className;
  if (!m.unusedTensors.empty()) {
    std::cerr << "Note: " << m.unusedTensors.size() << " tensor(s) of the checkpoint are not in " << model
              << " and are left out, as transformers leaves them: " << someNames(m.unusedTensors) << "\n";
  }
  if (!m.missingTensors.empty()) {
    std::cerr << "Note: the checkpoint lacks " << m.missingTensors.size() << " tensor(s) of " << model
              << ", which transformers would initialize (they are planned at torch_dtype): "
              << someNames(m.missingTensors) << "\n";
  }
  const bm::HfFamily* family = m.config ? bm::hfFamily(m.config->modelType) : nullptr;
  return {json::parse(bm::toJson(m.tree).dump()), "--checkpoint", terminalSafe(m.file.string()),
          family ? std::vector<std::string>{std::string(family->noSplit)} : std::vector<std::string>{}};
}

/// The model of --module_tree, --model, --config or --checkpoint (exactly one is set). ConfigError naming the flag,
/// and the file where core names it, for anything that cannot be read.
ModelSource modelSource(const DeviceMapFlags& f) {
  if (!f.moduleTree.empty()) {
    return {parseInput("--module_tree", f.moduleTree, readInput("--module_tree", f.moduleTree)),
            "--module_tree",
            terminalSafe(f.moduleTree),
            {}};
  }
  if (!f.model.empty()) {
    return {
        json(bm::toJson(bm::moduleTreeOf(*builtModel(f)))), "--model", f.model, {builtModel(f)->repeatedBlockType()}};
  }
  return f.config.empty() ? checkpointSource(f.checkpoint) : configSource(f.config);
}

/// The request the model flags make: infer_auto_device_map, or get_balanced_memory with --balanced_memory.
json requestFromFlags(const DeviceMapFlags& f, ModelSource source) {
  FATHOM_CHECK(!f.maxMemory.empty(), ConfigError, "--max_memory is required with ", source.flag,
               ": Fathom does not measure free memory; give each device's limit, e.g. --max_memory "
               "0=20GiB,1=20GiB,cpu=64GiB");
  if (f.balancedMemory) {
    FATHOM_CHECK(!f.noCleanResult && !f.offloadBuffers && !f.fallbackAllocation, ConfigError,
                 "--no_clean_result, --offload_buffers and --fallback_allocation shape a device map; "
                 "--balanced_memory prints limits (get_balanced_memory takes none of them)");
    FATHOM_CHECK(f.strategy.empty(), ConfigError,
                 "--strategy plans a device map; --balanced_memory prints limits instead of one");
  } else {
    FATHOM_CHECK(!f.lowZero, ConfigError,
                 "--low_zero applies to --balanced_memory only (for a map, use --strategy balanced_low_0)");
  }
  if (!f.strategy.empty()) {
    try {
      bm::parseStrategy(f.strategy);
    } catch (const ConfigError& e) {
      throw ConfigError(detail::concat("--strategy: ", terminalSafe(e.what())));
    }
  }
  json args;
  args["max_memory"] = maxMemoryArg(f.maxMemory);
  // A built-in model's repeated block, a Hugging Face family's decoder block, is never split unless told otherwise, as
  // a Hugging Face model's _no_split_modules are from_pretrained's default.
  args["no_split_module_classes"] = f.noSplit.empty() ? source.noSplit : f.noSplit;
  args["dtype"] = f.dtype.empty() ? json(nullptr) : json(dtypeFlag("--dtype", f.dtype));
  json special = json::object();
  for (const std::string& entry : f.specialDtypes) {
    const auto [name, dtype] = keyValue("--special_dtype", entry, "TENSOR=DTYPE (lm_head.weight=float32)");
    special[name] = dtypeFlag("--special_dtype " + name, dtype);
  }
  args["special_dtypes"] = special;
  if (f.balancedMemory) {
    args["low_zero"] = f.lowZero;
  } else {
    args["clean_result"] = !f.noCleanResult;
    args["offload_buffers"] = f.offloadBuffers;
    args["fallback_allocation"] = f.fallbackAllocation;
  }
  if (!f.strategy.empty()) {
    args["strategy"] = f.strategy;
  }
  json model = std::move(source.model);
  const char* function = f.balancedMemory     ? "get_balanced_memory"
                         : f.strategy.empty() ? "infer_auto_device_map"
                                              : "plan_device_map";
  return {{"model", std::move(model)}, {"call", {{"function", function}, {"args", args}}}};
}

// ---- the text form ------------------------------------------------------------------------------------------------

/// Bytes as a number: whole ones as integers, the fractions bool and sub-byte dtypes give with up to 3 decimals.
std::string bytesText(double bytes) {
  char text[64];
  if (std::floor(bytes) == bytes && std::abs(bytes) < 0x1p63) {
    std::snprintf(text, sizeof text, "%lld", static_cast<long long>(bytes));
    return text;
  }
  std::snprintf(text, sizeof text, "%.3f", bytes);
  std::string s = text;
  while (s.back() == '0') {
    s.pop_back();
  }
  return s;
}

/// "280 bytes", or "1073741824 bytes (1.00 GiB)" from 1 KiB on.
std::string bytesWithSize(double bytes) {
  return bytesText(bytes) + " bytes" + (std::abs(bytes) < 1024 ? "" : " (" + formatBinaryBytes(bytes, 2) + ")");
}

/// A fraction as a percentage with one decimal: 0.2093 -> "20.9%".
std::string percentText(double fraction) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", 100 * fraction);
  return text;
}

std::string moduleText(const std::string& name) {
  return name.empty() ? "(the whole model)" : name;
}

std::string deviceText(const ojson& device) {
  return device.is_string() ? device.get<std::string>() : std::to_string(device.get<long long>());
}

double number(const ojson& j) {
  return j.get<double>();
}

/// The call's arguments without the map ones, for a compute_module_sizes of the same model.
json sizesArgs(const json& args) {
  json out = json::object();
  for (const char* key : {"dtype", "special_dtypes"}) {
    if (args.contains(key)) {
      out[key] = args.at(key);
    }
  }
  return out;
}

/// What the map was planned by: infer_auto_device_map, or a strategy and what it calls.
std::string plannedBy(const ojson& answer) {
  if (!answer.contains("strategy")) {
    return "infer_auto_device_map";
  }
  const std::string strategy = answer.at("strategy").get<std::string>();
  switch (bm::parseStrategy(strategy)) {
  case bm::DeviceMapStrategy::Auto:
  case bm::DeviceMapStrategy::Balanced:
    return "strategy " + strategy + ": get_balanced_memory's limits, then infer_auto_device_map";
  case bm::DeviceMapStrategy::BalancedLow0:
    return "strategy " + strategy + ": get_balanced_memory's limits with low_zero, then infer_auto_device_map";
  case bm::DeviceMapStrategy::Sequential: return "strategy " + strategy + ": infer_auto_device_map";
  case bm::DeviceMapStrategy::Optimal: break;
  }
  return "strategy " + strategy + ": Fathom's, the smallest largest GPU load";
}

/// For a strategy: the limits it planned with when they are not the ones given, the largest GPU load, and for
/// optimal the comparison with balanced.
void printStrategyLoads(std::ostream& out, const json& args, const ojson& answer) {
  if (!answer.contains("strategy")) {
    return;
  }
  const bm::MaxMemory given = bm::normalizeMaxMemory(bm::maxMemoryFromJson(args.at("max_memory")));
  if (bm::maxMemoryFromJson(answer.at("max_memory")) != given) {
    out << "\nLimits planned with (get_balanced_memory):";
    for (const ojson& limit : answer.at("max_memory")) {
      out << " " << deviceText(limit.at(0)) << "=" << formatBinaryBytes(number(limit.at(1)), 2);
    }
    out << "\n";
  }
  out << "\nLargest GPU load: " << bytesWithSize(number(answer.at("max_gpu_load")))
      << " (the bytes on a GPU; on the first GPU that holds anything, plus room for the largest layer on cpu or "
         "disk)\n";
  if (answer.contains("balanced_error")) {
    out << "Balanced could not plan this model (" << terminalSafe(answer.at("balanced_error").get<std::string>())
        << "); no comparison.\n";
  } else if (answer.contains("gain")) {
    out << "Balanced's largest GPU load: " << bytesWithSize(number(answer.at("balanced_max_gpu_load")))
        << "; optimal's is " << percentText(answer.at("gain").get<double>()) << " lower";
    const double offloaded = number(answer.at("offloaded_bytes"));
    const double balancedOffloaded = number(answer.at("balanced_offloaded_bytes"));
    if (offloaded != balancedOffloaded) {
      out << " (offloaded: " << bytesWithSize(offloaded) << ", balanced " << bytesWithSize(balancedOffloaded) << ")";
    }
    out << ".\n";
  }
}

void printDeviceMap(std::ostream& out, const json& request, const ojson& answer) {
  const json& args = request.at("call").contains("args") ? request.at("call").at("args") : json::object();
  const ojson& map = answer.at("device_map");
  out << "Device map (" << plannedBy(answer) << "), " << map.size() << (map.size() == 1 ? " entry" : " entries")
      << ":\n";
  std::vector<std::vector<std::string>> rows{{"module", "device"}};
  for (const ojson& entry : map) {
    rows.push_back({moduleText(entry.at(0).get<std::string>()), deviceText(entry.at(1))});
  }
  printTable(out, rows);

  // What each device holds: the sizes of its names (compute_module_sizes of the same model and dtypes), beside its
  // limit.
  const ojson sizes = bm::answerRequest({{"model", request.at("model")},
                                         {"call", {{"function", "compute_module_sizes"}, {"args", sizesArgs(args)}}}})
                          .at("module_sizes");
  std::map<bm::DeviceKey, double> held;
  const bm::MaxMemory limits = bm::maxMemoryFromJson(args.at("max_memory"));
  for (const bm::MemoryLimit& limit : limits) {
    held[limit.device] = 0;
  }
  for (const ojson& entry : map) {
    const bm::DeviceKey device = *bm::DeviceKey::parse(deviceText(entry.at(1)));  // the answer's own keys
    const std::string name = entry.at(0).get<std::string>();
    held[device] += sizes.contains(name) ? number(sizes.at(name)) : 0.0;
  }
  out << "\nBytes per device:\n";
  rows = {{"device", "bytes", "size", "limit"}};
  for (const auto& [device, bytes] : held) {
    const auto limit = bm::limitOf(limits, device);
    rows.push_back({device.toString(), bytesText(bytes), formatBinaryBytes(bytes, 2),
                    limit ? formatBinaryBytes(*limit, 2) : std::string("no limit")});
  }
  printTable(out, rows, ColumnAlign::NumbersRight);

  printStrategyLoads(out, args, answer);
  for (const ojson& minimum : answer.at("insufficient_memory_minimums")) {
    out << "\nDevice " << deviceText(minimum.at(0)) << " got nothing: the first module tried there needed "
        << bytesWithSize(number(minimum.at(1)))
        << ", its size with its tied modules plus the room a main device keeps for the largest layer.\n";
  }
  if (answer.at("buffer_warning").get<bool>()) {
    const double bytes = number(answer.at("buffer_warning_bytes"));
    out << "\nWarning: the buffers of the modules on cpu and disk (" << bytesWithSize(bytes)
        << ") fit in no GPU's remaining memory. They are moved to a GPU when their modules run and may not fit "
           "there; offload_buffers (--offload_buffers) keeps them offloaded.\n";
  }
}

void printLimits(std::ostream& out, const ojson& limits) {
  out << "Balanced limits (get_balanced_memory):\n";
  std::vector<std::vector<std::string>> rows{{"device", "bytes", "size"}};
  for (const ojson& limit : limits) {
    rows.push_back(
        {deviceText(limit.at(0)), bytesText(number(limit.at(1))), formatBinaryBytes(number(limit.at(1)), 2)});
  }
  printTable(out, rows, ColumnAlign::NumbersRight);
}

void printSizes(std::ostream& out, const ojson& sizes) {
  out << "Module sizes (compute_module_sizes):\n";
  std::vector<std::vector<std::string>> rows{{"module", "bytes", "size"}};
  for (const auto& [name, bytes] : sizes.items()) {
    rows.push_back({moduleText(name), bytesText(number(bytes)), formatBinaryBytes(number(bytes), 2)});
  }
  printTable(out, rows, ColumnAlign::NumbersRight);
}

void printAnswerText(std::ostream& out, const json& request, const ojson& answer) {
  const std::string function = request.at("call").at("function").get<std::string>();
  if (function == "infer_auto_device_map" || function == "plan_device_map") {
    printDeviceMap(out, request, answer);
  } else if (function == "get_balanced_memory") {
    printLimits(out, answer.at("max_memory"));
  } else if (function == "compute_module_sizes") {
    printSizes(out, answer.at("module_sizes"));
  } else if (function == "compute_module_total_buffer_size") {
    const double bytes = number(answer.at("total_buffer_size"));
    out << "Total buffer size (compute_module_total_buffer_size): " << bytesWithSize(bytes) << "\n";
  } else if (function == "get_module_size_with_ties") {
    const double bytes = number(answer.at("module_size_with_ties"));
    std::string tied;
    for (const ojson& name : answer.at("tied_module_names")) {
      tied += (tied.empty() ? "" : ", ") + terminalSafe(name.get<std::string>());
    }
    out << "Size with ties (get_module_size_with_ties): " << bytesWithSize(bytes)
        << "\nTied modules: " << (tied.empty() ? "none" : tied) << "\n";
  } else {
    out << answer.dump(2, ' ', false, ojson::error_handler_t::replace) << '\n';
  }
}

/// The flags that shape a planned map: none of them goes with --device_map (the map is given) or --request (the file
/// carries its own arguments).
std::vector<std::pair<const char*, bool>> planningFlags(const DeviceMapFlags& f) {
  return {{"--max_memory", !f.maxMemory.empty()},  {"--no_split", !f.noSplit.empty()},
          {"--dtype", !f.dtype.empty()},           {"--special_dtype", !f.specialDtypes.empty()},
          {"--strategy", !f.strategy.empty()},     {"--no_clean_result", f.noCleanResult},
          {"--offload_buffers", f.offloadBuffers}, {"--fallback_allocation", f.fallbackAllocation},
          {"--balanced_memory", f.balancedMemory}, {"--low_zero", f.lowZero}};
}

void checkSources(const DeviceMapFlags& f) {
  const int sources = int(!f.request.empty()) + int(!f.moduleTree.empty()) + int(!f.model.empty()) +
                      int(!f.config.empty()) + int(!f.checkpoint.empty());
  FATHOM_CHECK(sources <= 1, ConfigError,
               "--request, --module_tree, --model, --config and --checkpoint exclude each other: give one model (a "
               "request file holds its own)");
  FATHOM_CHECK(sources == 1, ConfigError,
               "give --model NAME, --module_tree FILE, --config FILE or --checkpoint PATH with --max_memory, or "
               "--request FILE (a model and a call); see --help");
  if (!f.request.empty()) {
    for (const auto& [flag, given] : planningFlags(f)) {
      FATHOM_CHECK(!given, ConfigError, flag,
                   " applies to --model, --module_tree, --config and --checkpoint; a --request file carries its own "
                   "arguments under \"call\"");
    }
  }
  FATHOM_CHECK(!f.printTree || f.request.empty(), ConfigError,
               "--print_tree prints the model of --module_tree, --model, --config or --checkpoint");
  FATHOM_CHECK(!f.run || !f.model.empty(), ConfigError, "--run dispatches a built-in model: give --model NAME (",
               builtinModelChoices(", "), ")");
  FATHOM_CHECK(f.deviceMap.empty() || f.run, ConfigError,
               "--device_map FILE is the map --run dispatches: add --run (to plan a map, give --max_memory instead)");
  if (!f.deviceMap.empty()) {
    for (const auto& [flag, given] : planningFlags(f)) {
      FATHOM_CHECK(!given, ConfigError, flag, " plans a map; --device_map gives one");
    }
  }
  FATHOM_CHECK(!f.run || !f.balancedMemory, ConfigError,
               "--run dispatches a device map; --balanced_memory prints limits, not a map");
}

int runDeviceMap(const DeviceMapFlags& f, const std::vector<const CLI::Option*>& runOnly) {
  checkSources(f);
  if (!f.run) {
    for (const CLI::Option* option : runOnly) {
      FATHOM_CHECK(option->count() == 0, ConfigError, option->get_name(), " applies to --run");
    }
  }

  if (f.printTree) {
    const ModelSource source = modelSource(f);
    try {
      std::cout
          << bm::toJson(bm::moduleTreeFromJson(source.model)).dump(-1, ' ', false, ojson::error_handler_t::replace)
          << '\n';
    } catch (const ConfigError& e) {
      throw ConfigError(detail::concat(source.what(), ": ", e.what()));
    }
    return 0;
  }

  json request;
  ojson answer;
  bm::DeviceMap map;
  if (!f.deviceMap.empty()) {
    const std::string what = "--device_map " + terminalSafe(f.deviceMap);
    map = bm::deviceMapFromJson(parseInput<ojson>("--device_map", f.deviceMap, readInput("--device_map", f.deviceMap)),
                                what);
    FATHOM_CHECK(!map.empty(), ConfigError, what, ": the device map is empty");
    answer["device_map"] = bm::toJson(map);
  } else {
    std::string source = "--request " + terminalSafe(f.request);
    if (!f.request.empty()) {
      request = parseInput("--request", f.request, readInput("--request", f.request));
    } else {
      ModelSource model = modelSource(f);
      source = model.what();
      request = requestFromFlags(f, std::move(model));
    }
    try {
      answer = bm::answerRequest(request);
    } catch (const ConfigError& e) {
      throw ConfigError(detail::concat(source, ": ", e.what()));
    }
    if (answer.contains("device_map")) {
      map = bm::deviceMapFromJson(answer.at("device_map"), source);
    }
  }

  if (!f.output.empty()) {
    FATHOM_CHECK(answer.contains("device_map"), ConfigError,
                 "--output writes a device map, and this call gives none (only infer_auto_device_map does)");
    AtomicFile::writeWhole(f.output, bm::toHfJson(map).dump(2) + "\n", {.what = "device map"});
  }
  ojson dispatch;
  if (f.run) {
    DispatchRunOptions run;
    run.model = f.modelFlags.request(f.model);
    run.seed = f.seed;
    run.batchSize = f.batchSize;
    run.sequenceLength = f.seqLen;
    run.offloadFolder = f.offloadFolder;
    // What the map was planned with, recorded with the run for the Studio (nothing when --device_map gave it).
    if (const json args =
            request.is_object() ? request.value("call", json::object()).value("args", json::object()) : json::object();
        args.contains("max_memory")) {
      run.maxMemory = bm::maxMemoryFromJson(args.at("max_memory"));
      run.noSplitClasses = args.value("no_split_module_classes", std::vector<std::string>{});
    }
    dispatch = runDispatch(run, map);
  }

  if (f.json) {
    if (f.run) {
      answer["dispatch"] = dispatch;
    }
    std::cout << answer.dump(-1, ' ', false, ojson::error_handler_t::replace) << '\n';
    return 0;
  }
  std::ostringstream text;
  if (!f.deviceMap.empty()) {
    text << "Device map (" << terminalSafe(f.deviceMap) << "), " << map.size()
         << (map.size() == 1 ? " entry" : " entries") << ":\n";
    std::vector<std::vector<std::string>> rows{{"module", "device"}};
    for (const bm::DeviceMapEntry& e : map) {
      rows.push_back({moduleText(terminalSafe(e.module)), e.device.toString()});
    }
    printTable(text, rows);
  } else {
    printAnswerText(text, request, answer);
  }
  if (!f.output.empty()) {
    text << "\nWrote the device map to " << terminalSafe(f.output) << " (Hugging Face's form: accelerate's "
         << "dispatch_model and from_pretrained(device_map=...) read it).\n";
  }
  if (f.run) {
    printDispatchRun(text, dispatch);
  }
  std::cout << text.str();
  return 0;
}

}  // namespace

void addDeviceMapCommand(CLI::App& root, CommandAction& action) {
  auto f = std::make_shared<DeviceMapFlags>();
  CLI::App* cmd = root.add_subcommand(
      "device-map", "Plan where each module of a big model goes (GPUs, cpu, disk) exactly as Accelerate's "
                    "infer_auto_device_map does, by a named strategy (auto, balanced, balanced_low_0, sequential, or "
                    "Fathom's optimal), or its balanced limits (docs/bigmodel.md)");
  cmd->add_option("--request", f->request,
                  "A JSON file holding one question in Accelerate's terms: {\"model\": MODULE_TREE, \"call\": "
                  "{\"function\": F, \"args\": {...}}}, F one of infer_auto_device_map, get_balanced_memory, "
                  "compute_module_sizes, compute_module_total_buffer_size, get_module_size_with_ties; - reads "
                  "standard input")
      ->type_name("FILE");
  cmd->add_option("--module_tree,--module-tree", f->moduleTree,
                  "A module tree in JSON (modules in pre-order with their classes, children, parameters and buffers: "
                  "docs/bigmodel.md); - reads standard input")
      ->type_name("FILE");
  cmd->add_option("--model", f->model,
                  "A built-in model (" + builtinModelChoices(", ") +
                      "), built on the CPU to read its structure; its repeated block is the default --no_split")
      ->type_name("NAME");
  f->modelFlags.add(cmd, /*withMlp=*/true);
  cmd->add_option("--config", f->config,
                  "A Hugging Face config.json (or a folder holding one) of a gpt2, llama, mistral or mixtral model: "
                  "the modules transformers builds for it, in torch_dtype; its decoder block is the default --no_split")
      ->type_name("FILE");
  cmd->add_option("--checkpoint", f->checkpoint,
                  "A safetensors checkpoint: model.safetensors, model.safetensors.index.json (sharded) or a folder "
                  "holding either; headers only. With a config.json beside it, the config's model as transformers "
                  "loads the checkpoint (its decoder block the default --no_split); else modules from the names")
      ->type_name("PATH");
  cmd->add_flag("--print_tree,--print-tree", f->printTree,
                "Print the model's module tree (the JSON --module_tree reads) instead of planning");
  cmd->add_option("--max_memory,--max-memory", f->maxMemory,
                  "With a model (--model, --module_tree, --config, --checkpoint): each device's limit, DEVICE=SIZE "
                  "separated by commas; DEVICE a GPU "
                  "index, mps, "
                  "cpu or disk; SIZE as Accelerate writes it (20GiB, 500MB, 8Gb) or a whole number of bytes")
      ->delimiter(',')
      ->type_name("DEVICE=SIZE");
  cmd->add_option("--no_split,--no-split,--no_split_module_classes", f->noSplit,
                  "Module classes never split across devices (e.g. LlamaDecoderLayer)")
      ->type_name("CLASS");
  cmd->add_option("--dtype", f->dtype,
                  "The dtype the weights are loaded in (float16, bfloat16, torch.float16, half, int8, int4, ...; "
                  "also bf16, fp16, fp32): floating-point tensors shrink to it")
      ->type_name("DTYPE");
  cmd->add_option("--special_dtype,--special-dtype", f->specialDtypes,
                  "A tensor's own dtype, over --dtype (Accelerate's special_dtypes)")
      ->type_name("TENSOR=DTYPE");
  cmd->add_option("--strategy", f->strategy,
                  "With a model: plan the map by strategy, as device_map=\"...\" in from_pretrained and "
                  "load_checkpoint_and_dispatch: auto and balanced (get_balanced_memory's limits, then "
                  "infer_auto_device_map), balanced_low_0 (the same, GPU 0 kept as empty as the others allow), "
                  "sequential (infer_auto_device_map on the limits as given: what no --strategy does too), or "
                  "optimal (Fathom's: the model's layers cut in order over the GPUs, then cpu, then disk, for the "
                  "smallest largest GPU load; compared with balanced). With it the answer names the strategy, the "
                  "limits planned with and the largest GPU load")
      ->type_name("NAME");
  cmd->add_flag("--no_clean_result,--no-clean-result", f->noCleanResult,
                "Keep every name; do not merge names sharing a device into their prefix (clean_result=False)");
  cmd->add_flag("--offload_buffers,--offload-buffers", f->offloadBuffers,
                "Buffers of modules on cpu and disk stay there (offload_buffers=True; silences the buffer warning)");
  cmd->add_flag("--fallback_allocation,--fallback-allocation", f->fallbackAllocation,
                "When a device would stay empty, place something further down the queue that fits "
                "(fallback_allocation=True)");
  cmd->add_flag("--balanced_memory,--balanced-memory", f->balancedMemory,
                "Print get_balanced_memory's limits (the model spread evenly over the GPUs) instead of a map");
  cmd->add_flag("--low_zero,--low-zero", f->lowZero,
                "With --balanced_memory: keep GPU 0 as empty as the others allow (low_zero=True)");
  cmd->add_option("--output,-o", f->output,
                  "Also write the device map to FILE as Hugging Face's JSON (an object of module -> device, which "
                  "accelerate.dispatch_model reads); written whole or not at all")
      ->type_name("FILE");
  cmd->add_flag("--run", f->run,
                "Dispatch the --model per the map (GPU modules placed, cpu ones streamed to the first GPU, disk ones "
                "memory-mapped), run one forward pass and compare it with the undispatched model's; report peak RSS "
                "and CUDA memory");
  cmd->add_option("--device_map,--device-map", f->deviceMap,
                  "With --run: dispatch this map (Hugging Face's JSON object, or [[module, device], ...]) instead of "
                  "planning one")
      ->type_name("FILE");
  auto runOnly = std::make_shared<std::vector<const CLI::Option*>>();
  runOnly->push_back(cmd->add_option("--offload_folder,--offload-folder", f->offloadFolder,
                                     "With --run: where disk modules' weights go (offload.safetensors, removed "
                                     "afterwards); default a fresh temporary folder")
                         ->type_name("DIR"));
  runOnly->push_back(cmd->add_option("--seed", f->seed, "With --run: the weights' seed (the input's is seed + 1)")
                         ->capture_default_str());
  runOnly->push_back(cmd->add_option("--batch_size,--batch-size", f->batchSize,
                                     "With --run: sequences (gpt) or rows (mlp) in the forward pass")
                         ->capture_default_str());
  runOnly->push_back(cmd->add_option("--seq_len,--seq-len", f->seqLen,
                                     "With --run: tokens per sequence (gpt); default the model's block size"));
  cmd->add_flag("--json", f->json,
                "Print the answer as JSON, in the form of Accelerate's return value (with --run, plus \"dispatch\")");
  cmd->footer(
      "Examples:\n"
      "  fathom device-map --module_tree llama.json --max_memory 0=20GiB,1=20GiB,cpu=64GiB \\\n"
      "      --no_split LlamaDecoderLayer --dtype bf16\n"
      "  fathom device-map --module_tree llama.json --max_memory 0=20GiB,1=20GiB,cpu=64GiB \\\n"
      "      --no_split LlamaDecoderLayer --strategy optimal --json\n"
      "  fathom device-map --module_tree llama.json --max_memory 0=20GiB,1=20GiB,cpu=64GiB --balanced_memory\n"
      "  fathom device-map --config llama/config.json --max_memory 0=20GiB,cpu=64GiB --dtype bf16\n"
      "  fathom device-map --checkpoint llama/ --max_memory 0=20GiB,1=20GiB,cpu=64GiB\n"
      "  fathom device-map --request case.json --json\n"
      "  fathom device-map --model gpt-small --max_memory cpu=20MB --output map.json --run\n"
      "  fathom device-map --model gpt-small --max_memory 0=30MB,cpu=1GB --run    (on a GPU machine)\n"
      "Without --strategy, the map is infer_auto_device_map's on the limits given (the sequential strategy). "
      "Without --json: the map (module -> device), the bytes on each device beside its limit, with --strategy the "
      "largest GPU load (and for optimal balanced's), the devices that got nothing and the buffer warning; with "
      "--run, where each unit computes, the output's difference from the undispatched model and the memory it took. "
      "Exit 2 for bad input, naming the flag or file.");
  cmd->callback([f, runOnly, &action] { action = [f, runOnly] { return runDeviceMap(*f, *runOnly); }; });
}

}  // namespace fathom::cli
