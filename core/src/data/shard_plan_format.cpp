// SPDX-License-Identifier: Apache-2.0
#include <fathom/data/shard_plan_format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <vector>

namespace fathom::data {
namespace {

std::string joinBatch(const IndexBatch& batch) {
  std::string out;
  for (const std::int64_t index : batch) {
    if (!out.empty()) {
      out += ' ';
    }
    out += std::to_string(index);
  }
  return out;
}

std::string settingsLine(const ShardPlan& plan) {
  const ShardRequest& r = plan.request;
  const ShardingOptions& s = r.sharding;
  std::ostringstream out;
  out << r.numSamples << " samples, batch_size " << s.batchSize << ", " << s.numProcesses << " processes, "
      << (r.iterable ? "iterable dataset" : "map-style dataset") << ", split_batches "
      << (s.splitBatches ? "true" : "false") << ", even_batches " << (s.evenBatches ? "true" : "false")
      << ", drop_last " << (s.dropLast ? "true" : "false");
  if (r.skipBatches > 0) {
    out << ", skipping " << r.skipBatches << " batches";
  }
  if (r.shuffleSeed) {
    out << ", shuffled (seed " << *r.shuffleSeed << ", epoch " << r.epoch << ")";
  }
  out << "\ntotal batch size " << s.totalBatchSize();
  // remainder() is -1 under drop_last, Accelerate's marker (kept in the JSON); people read what it means.
  if (plan.remainder < 0) {
    out << ", no remainder (drop_last: an incomplete last batch is dropped, nothing is duplicated)";
  } else if (plan.remainder == 0) {
    out << ", remainder 0";
    out << " (the data divides evenly)";
  } else {
    out << ", remainder " << plan.remainder << " (gather_for_metrics keeps " << plan.remainder
        << " samples of the last global batch)";
  }
  out << '\n';
  return out.str();
}

}  // namespace

std::string formatShardPlanJson(const ShardPlan& plan) {
  using nlohmann::json;
  const ShardRequest& r = plan.request;
  json ranks = json::array();
  for (const RankBatches& rank : plan.ranks) {
    json batches = json::array();
    for (const IndexBatch& batch : rank.batches) {
      batches.push_back(batch);
    }
    ranks.push_back({{"rank", rank.rank}, {"num_batches", rank.batches.size()}, {"batches", std::move(batches)}});
  }
  json out = {{"num_samples", r.numSamples},
              {"batch_size", r.sharding.batchSize},
              {"num_processes", r.sharding.numProcesses},
              {"split_batches", r.sharding.splitBatches},
              {"even_batches", r.sharding.evenBatches},
              {"drop_last", r.sharding.dropLast},
              {"iterable", r.iterable},
              {"skip_batches", r.skipBatches},
              {"total_batch_size", r.sharding.totalBatchSize()},
              {"remainder", plan.remainder},
              {"ranks", std::move(ranks)}};
  if (r.shuffleSeed) {
    out["seed"] = *r.shuffleSeed;
    out["epoch"] = r.epoch;
  }
  return out.dump();
}

std::string formatShardPlanText(const ShardPlan& plan) {
  std::size_t steps = 0;
  for (const RankBatches& rank : plan.ranks) {
    steps = std::max(steps, rank.batches.size());
  }
  // cells[row][column]; row 0 is the header, column 0 the batch number.
  std::vector<std::vector<std::string>> cells(steps + 1);
  cells[0].push_back("batch");
  for (const RankBatches& rank : plan.ranks) {
    cells[0].push_back("rank " + std::to_string(rank.rank));
  }
  for (std::size_t step = 0; step < steps; ++step) {
    auto& row = cells[step + 1];
    row.push_back(std::to_string(step));
    for (const RankBatches& rank : plan.ranks) {
      row.push_back(step < rank.batches.size() ? joinBatch(rank.batches[step]) : std::string("-"));
    }
  }
  std::vector<std::size_t> widths(cells[0].size(), 0);
  for (const auto& row : cells) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  }
  std::string out = settingsLine(plan);
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) {
        line += std::string(widths[c] - row[c].size() + 3, ' ');
      }
    }
    out += line + '\n';
  }
  if (steps == 0) {
    out += "(no rank receives a batch)\n";
  }
  return out;
}

}  // namespace fathom::data
