// SPDX-License-Identifier: Apache-2.0
// Accelerator: full and sharded state dicts of prepared models, and save_model / load_model in safetensors.
#include <fathom/common/error.h>
#include <fathom/io/safetensors.h>
#include <fathom/parallel/fully_sharded_engine.h>
#include <fathom/profile/annotations.h>
#include <fathom/train/accelerator.h>

#include <ATen/ATen.h>

#include <string>
#include <system_error>

namespace fathom::train {

namespace {

const char* kFullFile = "model.safetensors";

std::filesystem::path shardFile(const std::filesystem::path& directory, int rank, int world) {
  return directory / ("model-rank" + std::to_string(rank) + "-of-" + std::to_string(world) + ".safetensors");
}

}  // namespace

parallel::DataParallelEngine& Accelerator::preparedEngine(const torch::nn::Module& module, const char* what) {
  for (const auto& engine : m_engines) {
    if (engine->module().get() == &module)
      return *engine;
  }
  throw ConfigError(detail::concat(what, ": the model was not prepared by this Accelerator"));
}

parallel::NamedTensors Accelerator::stateDictOf(const torch::nn::Module& module, bool rank0Only) {
  return preparedEngine(module, "get_state_dict").fullStateDict(rank0Only);
}

void Accelerator::saveModelOf(const torch::nn::Module& module, const std::filesystem::path& directory) {
  parallel::DataParallelEngine& engine = preparedEngine(module, "save_model");
  profile::RecordFunction span("fathom::checkpoint_save", profile::Phase::Checkpoint);
  auto* sharded = dynamic_cast<parallel::FullyShardedEngine*>(&engine);
  const bool shardedDict = m_options.fsdp && sharded != nullptr &&
                           m_options.fsdp->stateDictType == parallel::FsdpStateDictType::ShardedStateDict;
  if (isMainProcess() || shardedDict) {
    std::error_code ec;
    std::filesystem::create_directories(directory, ec);
    FATHOM_CHECK(!ec, StorageError, "save_model: cannot create '", directory.string(), "': ", ec.message());
  }
  std::map<std::string, std::string> metadata{
      {"format", "pt"}, {"fathom.strategy", strategy()}, {"fathom.world_size", std::to_string(numProcesses())}};
  if (shardedDict) {
    const parallel::NamedTensors shards = sharded->shardedStateDict(metadata);
    io::writeSafetensors(shardFile(directory, processIndex(), numProcesses()), shards, metadata);
    waitForEveryone();
    return;
  }
  parallel::NamedTensors tensors = engine.fullStateDict(/*rank0Only=*/true);
  if (m_options.zero && m_options.zero->stage == 3 && m_options.zero->save16bitModel) {
    for (auto& [name, t] : tensors)
      t = t.to(at::kBFloat16);  // DeepSpeed's zero3_save_16bit_model: one consolidated 16-bit state dict
  }
  if (isMainProcess())
    io::writeSafetensors(directory / kFullFile, tensors, metadata);
  waitForEveryone();
}

void Accelerator::loadModelOf(const torch::nn::Module& module, const std::filesystem::path& directory) {
  parallel::DataParallelEngine& engine = preparedEngine(module, "load_model");
  profile::RecordFunction span("fathom::checkpoint_load", profile::Phase::Checkpoint);
  const std::filesystem::path full = directory / kFullFile;
  if (std::filesystem::exists(full)) {
    io::SafetensorsFile file = io::readSafetensors(full);
    for (auto& [name, t] : file.tensors)
      t = t.to(m_device, at::kFloat);
    try {
      engine.loadFullStateDict(file.tensors);
    } catch (const ConfigError& e) {
      throw ConfigError(detail::concat(full.string(), ": ", e.what()));
    }
    return;
  }
  const std::filesystem::path mine = shardFile(directory, processIndex(), numProcesses());
  auto* sharded = dynamic_cast<parallel::FullyShardedEngine*>(&engine);
  FATHOM_CHECK(std::filesystem::exists(mine), ConfigError, "load_model: '", directory.string(), "' has neither ",
               kFullFile, " nor this rank's shard file ", mine.filename().string(),
               " (a sharded state dict loads only on the same number of processes)");
  FATHOM_CHECK(sharded != nullptr, ConfigError, "load_model: ", mine.string(),
               " is a sharded state dict; it loads into an FSDP or ZeRO-3 model of the same layout (strategy now: ",
               strategy(), ")");
  const io::SafetensorsFile file = io::readSafetensors(mine);
  try {
    sharded->loadShardedStateDict(file.tensors, file.metadata);
  } catch (const ConfigError& e) {
    throw ConfigError(detail::concat(mine.string(), ": ", e.what()));
  }
}

}  // namespace fathom::train
