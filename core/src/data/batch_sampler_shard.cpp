// SPDX-License-Identifier: Apache-2.0
// Port of accelerate/data_loader.py BatchSamplerShard (`_iter_with_split`, `_iter_with_no_split`, `__len__`).
#include <fathom/data/batch_sampler_shard.h>

#include <fathom/common/error.h>

#include <algorithm>
#include <utility>

namespace fathom::data {

std::vector<IndexBatch> makeBatches(const std::vector<std::int64_t>& order, std::int64_t batchSize, bool dropLast) {
  FATHOM_CHECK(batchSize >= 1, ConfigError, "batch_size must be >= 1, got ", batchSize);
  std::vector<IndexBatch> out;
  const auto n = static_cast<std::int64_t>(order.size());
  for (std::int64_t begin = 0; begin < n; begin += batchSize) {
    const std::int64_t end = std::min(n, begin + batchSize);
    if (dropLast && end - begin < batchSize) {
      break;
    }
    out.emplace_back(order.begin() + begin, order.begin() + end);
  }
  return out;
}

BatchSamplerShard::BatchSamplerShard(std::vector<std::int64_t> order, const ShardingOptions& options, int processIndex)
    : m_options(options), m_processIndex(processIndex) {
  validateShardingOptions(options);
  validateProcessIndex(processIndex, options.numProcesses);
  m_base = makeBatches(order, options.batchSize, options.dropLast);
}

std::vector<IndexBatch> BatchSamplerShard::batches() const {
  return m_options.splitBatches ? iterWithSplit() : iterWithNoSplit();
}

std::int64_t BatchSamplerShard::length() const {
  const auto total = static_cast<std::int64_t>(m_base.size());
  const std::int64_t p = m_options.numProcesses;
  if (m_options.splitBatches) {
    return total;
  }
  if (total % p == 0) {
    return total / p;
  }
  if (m_options.dropLast) {
    return total / p;
  }
  if (m_options.evenBatches) {
    return total / p + 1;
  }
  return total / p + (m_processIndex < total % p ? 1 : 0);
}

std::vector<IndexBatch> BatchSamplerShard::iterWithSplit() const {
  std::vector<IndexBatch> out;
  if (m_base.empty()) {
    return out;
  }
  const std::int64_t bs = m_options.batchSize;
  const std::int64_t slice = bs / m_options.numProcesses;
  const std::int64_t from = slice * m_processIndex;
  const auto take = [&](const IndexBatch& batch) {
    const auto size = static_cast<std::int64_t>(batch.size());
    const std::int64_t end = std::min(size, from + slice);
    return IndexBatch(batch.begin() + std::min(size, from), batch.begin() + end);
  };
  for (const IndexBatch& batch : m_base) {
    if (static_cast<std::int64_t>(batch.size()) == bs) {
      out.push_back(take(batch));
    }
  }
  const IndexBatch& last = m_base.back();
  if (m_options.dropLast || static_cast<std::int64_t>(last.size()) == bs) {
    return out;
  }
  if (!m_options.evenBatches) {
    if (static_cast<std::int64_t>(last.size()) > from) {
      out.push_back(take(last));
    }
    return out;
  }
  // Top up from the first batch, doubled while it is shorter than a batch (datasets smaller than one batch).
  IndexBatch initial = m_base.front();
  while (static_cast<std::int64_t>(initial.size()) < bs) {
    initial.insert(initial.end(), initial.begin(), initial.end());
  }
  IndexBatch padded = last;
  padded.insert(padded.end(), initial.begin(), initial.end());
  out.push_back(take(padded));
  return out;
}

std::vector<IndexBatch> BatchSamplerShard::iterWithNoSplit() const {
  std::vector<IndexBatch> out;
  const std::int64_t bs = m_options.batchSize;
  const std::int64_t p = m_options.numProcesses;
  const std::int64_t rank = m_processIndex;
  IndexBatch initial;
  IndexBatch toYield;
  std::int64_t idx = 0;
  for (; idx < static_cast<std::int64_t>(m_base.size()); ++idx) {
    const IndexBatch& batch = m_base[static_cast<std::size_t>(idx)];
    if (!m_options.dropLast && idx < p) {
      initial.insert(initial.end(), batch.begin(), batch.end());
    }
    if (idx % p == rank) {
      toYield = batch;
    }
    if (idx % p == p - 1 && static_cast<std::int64_t>(batch.size()) == bs) {
      out.push_back(std::move(toYield));
      toYield.clear();
    }
  }
  if (m_options.dropLast || initial.empty()) {
    return out;
  }
  if (!m_options.evenBatches) {
    if (!toYield.empty()) {
      out.push_back(std::move(toYield));
    }
    return out;
  }
  if (static_cast<std::int64_t>(toYield.size()) == bs) {
    out.push_back(std::move(toYield));
  }
  while (static_cast<std::int64_t>(initial.size()) < p * bs) {
    initial.insert(initial.end(), initial.begin(), initial.end());
  }
  // `idx` is one past the last base batch here, as Python's loop variable is not: step back to it.
  --idx;
  IndexBatch batch = m_base.back();
  if (static_cast<std::int64_t>(batch.size()) == bs) {
    batch.clear();
    ++idx;
  }
  // Keep building batches from the start of the data until every rank has had as many as the others.
  std::int64_t cycle = 0;
  while (idx % p != 0 || !batch.empty()) {
    const std::int64_t end = cycle + bs - static_cast<std::int64_t>(batch.size());
    batch.insert(batch.end(), initial.begin() + cycle, initial.begin() + end);
    if (idx % p == rank) {
      out.push_back(batch);
    }
    cycle = end;
    batch.clear();
    ++idx;
  }
  return out;
}

}  // namespace fathom::data
