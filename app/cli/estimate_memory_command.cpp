// SPDX-License-Identifier: Apache-2.0
// `fathom estimate-memory MODEL`: what `accelerate estimate-memory` prints (largest layer, total size, training with
// Adam at 4x the size, per dtype), for built-in models and Hugging Face config.json files. Sizes are parameters x bytes
// per dtype.
#include "command.h"
#include "model_flags.h"

#include <fathom/common/error.h>
#include <fathom/models/model_introspection.h>
#include <fathom/plan/hf_config.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
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

double bytesPerParam(const std::string& dtype) {
  if (dtype == "float32") {
    return 4.0;
  }
  if (dtype == "float16" || dtype == "bfloat16") {
    return 2.0;
  }
  if (dtype == "int8") {
    return 1.0;
  }
  if (dtype == "int4") {
    return 0.5;
  }
  throw ConfigError("invalid dtype '" + dtype + "' (expected float32, float16, int8 or int4)");
}

std::string centred(const std::string& text, std::size_t width) {
  // Width counts characters; the texts here are ASCII.
  if (text.size() >= width) {
    return text;
  }
  const std::size_t left = (width - text.size()) / 2;
  return std::string(left, ' ') + text + std::string(width - text.size() - left, ' ');
}

std::string repeat(const char* piece, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i) {
    out += piece;
  }
  return out;
}

plan::ModelSpec resolveModel(const EstimateFlags& flags) {
  const auto builtins = models::builtinModelNames();
  std::filesystem::path path(flags.model);
  if (!std::filesystem::exists(path) && std::find(builtins.begin(), builtins.end(), flags.model) != builtins.end()) {
    return models::introspectModel(flags.modelFlags.request(flags.model));
  }
  if (std::filesystem::is_directory(path)) {
    path /= "config.json";
  }
  FATHOM_CHECK(std::filesystem::exists(path), ConfigError, "'", flags.model, "' is not a built-in model (",
               builtinModelChoices(", "),
               "), a config.json file or a folder holding one (Hub downloads are not supported)");
  return plan::modelFromHfConfig(path);
}

int runEstimate(const EstimateFlags& flags) {
  const plan::ModelSpec model = resolveModel(flags);
  struct Row {
    std::string dtype, largest, total, training;
    double largestBytes, totalBytes, trainingBytes;
  };
  std::vector<Row> rows;
  for (const std::string& dtype : flags.dtypes) {
    const double b = bytesPerParam(dtype);
    const double largest = static_cast<double>(model.largestUnitParams) * b;
    const double total = static_cast<double>(model.totalParams) * b;
    const double training = 4.0 * total;  // Accelerate: 1x model, 1x gradients, 2x Adam states
    rows.push_back(
        {dtype, convertBytes(largest), convertBytes(total), convertBytes(training), largest, total, training});
  }
  if (flags.json) {
    std::cout << "{\n  \"model\": " << quoted(model.name) << ",\n  \"total_params\": " << model.totalParams
              << ",\n  \"largest_layer_params\": " << model.largestUnitParams << ",\n  \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::cout << (i ? "," : "") << "\n    {\"dtype\": \"" << r.dtype
                << "\", \"largest_layer_bytes\": " << static_cast<long long>(std::llround(r.largestBytes))
                << ", \"total_size_bytes\": " << static_cast<long long>(std::llround(r.totalBytes))
                << ", \"training_adam_bytes\": " << static_cast<long long>(std::llround(r.trainingBytes))
                << ", \"largest_layer\": \"" << r.largest << "\", \"total_size\": \"" << r.total
                << "\", \"training_adam\": \"" << r.training << "\"}";
    }
    std::cout << "\n  ]\n}\n";
    return 0;
  }
  const std::vector<std::string> headers{"dtype", "Largest Layer", "Total Size", "Training using Adam"};
  std::vector<std::size_t> widths;
  for (std::size_t c = 0; c < headers.size(); ++c) {
    std::size_t w = headers[c].size();
    for (const Row& r : rows) {
      const std::string* cells[] = {&r.dtype, &r.largest, &r.total, &r.training};
      w = std::max(w, cells[c]->size());
    }
    widths.push_back(w + 2);
  }
  std::size_t inner = widths.size() - 1;
  for (std::size_t w : widths) {
    inner += w;
  }
  const std::string title = "Memory Usage for loading `" + model.name + "`";
  inner = std::max(inner, title.size() + 4);
  widths.back() += inner - (widths[0] + widths[1] + widths[2] + widths[3] + 3);
  const auto line = [&](const char* l, const char* m, const char* r) {
    std::string s = l;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      s += repeat("─", widths[c]) + (c + 1 < widths.size() ? m : r);
    }
    return s + "\n";
  };
  std::cout << "┌" << repeat("─", inner) << "┐\n";
  std::cout << "│" << centred(title, inner) << "│\n";
  std::cout << line("├", "┬", "┤");
  std::cout << "│";
  for (std::size_t c = 0; c < headers.size(); ++c) {
    std::cout << centred(headers[c], widths[c]) << "│";
  }
  std::cout << "\n" << line("├", "┼", "┤");
  for (const Row& r : rows) {
    const std::string cells[] = {r.dtype, r.largest, r.total, r.training};
    std::cout << "│";
    for (std::size_t c = 0; c < 4; ++c) {
      std::cout << centred(cells[c], widths[c]) << "│";
    }
    std::cout << "\n";
  }
  std::cout << line("└", "┴", "┘");
  std::cout << model.totalParams << " parameters; largest layer or residual group " << model.largestUnitParams
            << " parameters. Sizes use binary units (MB = MiB), as accelerate prints them.\n";
  return 0;
}

}  // namespace

void addEstimateMemoryCommand(CLI::App& root, CommandAction& action) {
  auto flags = std::make_shared<EstimateFlags>();
  CLI::App* cmd = root.add_subcommand("estimate-memory",
                                      "Model size per dtype and training with Adam, like `accelerate estimate-memory`");
  cmd->add_option("model", flags->model,
                  "A built-in model (" + builtinModelChoices(", ") +
                      ": introspected from its LibTorch module), a Hugging Face config.json, or a folder holding one")
      ->required();
  flags->modelFlags.add(cmd, /*withMlp=*/true);
  cmd->add_option("--dtypes", flags->dtypes, "Any of float32, float16, int8, int4 (default: all)");
  cmd->add_flag("--json", flags->json, "Print JSON instead of the table");
  cmd->callback([flags, &action] { action = [flags] { return runEstimate(*flags); }; });
}

}  // namespace fathom::cli
