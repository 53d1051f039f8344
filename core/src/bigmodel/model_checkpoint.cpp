// SPDX-License-Identifier: Apache-2.0
// Hugging Face's checkpoint layout: huggingface_hub's split_state_dict_into_shards_factory (serialization/_base.py)
// for the shards, transformers' / Accelerate's save_model for the names, the index and the clean-up of an earlier
// save; Accelerate's load_checkpoint_in_model for loading (strict here: see model_checkpoint.h).
#include "fathom/bigmodel/model_checkpoint.h"

#include <fathom/bigmodel/checkpoint_tensors.h>
#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/io/mapped_safetensors.h>
#include <fathom/io/safetensors.h>
#include <fathom/io/safetensors_index.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/csrc/autograd/grad_mode.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <set>
#include <unordered_map>

namespace fathom::bigmodel {
namespace {

/// state_dict order: each module in pre-order, its own parameters, then its buffers; each tensor object once.
std::vector<std::pair<std::string, at::Tensor>> stateTensors(const torch::nn::Module& model) {
  std::vector<std::pair<std::string, at::Tensor>> out;
  std::set<const c10::TensorImpl*> seen;
  for (const auto& item : model.named_modules("", /*include_self=*/true)) {
    const auto add = [&](const std::string& local, const at::Tensor& t) {
      if (t.defined() && seen.insert(t.unsafeGetTensorImpl()).second) {
        out.emplace_back(item.key().empty() ? local : item.key() + "." + local, t);
      }
    };
    for (const auto& p : item.value()->named_parameters(/*recurse=*/false)) {
      add(p.key(), p.value());
    }
    for (const auto& b : item.value()->named_buffers(/*recurse=*/false)) {
      add(b.key(), b.value());
    }
  }
  return out;
}

std::uint64_t bytesOf(const at::Tensor& t) {
  return static_cast<std::uint64_t>(t.numel()) * static_cast<std::uint64_t>(t.element_size());
}

std::string shardName(std::size_t index, std::size_t count) {
  char name[64];
  std::snprintf(name, sizeof name, "model-%05zu-of-%05zu.safetensors", index, count);
  return name;
}

}  // namespace

SavedModel saveModel(const torch::nn::Module& model, const std::filesystem::path& folder,
                     const SaveModelOptions& options) {
  FATHOM_CHECK(options.maxShardSize > 0, ConfigError, "saveModel: the largest shard size must be > 0 bytes");
  const auto tensors = stateTensors(model);
  FATHOM_CHECK(!tensors.empty(), ConfigError, "saveModel: the model has no parameters or buffers");

  // huggingface_hub: a tensor larger than the limit is a shard of its own (appended at once); otherwise it joins the
  // current shard unless that would pass the limit, which then closes the shard.
  std::vector<std::vector<std::pair<std::string, at::Tensor>>> shards;
  std::vector<std::pair<std::string, at::Tensor>> current;
  std::uint64_t currentBytes = 0;
  std::uint64_t total = 0;
  for (const auto& [name, tensor] : tensors) {
    const std::uint64_t bytes = bytesOf(tensor);
    total += bytes;
    if (bytes > options.maxShardSize) {
      shards.push_back({{name, tensor}});
      continue;
    }
    if (currentBytes + bytes > options.maxShardSize && !current.empty()) {
      shards.push_back(std::move(current));
      current.clear();
      currentBytes = 0;
    }
    current.emplace_back(name, tensor);
    currentBytes += bytes;
  }
  if (!current.empty()) {
    shards.push_back(std::move(current));
  }

  std::error_code ec;
  std::filesystem::create_directories(folder, ec);
  FATHOM_CHECK(!ec, StorageError, "cannot create the checkpoint folder ", folder, ": ", ec.message());
  SavedModel saved;
  saved.bytes = total;
  const std::map<std::string, std::string> metadata{{"format", "pt"}};
  nlohmann::ordered_json weightMap = nlohmann::ordered_json::object();
  std::map<std::string, std::string> sortedMap;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const std::string name = shards.size() == 1 ? io::kSafetensorsFile : shardName(i + 1, shards.size());
    io::writeSafetensors(folder / name, shards[i], metadata);
    saved.files.push_back(folder / name);
    for (const auto& [tensor, t] : shards[i]) {
      sortedMap.emplace(tensor, name);
    }
  }
  if (shards.size() > 1) {
    for (const auto& [tensor, file] : sortedMap) {
      weightMap[tensor] = file;
    }
    const nlohmann::ordered_json index{{"metadata", {{"total_size", total}}}, {"weight_map", weightMap}};
    saved.index = folder / io::kSafetensorsIndexFile;
    AtomicFile::writeWhole(saved.index, index.dump(2) + "\n", {.what = "checkpoint index"});
  }

