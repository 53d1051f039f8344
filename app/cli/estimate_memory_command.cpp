// SPDX-License-Identifier: Apache-2.0
// `fathom estimate-memory MODEL`: what `accelerate estimate-memory` prints (largest layer, total size, training with
// Adam, per dtype), for built-in models, Hugging Face config.json files and safetensors checkpoints, sized as
// accelerate sizes the module (plan/load_size.h for configs: parameters and buffers; the module tree for checkpoints)
// and laid out as its create_ascii_table lays it out. For a config of a family whose modules Fathom builds, and for a
// checkpoint, also the largest layer as infer_auto_device_map reserves it (bigmodel::getModelMaxLayerSize).
#include "command.h"
#include "model_flags.h"

#include <fathom/bigmodel/checkpoint_module_tree.h>
#include <fathom/bigmodel/hf_module_tree.h>
#include <fathom/bigmodel/module_sizes.h>
#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/io/safetensors_index.h>
#include <fathom/models/model_introspection.h>
#include <fathom/plan/hf_config.h>
#include <fathom/plan/load_size.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fathom::cli {
namespace {

struct EstimateFlags {
  std::string model;
  BuiltinModelFlags modelFlags;
  std::vector<std::string> dtypes{"float32", "float16", "int8", "int4"};
  bool json = false;
};

// Accelerate's convert_bytes: binary steps labelled KB/MB/GB, Python's round(x, 2) printed as repr.
std::string convertBytes(double size) {
  const char* units[] = {"bytes", "KB", "MB", "GB", "TB"};
  for (const char* unit : units) {
    if (size < 1024.0) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f", std::round(size * 100.0) / 100.0);
      std::string s(buf);
      while (s.back() == '0' && s[s.size() - 2] != '.') {
        s.pop_back();
      }
      return s + " " + unit;
    }
    size /= 1024.0;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f PB", size);
  return buf;
}

/// Bytes as a JSON number: whole ones as integers, the fractions of bool and sub-byte dtypes with 3 decimals.
std::string bytesNumber(double bytes) {
  char buf[64];
  if (std::floor(bytes) == bytes && bytes < 0x1p63) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.3f", bytes);
  }
  return buf;
}

// A JSON string literal (the model name comes from a folder name).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// accelerate's gather_data: the float32 sizes are divided by 1, 2, 4 or 8 for float32, float16, int8, int4.
double sizeDivisor(const std::string& dtype) {
  if (dtype == "float32") {
    return 1.0;
  }
  if (dtype == "float16" || dtype == "bfloat16") {
    return 2.0;
  }
  if (dtype == "int8") {
    return 4.0;
  }
  if (dtype == "int4") {
    return 8.0;
  }
  throw ConfigError("invalid dtype '" + dtype + "' (expected float32, float16, int8 or int4)");
}

/// accelerate's estimate_training_usage for a model of `fp32Bytes`, the largest of model, gradients, optimizer
/// states and step: float32 4x (the step), float16 2x (model 1x, gradients 1.5x, Adam 2x); none for int8 and int4,
/// which it prints as "N/A".
std::optional<double> trainingBytes(const std::string& dtype, double fp32Bytes) {
  if (dtype == "float32") {
    return 4.0 * fp32Bytes;
  }
  if (dtype == "float16" || dtype == "bfloat16") {
    return 2.0 * fp32Bytes;
  }
  return std::nullopt;
}

/// Python's str.center: the extra space of an odd margin goes right, unless the width is odd too (CPython's
/// `left = marg / 2 + (marg & width & 1)`). Widths count characters; the texts here are ASCII.
std::string centred(const std::string& text, std::size_t width) {
  if (text.size() >= width) {
    return text;
  }
  const std::size_t margin = width - text.size();
  const std::size_t left = margin / 2 + (margin & width & 1);
  return std::string(left, ' ') + text + std::string(margin - left, ' ');
}

std::string repeat(const char* piece, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += piece;
  }
  return out;
}

