// SPDX-License-Identifier: Apache-2.0
// Checkpoint save and load time of gpt-small on N processes, sharded (FSDP FULL_SHARD, SHARDED_STATE_DICT: one file
// per process) or full (FULL_STATE_DICT: rank 0 writes the gathered model), as Accelerator::saveState/loadState do
// them (docs/checkpoint.md). Run under `fathom launch` by tests/bench/bench_checkpoint.py, which compares against dd
// with fsync and Python's torch.save/torch.load of the same state dict in the same run (docs/benchmarks.md).
//
//   fathom launch --num_processes 4 build/bench/bench/bench_checkpoint --dir DIR --state_dict sharded|full --repeats R
//
// Each process builds gpt-small (10.8M parameters), AdamW, prepares it, takes one optimizer step (so AdamW has its
// two state tensors per parameter), then R times: saveState into DIR/checkpoints/checkpoint_<i> and loadState from
// it, each timed from a barrier before to its own end (both end with every process agreeing). The previous repeat's
// folder is deleted before the next save; the last one is kept (the driver reads it for torch.save). Rank 0 prints
// one JSON object per repeat: {"state_dict", "repeat", "save_s", "load_s", "bytes", "files"}.
#include <fathom/common/error.h>
#include <fathom/models/builtin_model.h>
#include <fathom/models/model.h>
#include <fathom/models/model_factory.h>
#include <fathom/train/accelerator.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/optim/adamw.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>

namespace {

struct Arguments {
  std::filesystem::path dir;
  std::string stateDict = "sharded";
  int repeats = 3;
};

Arguments parse(int argc, char** argv) {
  Arguments a;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    FATHOM_CHECK(i + 1 < argc, ConfigError, flag, " needs a value");
    const std::string value = argv[++i];
    if (flag == "--dir") {
      a.dir = value;
    } else if (flag == "--state_dict") {
      FATHOM_CHECK(value == "sharded" || value == "full", ConfigError, "--state_dict: expected sharded or full, got '",
                   value, "'");
      a.stateDict = value;
    } else if (flag == "--repeats") {
      a.repeats = std::stoi(value);
      FATHOM_CHECK(a.repeats >= 1, ConfigError, "--repeats: expected at least 1, got ", value);
    } else {
      throw fathom::ConfigError("unknown flag " + flag + " (--dir DIR --state_dict sharded|full --repeats R)");
    }
  }
  FATHOM_CHECK(!a.dir.empty(), ConfigError, "--dir DIR is required");
  return a;
}

std::int64_t folderBytes(const std::filesystem::path& folder, int& files) {
  std::int64_t bytes = 0;
  files = 0;
  for (const auto& e : std::filesystem::directory_iterator(folder)) {
    if (e.is_regular_file()) {
      bytes += static_cast<std::int64_t>(e.file_size());
      ++files;
    }
  }
  return bytes;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int run(const Arguments& a) {
  fathom::train::AcceleratorOptions options;
  options.cpu = true;
  options.projectDir = a.dir;
  options.checkpoint.automaticCheckpointNaming = true;
  fathom::parallel::FsdpOptions fsdp;
  fsdp.shardingStrategy = fathom::parallel::FsdpShardingStrategy::FullShard;
  fsdp.stateDictType = a.stateDict == "sharded" ? fathom::parallel::FsdpStateDictType::ShardedStateDict
                                                : fathom::parallel::FsdpStateDictType::FullStateDict;
  options.fsdp = fsdp;
  fathom::train::Accelerator accelerator(options);
  fathom::models::ModelRequest request;
  request.name = "gpt-small";
  torch::manual_seed(0);
  auto model0 = fathom::models::makeModel(request);
  auto optimizer0 = std::make_shared<torch::optim::AdamW>(model0->parameters(), torch::optim::AdamWOptions(1e-4));
  auto [model, optimizer] = accelerator.prepare(model0, optimizer0);
  const at::Tensor tokens = at::randint(0, 128, {2, 65}, at::kLong);
  accelerator.backward(model->loss(model->forward(tokens.narrow(1, 0, 64)), tokens.narrow(1, 1, 64)));
  optimizer->step();
  optimizer->zeroGrad();

  std::filesystem::path previous;
  for (int i = 0; i < a.repeats; ++i) {
    if (accelerator.isMainProcess() && !previous.empty())
      std::filesystem::remove_all(previous);
    accelerator.waitForEveryone();
    auto start = std::chrono::steady_clock::now();
    const std::filesystem::path folder = accelerator.saveState();
    const double save = secondsSince(start);
    accelerator.waitForEveryone();
    start = std::chrono::steady_clock::now();
    accelerator.loadState(folder);
    const double load = secondsSince(start);
    if (accelerator.isMainProcess()) {
      int files = 0;
      const std::int64_t bytes = folderBytes(folder, files);
      std::cout << nlohmann::json{{"state_dict", a.stateDict},
                                  {"repeat", i},
                                  {"save_s", save},
                                  {"load_s", load},
                                  {"bytes", bytes},
                                  {"files", files}}
                       .dump()
                << std::endl;
    }
    previous = folder;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_checkpoint: %s\n", e.what());
    return 2;
  }
}