  // What an earlier save left: other shards, and the single file or the index of the other layout.
  static const std::regex kOurs(R"(model(-\d{5}-of-\d{5})?\.safetensors|model\.safetensors\.index\.json)");
  std::set<std::string> kept;
  for (const auto& f : saved.files) {
    kept.insert(f.filename().string());
  }
  if (!saved.index.empty()) {
    kept.insert(io::kSafetensorsIndexFile);
  }
  for (const auto& entry : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && std::regex_match(name, kOurs) && kept.count(name) == 0) {
      std::filesystem::remove(entry.path(), ec);
    }
  }
  return saved;
}

LoadedCheckpoint loadCheckpointInModel(torch::nn::Module& model, const std::filesystem::path& checkpoint) {
  const CheckpointTensors stored = readCheckpointTensors(checkpoint);
  const std::filesystem::path folder = stored.file.parent_path();
  const std::string where = terminalSafe(stored.file.string());

  // Every name of every model tensor (tied ones have several).
  std::unordered_map<std::string, at::Tensor> byName;
  std::unordered_map<const c10::TensorImpl*, std::string> firstName;
  for (const auto& item : model.named_modules("", /*include_self=*/true)) {
    const auto add = [&](const std::string& local, const at::Tensor& t) {
      if (t.defined()) {
        const std::string name = item.key().empty() ? local : item.key() + "." + local;
        byName.emplace(name, t);
        firstName.emplace(t.unsafeGetTensorImpl(), name);
      }
    };
    for (const auto& p : item.value()->named_parameters(false)) {
      add(p.key(), p.value());
    }
    for (const auto& b : item.value()->named_buffers(false)) {
      add(b.key(), b.value());
    }
  }

  // ---- everything checked before anything is copied --------------------------------------------------------------
  std::set<const c10::TensorImpl*> covered;
  std::vector<std::pair<const CheckpointTensor*, at::Tensor>> plan;
  for (const CheckpointTensor& t : stored.tensors) {
    const auto it = byName.find(t.name);
    FATHOM_CHECK(it != byName.end(), ConfigError, "checkpoint ", where, ": tensor '", terminalSafe(t.name), "' (in ",
                 terminalSafe(t.file), ") is not a parameter or buffer of the model");
    FATHOM_CHECK(it->second.sizes().vec() == t.shape, ConfigError, "checkpoint ", where, ": tensor '",
                 terminalSafe(t.name), "' (in ", terminalSafe(t.file), ") has shape ", at::IntArrayRef(t.shape),
                 " but the model's is ", it->second.sizes());
    if (covered.insert(it->second.unsafeGetTensorImpl()).second) {
      plan.emplace_back(&t, it->second);
    }
  }
  std::vector<std::string> missing;
  for (const auto& [impl, name] : firstName) {
    if (covered.count(impl) == 0) {
      missing.push_back(name);
    }
  }
  if (!missing.empty()) {
    std::sort(missing.begin(), missing.end());
    throw ConfigError(detail::concat("checkpoint ", where, ": the model's tensor '", terminalSafe(missing.front()), "'",
                                     missing.size() > 1 ? detail::concat(" and ", missing.size() - 1, " more are")
                                                        : std::string(" is"),
                                     " not in it"));
  }
  // Mapping every file up front: after this, only the copies remain.
  std::map<std::string, std::shared_ptr<io::MappedSafetensors>> files;
  for (const CheckpointTensor& t : stored.tensors) {
    if (files.count(t.file) == 0) {
      files.emplace(t.file, std::make_shared<io::MappedSafetensors>(folder / t.file));
    }
  }

  // ---- the copies, in the checkpoint's order, each tensor's pages dropped once it is copied ----------------------
  const torch::NoGradGuard noGrad;
  LoadedCheckpoint loaded;
  loaded.files = files.size();
  for (const auto& [t, target] : plan) {
    const io::MappedSafetensors& file = *files.at(t->file);
    at::Tensor destination = target;
    destination.copy_(file.tensor(t->name));
    file.releasePages(t->name);
    loaded.bytes += bytesOf(destination);
    ++loaded.tensors;
  }
  return loaded;
}

std::unique_ptr<DispatchedModel> loadCheckpointAndDispatch(const std::shared_ptr<torch::nn::Module>& model,
                                                           const std::filesystem::path& checkpoint,
                                                           const DeviceMap& map, DispatchOptions options) {
  FATHOM_CHECK(model != nullptr, ConfigError, "loadCheckpointAndDispatch: no model");
  loadCheckpointInModel(*model, checkpoint);
  return std::make_unique<DispatchedModel>(model, map, std::move(options));
}

}  // namespace fathom::bigmodel
