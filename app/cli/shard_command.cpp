// SPDX-License-Identifier: Apache-2.0
// `fathom shard`: previews which sample indices each rank receives, batch by batch, under Accelerate's data-loader
// sharding (BatchSamplerShard / IterableDatasetShard, even_batches, drop_last, skip_first_batches). docs/data.md.
#include "command.h"

#include <fathom/data/shard_plan.h>
#include <fathom/data/shard_plan_format.h>

#include <cstdint>
#include <iostream>
#include <memory>

namespace fathom::cli {

namespace {
struct ShardFlags {
  data::ShardRequest request;
  std::uint64_t seed = 0;
  bool json = false;
};
}  // namespace

void addShardCommand(CLI::App& root, CommandAction& action) {
  auto flags = std::make_shared<ShardFlags>();
  data::ShardRequest& r = flags->request;
  CLI::App* cmd = root.add_subcommand("shard", "Preview which sample indices each rank receives, batch by batch, "
                                               "under Accelerate's data-loader sharding");
  cmd->add_option("--num_samples,--num-samples", r.numSamples, "Dataset length")->required();
  cmd->add_option("--batch_size,--batch-size", r.sharding.batchSize,
                  "The loader's batch_size: per process, or the global batch with --split_batches")
      ->required();
  cmd->add_option("--num_processes,--num-processes", r.sharding.numProcesses, "Number of processes (ranks)")
      ->required();
  cmd->add_flag("--split_batches,--split-batches", r.sharding.splitBatches,
                "Split each batch across the processes instead of giving each process its own batches");
  cmd->add_option("--even_batches,--even-batches", r.sharding.evenBatches,
                  "true: top the tail up from the start of the data so every rank gets as many batches")
      ->default_str("true");
  cmd->add_flag("--drop_last,--drop-last", r.sharding.dropLast, "Drop the incomplete last batch");
  cmd->add_flag("--iterable", r.iterable, "Shard as an iterable dataset (IterableDatasetShard)");
  cmd->add_option("--skip_batches,--skip-batches", r.skipBatches,
                  "Batches each rank skips first (skip_first_batches, resuming mid-epoch)");
  CLI::Option* seed = cmd->add_option("--seed", flags->seed, "Shuffle with the seedable sampler and this seed");
  cmd->add_option("--epoch", r.epoch, "Epoch for the shuffle (set_epoch; the order uses seed + epoch)")->needs(seed);
  cmd->add_flag("--json", flags->json, "Print one JSON object instead of the table");
  cmd->callback([flags, seed, &action] {
    if (seed->count() > 0) {
      flags->request.shuffleSeed = flags->seed;
    }
    action = [flags] {
      const data::ShardPlan plan = data::planShards(flags->request);
      if (flags->json) {
        std::cout << data::formatShardPlanJson(plan) << '\n';
      } else {
        std::cout << data::formatShardPlanText(plan);
      }
      return 0;
    };
  });
}

}  // namespace fathom::cli