/// accelerate's create_ascii_table: columns as wide as their widest cell (no padding); a title longer than the
/// columns widens the last one by twice its excess over the separator line (accelerate adds the difference twice).
std::string asciiTable(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows,
                       const std::string& title) {
  std::vector<std::size_t> widths;
  for (std::size_t c = 0; c < headers.size(); ++c) {
    std::size_t w = headers[c].size();
    for (const auto& row : rows) {
      w = std::max(w, row[c].size());
    }
    widths.push_back(w);
  }
  std::size_t sum = 0;
  for (const std::size_t w : widths) {
    sum += w;
  }
  const std::size_t separatorLength = sum + widths.size() - 1 + 2;
  const std::size_t diff = title.size() > sum ? (title.size() > separatorLength ? title.size() - separatorLength
                                                                                : separatorLength - title.size())
                                              : 0;
  widths.back() += 2 * diff;
  const auto line = [&](const char* l, const char* m, const char* r) {
    std::string s = l;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      s += repeat("─", widths[c]) + (c + 1 < widths.size() ? m : "");
    }
    return s + r + "\n";
  };
  const auto cells = [&](const std::vector<std::string>& texts) {
    std::string s = "│";
    for (std::size_t c = 0; c < texts.size(); ++c) {
      s += centred(texts[c], widths[c]) + "│";
    }
    return s + "\n";
  };
  std::string out = line("┌", "─", "┐");
  out += "│" + centred(title, sum + 2 * diff + widths.size() - 1) + "│\n";
  out += line("├", "┬", "┤") + cells(headers) + line("├", "┼", "┤");
  for (const auto& row : rows) {
    out += cells(row);
  }
  return out + line("└", "┴", "┘");
}

/// The largest layer as a device map reserves it: get_max_layer_size over the model's module tree with its family's
/// no-split classes, at the weights' own dtypes (torch_dtype for a config, the stored ones for a checkpoint).
struct DeviceMapLayer {
  bigmodel::MaxLayer layer;
  std::vector<std::string> noSplit;
  std::string className;  ///< the first name's class, or "tensor"
};

/// What the table and the device-map line are made of.
struct Resolved {
  std::string name;
  plan::LoadSize size;
  std::optional<DeviceMapLayer> deviceMapLayer;
};

std::string stem(const std::filesystem::path& path) {
  std::string name = path.parent_path().filename().string();
  return name.empty() ? path.stem().string() : name;
}

std::optional<DeviceMapLayer> deviceMapLayer(const bigmodel::ModuleTree& tree, const plan::HfConfig* config) {
  const bigmodel::HfFamily* family = config ? bigmodel::hfFamily(config->modelType) : nullptr;
  DeviceMapLayer out;
  if (family != nullptr) {
    out.noSplit = {std::string(family->noSplit)};
  }
  out.layer = bigmodel::getModelMaxLayerSize(tree, bigmodel::computeModuleSizes(tree), out.noSplit);
  if (out.layer.names.empty()) {
    return std::nullopt;
  }
  const auto index = tree.findModule(out.layer.names.front());
  out.className = index ? tree.module(*index).className : "tensor";
  return out;
}

/// accelerate's calculate_maximum_sizes for a checkpoint's tree, built as from_config builds models (float32): the
/// parameters once, the buffers at their dtypes, the largest layer by get_max_layer_size.
plan::LoadSize treeLoadSize(const bigmodel::ModuleTree& tree, const std::vector<std::string>& noSplit) {
  const bigmodel::ModuleTree f32 = bigmodel::withFloatingDtype(tree, bigmodel::Dtype::Float32);
  plan::LoadSize size;
  for (const bigmodel::NamedTensor& t : f32.parameters(0, true)) {
    size.parameters += t.tensor->numel();
  }
  size.bufferBytes = bigmodel::computeModuleTotalBufferSize(f32);
  const bigmodel::MaxLayer largest = bigmodel::getModelMaxLayerSize(f32, bigmodel::computeModuleSizes(f32), noSplit);
  size.largestLayerBytes = largest.size;
  if (!largest.names.empty()) {
    if (const auto index = f32.findModule(largest.names.front())) {
      for (const bigmodel::NamedTensor& t : f32.parameters(*index, true)) {
        size.largestLayerParameters += t.tensor->numel();
      }
    } else {
      for (const bigmodel::NamedTensor& t : f32.parameters(0, true)) {
        size.largestLayerParameters += t.name == largest.names.front() ? t.tensor->numel() : 0;
      }
    }
  }
  return size;
}

