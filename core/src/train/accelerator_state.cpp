// SPDX-License-Identifier: Apache-2.0
// Accelerator: save_state / load_state (docs/checkpoint.md). The file-system side (staging, manifest, verified
// reads) is core/checkpoint's; here is what each component saves, and the agreement between processes.
#include <fathom/checkpoint/checkpoint_folder.h>
#include <fathom/checkpoint/checkpoint_staging.h>
#include <fathom/checkpoint/shard_index.h>
#include <fathom/checkpoint/training_state.h>
#include <fathom/common/build_info.h>
#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/common/log.h>
#include <fathom/parallel/comm.h>
#include <fathom/parallel/fully_sharded_engine.h>
#include <fathom/precision/grad_scaler.h>
#include <fathom/profile/annotations.h>
#include <fathom/telemetry/sqlite_tracker.h>
#include <fathom/train/accelerator.h>

#include "reshard_load.h"

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/utils.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>

namespace fathom::train {

namespace {

using checkpoint::StateDict;

/// Accelerate's numbering: the first of a kind has no suffix, the next ones `_1`, `_2`, ...
std::string indexed(const std::string& stem, std::size_t i) {
  return stem + (i == 0 ? "" : "_" + std::to_string(i)) + ".safetensors";
}

/// A process's file of a sharded component: `model_rank0.safetensors`, `optimizer_1_rank3.safetensors`.
std::string rankFile(const std::string& stem, std::size_t i, int rank) {
  return stem + (i == 0 ? "" : "_" + std::to_string(i)) + "_rank" + std::to_string(rank) + ".safetensors";
}

std::string component(const std::string& stem, std::size_t i) {
  return stem + (i == 0 ? "" : "_" + std::to_string(i));
}

std::int64_t number(const StateDict& state, const char* key, const std::string& file) {
  const std::string* text = state.value(key);
  FATHOM_CHECK(text != nullptr, ConfigError, file, ": no value '", key, "'");
  try {
    return std::stoll(*text);
  } catch (const std::exception&) {
    throw ConfigError(detail::concat(file, ": value '", key, "' is '", *text, "', not a number"));
  }
}

/// Whether the model's state is saved one file per process: FSDP's SHARDED_STATE_DICT and ZeRO-3 (DeepSpeed saves
/// ZeRO-3 partitions per rank).
bool savesShardedModel(const ResolvedAcceleratorOptions& options, const parallel::DataParallelEngine& engine) {
  if (dynamic_cast<const parallel::FullyShardedEngine*>(&engine) == nullptr || engine.steppedShards().empty())
    return false;
  if (options.zero && options.zero->stage == 3)
    return true;
  return options.fsdp && options.fsdp->stateDictType == parallel::FsdpStateDictType::ShardedStateDict;
}

/// Bytes of every file under `folder` (a published checkpoint: its files and manifest.json).
std::int64_t folderBytes(const std::filesystem::path& folder) {
  std::int64_t bytes = 0;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(folder, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code sizeError;
    if (it->is_regular_file(sizeError))
      bytes += static_cast<std::int64_t>(it->file_size(sizeError));
  }
  return bytes;
}

/// Checks a full state dict against the module's parameters (names and shapes) before anything is copied.
void checkFullModel(const torch::nn::Module& module, const StateDict& state, const std::string& file) {
  std::map<std::string, const at::Tensor*> byName;
  for (const auto& [name, t] : state.tensors)
    byName[name] = &t;
  for (const auto& item : module.named_parameters(/*recurse=*/true)) {
    const auto it = byName.find(item.key());
    FATHOM_CHECK(it != byName.end(), ConfigError, file, ": has no parameter '", item.key(),
                 "' (a checkpoint of another model?)");
    FATHOM_CHECK(it->second->sizes() == item.value().sizes(), ConfigError, file, ": parameter '", item.key(),
                 "' has shape ", it->second->sizes(), ", the model's is ", item.value().sizes());
  }
  for (const auto& item : module.named_buffers(/*recurse=*/true)) {
    const auto it = byName.find(item.key());
    FATHOM_CHECK(it == byName.end() || it->second->sizes() == item.value().sizes(), ConfigError, file, ": buffer '",
                 item.key(), "' has shape ", it->second->sizes(), ", the model's is ", item.value().sizes());
  }
}

using Bindings = std::vector<std::pair<const torch::optim::Optimizer*, parallel::DataParallelEngine*>>;

/// The tensors `optimizer` steps that are shards of flat buffers (FSDP / ZeRO units, ZeRO-1/2 buckets), by tensor.
std::unordered_map<const c10::TensorImpl*, parallel::SteppedShard>
steppedShardsOf(const Bindings& bindings, const torch::optim::Optimizer& inner) {
  std::unordered_map<const c10::TensorImpl*, parallel::SteppedShard> shards;
  for (const auto& [bound, engine] : bindings) {
    if (bound != &inner)
      continue;
    for (parallel::SteppedShard& shard : engine->steppedShards())
      shards.emplace(shard.tensor.unsafeGetTensorImpl(), std::move(shard));
  }
  return shards;
}

}  // namespace

struct Accelerator::SaveContext {
  checkpoint::CheckpointStaging* staging = nullptr;
  /// Full state dicts of the models saved whole (gathered before any file is written: gathering is collective).
  std::vector<std::optional<parallel::NamedTensors>> fullModels;
};

std::filesystem::path Accelerator::checkpointsFolder() const {
  return m_options.raw.projectDir / "checkpoints";
}

void Accelerator::agreeOrThrow(std::exception_ptr failure, const char* what) {
  std::vector<int> failed;
  if (m_comm) {
    at::Tensor flags = at::zeros({numProcesses()}, at::kFloat);
    flags[processIndex()] = failure ? 1.0 : 0.0;
    m_comm->allReduce(flags, runtime::ReduceOp::Sum, "checkpoint.agree");
    for (int r = 0; r < numProcesses(); ++r) {
      if (flags[r].item<float>() > 0)
        failed.push_back(r);
    }
  }
  if (failure)
    std::rethrow_exception(failure);
  if (!failed.empty()) {
    std::string ranks;
    for (int r : failed)
      ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    throw StorageError(detail::concat(what, ": process(es) ", ranks,
                                      " failed (their error names the file and the reason); nothing was changed"));
  }
}

void Accelerator::writeStateFiles(SaveContext& context) {
  checkpoint::CheckpointStaging& staging = *context.staging;
  const int rank = processIndex();
  const bool main = isMainProcess();
  for (std::size_t i = 0; i < m_engines.size(); ++i) {
    parallel::DataParallelEngine& engine = *m_engines[i];
    if (context.fullModels[i]) {
      if (main)
        staging.write(indexed("model", i), StateDict{*context.fullModels[i], {{"format", "pt"}}});
      continue;
    }
    auto& sharded = dynamic_cast<parallel::FullyShardedEngine&>(engine);
    StateDict state;
    state.tensors = sharded.shardedStateDict(state.values);
    for (const auto& item : engine.module()->named_buffers(/*recurse=*/true))
      state.tensors.emplace_back("buffer." + item.key(), item.value().detach().to(at::kCPU, false, true));
    const std::string file = rankFile("model", i, rank);
    staging.write(file, state);
    for (const parallel::SteppedShard& shard : engine.steppedShards()) {
      staging.addShard({component("model", i) + "/" + shard.name,
                        file,
                        shard.name,
                        {shard.globalNumel},
                        shard.offset,
                        shard.tensor.numel(),
                        shard.layout});
    }
  }
  for (std::size_t j = 0; j < m_optimizers.size(); ++j) {
    const auto optimizer = m_optimizers[j].lock();
    FATHOM_CHECK(optimizer != nullptr, ConfigError, "save_state: prepared optimizer ", j, " no longer exists");
    torch::optim::Optimizer& inner = optimizer->optimizer();
    const auto shards = steppedShardsOf(m_bindings, inner);
    const StateDict state = checkpoint::optimizerStateDict(inner);
    if (shards.empty()) {
      if (main)
        staging.write(indexed("optimizer", j), state);
      continue;
    }
    const std::string file = rankFile("optimizer", j, rank);
    staging.write(file, state);
    std::size_t p = 0;
    for (const auto& group : inner.param_groups()) {
      for (const at::Tensor& param : group.params()) {
        const auto it = shards.find(param.unsafeGetTensorImpl());
        const std::string prefix = "state." + std::to_string(p++) + ".";
        if (it == shards.end())
          continue;
        for (const auto& [key, t] : state.tensors) {
          if (key.rfind(prefix, 0) == 0 && t.dim() > 0) {
            staging.addShard({component("optimizer", j) + "/" + key,
                              file,
                              key,
                              {it->second.globalNumel},
                              it->second.offset,
                              t.numel(),
                              it->second.layout});
          }
        }
      }
    }
  }
  if (main) {
    for (std::size_t k = 0; k < m_schedulers.size(); ++k) {
      const auto scheduler = m_schedulers[k].lock();
      FATHOM_CHECK(scheduler != nullptr, ConfigError, "save_state: prepared scheduler ", k, " no longer exists");
      staging.write(indexed("scheduler", k),
                    StateDict{{},
                              {{"format", "fathom.scheduler.v1"},
                               {"step_count", std::to_string(checkpoint::schedulerStepCount(scheduler->scheduler()))},
                               {"inner_steps", std::to_string(scheduler->innerSteps())}}});
    }
    for (std::size_t k = 0; k < m_loaders.size(); ++k) {
      const auto loader = m_loaders[k].lock();
      FATHOM_CHECK(loader != nullptr, ConfigError, "save_state: prepared data loader ", k, " no longer exists");
      staging.write(indexed("dl_state_dict", k), loader->stateDict());
    }
    if (m_scaler) {
      const precision::GradScalerState s = m_scaler->stateDict();
      staging.write("scaler.safetensors", StateDict{{},
                                                    {{"format", "fathom.grad_scaler.v1"},
                                                     {"valid", s.valid ? "true" : "false"},
                                                     {"scale", nlohmann::json(s.scale).dump()},
                                                     {"growth_factor", nlohmann::json(s.growthFactor).dump()},
                                                     {"backoff_factor", nlohmann::json(s.backoffFactor).dump()},
                                                     {"growth_interval", std::to_string(s.growthInterval)},
                                                     {"growth_tracker", std::to_string(s.growthTracker)}}});
    }
    for (std::size_t c = 0; c < m_customObjects.size(); ++c)
      staging.write("custom_checkpoint_" + std::to_string(c) + ".safetensors", m_customObjects[c].save());
  }
  StateDict rng = checkpoint::rngStateDict();
  rng.values["step"] = std::to_string(m_gradientState.step());
  rng.values["optimizer_steps"] = std::to_string(m_optimizerSteps);
  staging.write("random_states_" + std::to_string(rank) + ".safetensors", rng);
  staging.finish();
}

std::filesystem::path Accelerator::saveState(std::optional<std::filesystem::path> outputDir) {
  profile::RecordFunction span("fathom::save_state", profile::Phase::Checkpoint);
  const checkpoint::CheckpointOptions& options = m_options.raw.checkpoint;
  std::filesystem::path folder;
  std::exception_ptr failure;
  try {
    if (outputDir) {
      folder = *outputDir;
    } else {
      FATHOM_CHECK(options.automaticCheckpointNaming, ConfigError,
                   "save_state: no folder given, and automatic checkpoint naming is off");
      folder = checkpointsFolder() / ("checkpoint_" + std::to_string(m_saveIteration));
      FATHOM_CHECK(!std::filesystem::exists(folder), ConfigError, "save_state: checkpoint folder ", folder.string(),
                   " already exists; setSaveIteration() to a number not used yet");
    }
    FATHOM_CHECK(!folder.filename().empty(), ConfigError, "save_state: '", folder.string(), "' names no folder");
    if (isMainProcess())
      checkpoint::CheckpointStaging::prepare(folder);
  } catch (...) {
    failure = std::current_exception();
  }
  agreeOrThrow(failure, "save_state");

  // Collective parts first (FSDP gathers full state dicts), so a process failing to write cannot leave the others
  // waiting in a gather.
  SaveContext context;
  for (const auto& engine : m_engines) {
    if (savesShardedModel(m_options, *engine)) {
      context.fullModels.emplace_back(std::nullopt);
    } else {
      context.fullModels.emplace_back(engine->fullStateDict(/*rank0Only=*/true));
    }
  }
  checkpoint::CheckpointStaging staging(folder, processIndex());
  context.staging = &staging;
  try {
    writeStateFiles(context);
  } catch (...) {
    failure = std::current_exception();
  }
  try {
    agreeOrThrow(failure, "save_state");
  } catch (...) {
    if (isMainProcess())
      checkpoint::CheckpointStaging::discard(folder);
    throw;
  }

  if (isMainProcess()) {
    try {
      checkpoint::Manifest manifest;
      manifest.fathomVersion = buildInfo().version;
      manifest.worldSize = numProcesses();
      manifest.strategy = strategy();
      manifest.info["models"] = std::to_string(m_engines.size());
      manifest.info["optimizers"] = std::to_string(m_optimizers.size());
      manifest.info["schedulers"] = std::to_string(m_schedulers.size());
      manifest.info["data_loaders"] = std::to_string(m_loaders.size());
      manifest.info["custom_objects"] = std::to_string(m_customObjects.size());
      manifest.info["mixed_precision"] = precision::toString(m_options.mixedPrecision);
      manifest.info["optimizer_steps"] = std::to_string(m_optimizerSteps);
      if (m_options.fsdp) {
        manifest.info["fsdp_sharding_strategy"] = parallel::fsdpShardingName(m_options.fsdp->shardingStrategy);
        manifest.info["state_dict_type"] =
            m_options.fsdp->stateDictType == parallel::FsdpStateDictType::ShardedStateDict ? "SHARDED_STATE_DICT"
                                                                                           : "FULL_STATE_DICT";
      }
      checkpoint::CheckpointStaging::publish(folder, std::move(manifest), numProcesses());
    } catch (...) {
      failure = std::current_exception();
    }
  }
  agreeOrThrow(failure, "save_state");
  ++m_saveIteration;
  if (isMainProcess() && options.totalLimit && !outputDir) {
    try {
      checkpoint::rotateCheckpoints(folder.parent_path(), *options.totalLimit);
    } catch (const Error& e) {
      // The new checkpoint is published; failing to delete an old one loses nothing.
      fathom::log(LogLevel::Warning, detail::concat("save_state: ", e.what()));
    }
  }
  if (telemetry::SqliteTracker* workspace = isMainProcess() ? workspaceTracker() : nullptr) {
    // Only now, published: the run's artifact names a complete checkpoint (docs/checkpoint.md, "In the workspace").
    try {
      workspace->artifact({store::ArtifactKind::Checkpoint,
                           std::filesystem::absolute(folder).lexically_normal().string(), folderBytes(folder)},
                          unixNowSeconds());
    } catch (const Error& e) {
      fathom::log(LogLevel::Warning, detail::concat("save_state: ", folder.string(),
                                                    " is published, but the "
                                                    "workspace did not record it: ",
                                                    e.what()));
    }
  }
  waitForEveryone();
  return folder;
}

std::filesystem::path Accelerator::loadState(std::optional<std::filesystem::path> inputDir) {
  profile::RecordFunction span("fathom::load_state", profile::Phase::Checkpoint);
  const checkpoint::CheckpointOptions& options = m_options.raw.checkpoint;
  std::filesystem::path folder;
  std::vector<std::function<void()>> apply;
  std::exception_ptr failure;
  try {
    if (inputDir) {
      folder = *inputDir;
    } else {
      FATHOM_CHECK(options.automaticCheckpointNaming, ConfigError,
                   "load_state: no folder given, and automatic checkpoint naming is off");
      const auto all = checkpoint::listCheckpoints(checkpointsFolder());
      FATHOM_CHECK(!all.empty(), ConfigError, "load_state: no complete checkpoint_<n> folder in ",
                   checkpointsFolder().string());
      folder = all.back();
    }
    const checkpoint::Manifest manifest = checkpoint::readManifest(folder);
    const std::string manifestPath = (folder / checkpoint::kManifestFile).string();
    const auto expectCount = [&](const char* key, std::size_t here, const char* what) {
      const auto it = manifest.info.find(key);
      const std::string saved = it == manifest.info.end() ? "0" : it->second;
      FATHOM_CHECK(saved == std::to_string(here), ConfigError, manifestPath, ": the checkpoint has ", saved, " ", what,
                   ", this run prepared ", here);
    };
    expectCount("models", m_engines.size(), "model(s)");
    expectCount("optimizers", m_optimizers.size(), "optimizer(s)");
    expectCount("schedulers", m_schedulers.size(), "scheduler(s)");
    expectCount("data_loaders", m_loaders.size(), "data loader(s)");
    expectCount("custom_objects", m_customObjects.size(), "registered object(s)");
    const int rank = processIndex();
    // Sharded files saved by another number of processes are re-cut for this run (docs/checkpoint.md,
    // "Resharding"): rank r reads its new range of every flat buffer from whichever old rank files hold it.
    const bool resharding = manifest.worldSize != numProcesses();
    const int savedRank = std::min(rank, manifest.worldSize - 1);  // the old rank file named in messages
    std::optional<checkpoint::ShardIndex> index;
    const auto shardIndex = [&]() -> checkpoint::ShardIndex& {
      if (!index)
        index.emplace(folder, manifest);
      return *index;
    };
    // A run that shards nothing (DDP, one process) takes a sharded checkpoint whole: the model merged, the
    // optimizer state cut into the parameters it steps, named through each buffer's layout.
    bool wholeRun = true;
    std::unordered_map<const c10::TensorImpl*, std::string> wholeNames;
    for (const auto& engine : m_engines) {
      wholeRun = wholeRun && engine->steppedShards().empty();
      if (engine->steppedShards().empty()) {
        for (const auto& item : engine->module()->named_parameters(/*recurse=*/true))
          wholeNames.emplace(item.value().unsafeGetTensorImpl(), item.key());
      }
    }
    // Otherwise per-process (sharded) files are resharded only within their strategy: the flat buffers of FSDP /
    // ZeRO-3 units and of ZeRO-1/2 buckets are laid out differently.
    const auto requireSameStrategy = [&](const std::string& file) {
      FATHOM_CHECK(manifest.strategy == strategy() || wholeRun, ConfigError, (folder / file).string(),
                   ": a sharded file saved by ", manifest.worldSize, " process(es) with strategy ", manifest.strategy,
                   "; this run has ", numProcesses(), " with strategy ", strategy(),
                   " (a sharded checkpoint reshards onto the same strategy, or loads whole into a run that shards "
                   "nothing; checkpoint::mergeShardedModel puts its model together for any strategy)");
    };
    for (std::size_t i = 0; i < m_engines.size(); ++i) {
      parallel::DataParallelEngine& engine = *m_engines[i];
      const std::string full = indexed("model", i);
      const std::string mine = rankFile("model", i, rank);
      if (checkpoint::lists(manifest, full)) {
        StateDict state = checkpoint::readVerified(folder, manifest, full);
        checkFullModel(*engine.module(), state, (folder / full).string());
        for (auto& [name, t] : state.tensors)
          t = t.to(m_device);
        apply.push_back([&engine, state = std::move(state)] { engine.loadFullStateDict(state.tensors); });
        continue;
      }
      FATHOM_CHECK(checkpoint::lists(manifest, rankFile("model", i, 0)), StorageError, manifestPath, ": lists neither ",
                   full, " nor ", rankFile("model", i, 0), " (model ", i, " was not saved)");
      requireSameStrategy(rankFile("model", i, savedRank));
      if (wholeRun) {
        // The full model from every process's file (Accelerate's merge-weights), checked like model.safetensors.
        StateDict state{checkpoint::mergeShardedModel(folder, component("model", i)), {}};
        checkFullModel(*engine.module(), state, (folder / rankFile("model", i, 0)).string() + " (merged)");
        for (auto& [name, t] : state.tensors)
          t = t.to(m_device);
        apply.push_back([&engine, state = std::move(state)] { engine.loadFullStateDict(state.tensors); });
        continue;
      }
      auto* sharded = dynamic_cast<parallel::FullyShardedEngine*>(&engine);
      FATHOM_CHECK(sharded != nullptr && savesShardedModel(m_options, engine), ConfigError,
                   (folder / rankFile("model", i, savedRank)).string(),
                   ": a sharded model state; this run saves model ", i, " whole (state dict type or strategy differ)");
      if (resharding) {
        apply.push_back(resharding::stageReshardedModel(shardIndex(), component("model", i), rankFile("model", i, 0),
                                                        *sharded, m_device));
        continue;
      }
      StateDict state = checkpoint::readVerified(folder, manifest, mine);
      std::map<std::string, std::string> layout;
      sharded->shardedStateDict(layout);
      for (const auto& [key, value] : layout) {
        const std::string* saved = state.value(key);
        FATHOM_CHECK(saved != nullptr && *saved == value, ConfigError, (folder / mine).string(),
                     ": the sharding layout differs: '", key, "' is ", saved ? *saved : std::string("missing"),
                     ", this run has ", value);
      }
      apply.push_back([this, sharded, state = std::move(state)] {
        sharded->loadShardedStateDict(state.tensors, state.values);
        for (const auto& item : sharded->module()->named_buffers(/*recurse=*/true)) {
          if (const at::Tensor* t = state.tensor("buffer." + item.key()))
            item.value().copy_(t->to(m_device));
        }
      });
    }
    for (std::size_t j = 0; j < m_optimizers.size(); ++j) {
      const auto optimizer = m_optimizers[j].lock();
      FATHOM_CHECK(optimizer != nullptr, ConfigError, "load_state: prepared optimizer ", j, " no longer exists");
      std::string file = indexed("optimizer", j);
      if (!checkpoint::lists(manifest, file)) {
        file = rankFile("optimizer", j, rank);
        if (checkpoint::lists(manifest, rankFile("optimizer", j, 0))) {
          requireSameStrategy(rankFile("optimizer", j, savedRank));
          if (resharding || wholeRun) {
            // Values and 0-dim state (step) from old rank 0's file; the per-element state re-cut through the index.
            const std::string first = rankFile("optimizer", j, 0);
            const std::string firstPath = (folder / first).string();
            torch::optim::Optimizer& inner = optimizer->optimizer();
            const StateDict state =
                resharding::reshardOptimizer(shardIndex(), component("optimizer", j), shardIndex().file(first),
                                             firstPath, inner, steppedShardsOf(m_bindings, inner), wholeNames);
            apply.push_back(checkpoint::stageOptimizerStateDict(inner, state, firstPath + " (resharded)"));
            continue;
          }
        }
      }
      const StateDict state = checkpoint::readVerified(folder, manifest, file);
      apply.push_back(checkpoint::stageOptimizerStateDict(optimizer->optimizer(), state, (folder / file).string()));
    }
    for (std::size_t k = 0; k < m_schedulers.size(); ++k) {
      const auto scheduler = m_schedulers[k].lock();
      FATHOM_CHECK(scheduler != nullptr, ConfigError, "load_state: prepared scheduler ", k, " no longer exists");
      const std::string file = indexed("scheduler", k);
      const StateDict state = checkpoint::readVerified(folder, manifest, file);
      const auto stepCount = number(state, "step_count", (folder / file).string());
      const auto innerSteps = number(state, "inner_steps", (folder / file).string());
      apply.push_back([scheduler, stepCount, innerSteps] {
        checkpoint::setSchedulerStepCount(scheduler->scheduler(), static_cast<unsigned>(stepCount));
        scheduler->setInnerSteps(innerSteps);
      });
    }
    for (std::size_t k = 0; k < m_loaders.size(); ++k) {
      const auto loader = m_loaders[k].lock();
      FATHOM_CHECK(loader != nullptr, ConfigError, "load_state: prepared data loader ", k, " no longer exists");
      const std::string file = indexed("dl_state_dict", k);
      StateDict state = checkpoint::readVerified(folder, manifest, file);
      const std::string path = (folder / file).string();
      loader->checkStateDict(state, path);
      apply.push_back([loader, state = std::move(state), path] { loader->loadStateDict(state, path); });
    }
    if (m_scaler && checkpoint::lists(manifest, "scaler.safetensors")) {
      const StateDict state = checkpoint::readVerified(folder, manifest, "scaler.safetensors");
      const std::string path = (folder / "scaler.safetensors").string();
      precision::GradScalerState s;
      try {
        s.valid = state.values.at("valid") == "true";
        s.scale = nlohmann::json::parse(state.values.at("scale")).get<double>();
        s.growthFactor = nlohmann::json::parse(state.values.at("growth_factor")).get<double>();
        s.backoffFactor = nlohmann::json::parse(state.values.at("backoff_factor")).get<double>();
        s.growthInterval = number(state, "growth_interval", path);
        s.growthTracker = number(state, "growth_tracker", path);
      } catch (const std::out_of_range&) {
        throw ConfigError(detail::concat(path, ": not a GradScaler state"));
      } catch (const nlohmann::json::exception& e) {
        throw ConfigError(detail::concat(path, ": malformed GradScaler value: ", e.what()));
      }
      apply.push_back([this, s] { m_scaler->loadStateDict(s); });
    }
    for (std::size_t c = 0; c < m_customObjects.size(); ++c) {
      StateDict state =
          checkpoint::readVerified(folder, manifest, "custom_checkpoint_" + std::to_string(c) + ".safetensors");
      apply.push_back([this, c, state = std::move(state)] { m_customObjects[c].load(state); });
    }
    // RNG: each process takes its own rank's generators. In a load onto more processes than saved, a rank without
    // a file takes the counters from random_states_0 (they are the same on every rank) and seeds its generators
    // with resharding::reshardSeed (docs/checkpoint.md, "Resharding").
    const bool ownRng = !resharding || rank < manifest.worldSize;
    const std::string rngFile = "random_states_" + std::to_string(ownRng ? rank : 0) + ".safetensors";
    StateDict rng = checkpoint::readVerified(folder, manifest, rngFile);
    const std::int64_t step = number(rng, "step", (folder / rngFile).string());
    const std::int64_t optimizerSteps = number(rng, "optimizer_steps", (folder / rngFile).string());
    FATHOM_CHECK(rng.tensor("torch_cpu") != nullptr, ConfigError, (folder / rngFile).string(),
                 ": no torch_cpu generator state");
    apply.push_back(
        [this, rng = std::move(rng), step, optimizerSteps, ownRng, rank, path = (folder / rngFile).string()] {
          if (ownRng)
            checkpoint::loadRngStateDict(rng, path);
          else
            torch::manual_seed(resharding::reshardSeed(rank, optimizerSteps));
          m_gradientState.setStep(step);
          m_optimizerSteps = optimizerSteps;
          // An earlier checkpoint than the current step is a step back (a rollback, or a save that failed).
          if (m_comm)
            m_comm->resumeAt(m_optimizerSteps + 1);
        });
  } catch (...) {
    failure = std::current_exception();
  }
  agreeOrThrow(failure, "load_state");
  for (const auto& assign : apply)
    assign();
  if (options.automaticCheckpointNaming) {
    if (const auto n = checkpoint::checkpointNumber(folder))
      m_saveIteration = static_cast<int>(*n) + 1;
  }
  return folder;
}

}  // namespace fathom::train