bool isCheckpoint(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  return name.ends_with(".safetensors") || name.ends_with(".safetensors.index.json");
}

Resolved resolveCheckpoint(const std::filesystem::path& path) {
  bigmodel::CheckpointModel m = [&] {
    try {
      return bigmodel::readCheckpointModel(path);
    } catch (const StorageError& e) {  // a broken checkpoint is bad input here
      throw ConfigError(e.what());
    }
  }();
  Resolved r;
  r.name = stem(m.file);
  r.deviceMapLayer = deviceMapLayer(m.tree, m.config ? &*m.config : nullptr);
  r.size = treeLoadSize(m.tree, r.deviceMapLayer ? r.deviceMapLayer->noSplit : std::vector<std::string>{});
  return r;
}

Resolved resolveModel(const EstimateFlags& flags, bool& builtin) {
  const auto builtins = models::builtinModelNames();
  std::filesystem::path path(flags.model);
  builtin =
      !std::filesystem::exists(path) && std::find(builtins.begin(), builtins.end(), flags.model) != builtins.end();
  if (builtin) {
    const plan::ModelSpec model = models::introspectModel(flags.modelFlags.request(flags.model));
    return {model.name, plan::loadSize(model), std::nullopt};
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    if (!std::filesystem::exists(path / "config.json", ec) &&
        (std::filesystem::exists(path / io::kSafetensorsFile, ec) ||
         std::filesystem::exists(path / io::kSafetensorsIndexFile, ec))) {
      return resolveCheckpoint(path);
    }
    path /= "config.json";
  } else if (isCheckpoint(path) && std::filesystem::exists(path, ec)) {
    return resolveCheckpoint(path);
  }
  FATHOM_CHECK(std::filesystem::exists(path), ConfigError, "'", flags.model, "' is not a built-in model (",
               builtinModelChoices(", "),
               "), a config.json file, a safetensors checkpoint (model.safetensors, model.safetensors.index.json) or "
               "a folder holding one (Hub downloads are not supported)");
  const plan::HfConfig config = plan::readHfConfig(path);
  FATHOM_CHECK(config.model.has_value(), ConfigError, config.origin, ": ", config.unsupported);
  Resolved r{config.model->name, plan::hfLoadSize(*config.model), std::nullopt};
  // The device-map figure needs the modules transformers builds: known for gpt2, llama, mistral and mixtral.
  const bigmodel::HfFamily* family = bigmodel::hfFamily(config.modelType);
  if (family != nullptr && (config.architecture.empty() || config.architecture == family->headClass ||
                            config.architecture == family->baseClass)) {
    r.deviceMapLayer = deviceMapLayer(bigmodel::moduleTreeFromHfConfig(config), &config);
  }
  return r;
}

int runEstimate(const EstimateFlags& flags) {
  bool builtin = false;
  const Resolved model = resolveModel(flags, builtin);
  const plan::LoadSize& size = model.size;
  struct Row {
    std::string dtype, largest, total, training;
    double largestBytes, totalBytes;
    std::optional<double> trainingBytes;
  };
  std::vector<Row> rows;
  for (const std::string& dtype : flags.dtypes) {
    const double divisor = sizeDivisor(dtype);
    const double largest = size.largestLayerBytes / divisor;
    const double total = size.totalBytes() / divisor;
    const std::optional<double> training = trainingBytes(dtype, size.totalBytes());
    rows.push_back({dtype, convertBytes(largest), convertBytes(total), training ? convertBytes(*training) : "N/A",
                    largest, total, training});
  }
  const std::optional<DeviceMapLayer>& layer = model.deviceMapLayer;
  if (flags.json) {
    std::cout << "{\n  \"model\": " << quoted(model.name) << ",\n  \"total_params\": " << size.parameters
              << ",\n  \"buffer_bytes\": " << static_cast<long long>(std::llround(size.bufferBytes))
              << ",\n  \"largest_layer_params\": " << size.largestLayerParameters;
    if (layer) {
      // Whole bytes but for bool and sub-byte dtypes; a double prints them exactly either way.
      std::cout << ",\n  \"device_map_largest_layer\": {\"names\": [";
      for (std::size_t i = 0; i < layer->layer.names.size(); ++i) {
        std::cout << (i ? ", " : "") << quoted(layer->layer.names[i]);
      }
      std::cout << "], \"class\": " << quoted(layer->className) << ", \"bytes\": " << bytesNumber(layer->layer.size)
                << ", \"no_split\": [";
      for (std::size_t i = 0; i < layer->noSplit.size(); ++i) {
        std::cout << (i ? ", " : "") << quoted(layer->noSplit[i]);
      }
      std::cout << "]}";
    }
    std::cout << ",\n  \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      const std::string trainingBytes =
          r.trainingBytes ? std::to_string(static_cast<long long>(std::llround(*r.trainingBytes))) : "null";
      std::cout << (i ? "," : "") << "\n    {\"dtype\": \"" << r.dtype
                << "\", \"largest_layer_bytes\": " << static_cast<long long>(std::llround(r.largestBytes))
                << ", \"total_size_bytes\": " << static_cast<long long>(std::llround(r.totalBytes))
                << ", \"training_adam_bytes\": " << trainingBytes << ", \"largest_layer\": \"" << r.largest
                << "\", \"total_size\": \"" << r.total << "\", \"training_adam\": \"" << r.training << "\"}";
    }
    std::cout << "\n  ]\n}\n";
    return 0;
  }
  std::vector<std::vector<std::string>> cells;
  for (const Row& r : rows) {
    cells.push_back({r.dtype, r.largest, r.total, r.training});
  }
  std::cout << asciiTable({"dtype", "Largest Layer", "Total Size", "Training using Adam"}, cells,
                          "Memory Usage for loading `" + model.name + "`");
  std::cout << size.parameters << " parameters and " << static_cast<long long>(std::llround(size.bufferBytes))
            << " bytes of buffers; largest layer " << size.largestLayerParameters
            << " parameters. Sizes use binary units (MB = MiB), as accelerate prints them.\n";
  if (layer) {
    // Every decoder block has the same size: name the first, count the rest.
    const std::vector<std::string>& all = layer->layer.names;
    std::string names = terminalSafe(all.front());
    if (all.size() == 2) {
      names += ", " + terminalSafe(all[1]);
    } else if (all.size() > 2) {
      names += " and " + std::to_string(all.size() - 1) + " more of the same size";
    }
    std::cout << "Largest layer for a device map: " << names << " (" << terminalSafe(layer->className) << "), "
              << convertBytes(layer->layer.size) << " (" << bytesNumber(layer->layer.size)
              << " bytes) at the weights' own dtypes; infer_auto_device_map keeps this much free on the first GPU and "
                 "on cpu"
              << (layer->noSplit.empty() ? std::string(".") : " (no-split: " + layer->noSplit.front() + ").") << "\n";
  }
  return 0;
}

}  // namespace

void addEstimateMemoryCommand(CLI::App& root, CommandAction& action) {
  auto flags = std::make_shared<EstimateFlags>();
  CLI::App* cmd = root.add_subcommand("estimate-memory",
                                      "Model size per dtype and training with Adam, like `accelerate estimate-memory`");
  cmd->add_option("model", flags->model,
                  "A built-in model (" + builtinModelChoices(", ") +
                      ": introspected from its LibTorch module), a Hugging Face config.json, a safetensors checkpoint "
                      "(model.safetensors or model.safetensors.index.json; headers only), or a folder holding one "
                      "(config.json first)")
      ->required();
  flags->modelFlags.add(cmd, /*withMlp=*/true);
  cmd->add_option("--dtypes", flags->dtypes, "Any of float32, float16, int8, int4 (default: all)");
  cmd->add_flag("--json", flags->json, "Print JSON instead of the table");
  cmd->callback([flags, &action] { action = [flags] { return runEstimate(*flags); }; });
}

}  // namespace fathom::cli
