// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/data/batch_sampler_shard.h>
#include <fathom/parallel/comm.h>
#include <fathom/profile/annotations.h>
#include <fathom/train/data_loader_shard.h>
#include <fathom/train/gradient_state.h>

#include <ATen/ATen.h>

#include <array>
#include <deque>
#include <string_view>

namespace fathom::train {

const char* toString(ShardMode mode) {
  switch (mode) {
  case ShardMode::BatchSampler: return "batch_sampler";
  case ShardMode::IterableShard: return "iterable_shard";
  case ShardMode::Dispatch: return "dispatch";
  }
  return "?";
}

/// One pass over the loader, shared by the copies of its iterators. It reads one batch ahead so the loader
/// knows when it yields the last one, and leaves the GradientState when the last copy goes away.
struct DataLoaderShard::Iterator::Run {
  DataLoaderShard* owner = nullptr;
  DataLoaderShard::Producer produce;
  std::optional<data::Batch> current;
  std::optional<data::Batch> next;

  void advance() {
    current = std::move(next);
    next.reset();
    if (current) {
      ++owner->m_yielded;
      profile::RecordFunction span("fathom::data_loader", profile::Phase::DataLoader);
      next = produce();
    }
    owner->m_endOfDataloader = current.has_value() && !next.has_value();
  }
  ~Run() { owner->iterationEnded(); }
};

const data::Batch& DataLoaderShard::Iterator::operator*() const {
  FATHOM_ASSERT(m_run && m_run->current, "dereferencing a DataLoaderShard iterator at its end");
  return *m_run->current;
}

DataLoaderShard::Iterator& DataLoaderShard::Iterator::operator++() {
  FATHOM_ASSERT(m_run && m_run->current, "incrementing a DataLoaderShard iterator at its end");
  m_run->advance();
  return *this;
}

bool DataLoaderShard::Iterator::atEnd() const {
  return !m_run || !m_run->current;
}

namespace {

data::ShardingOptions shardingFor(const data::DataLoader& loader, const ShardContext& context) {
  data::ShardingOptions sharding;
  sharding.batchSize = loader.options().batchSize;
  sharding.numProcesses = context.numProcesses;
  sharding.splitBatches = context.config.splitBatches;
  sharding.evenBatches = context.config.evenBatches;
  sharding.dropLast = loader.options().dropLast;
  data::validateShardingOptions(sharding);
  data::validateProcessIndex(context.processIndex, context.numProcesses);
  return sharding;
}

// One process: Accelerate's prepare_data_loader leaves the loader unsharded ("No change if no multiprocess"), so
// its batches are the plain BatchSampler's: no even_batches top-up of the last batch.
std::vector<data::IndexBatch> indexBatches(const data::DataLoader& loader, std::int64_t epoch,
                                           const data::ShardingOptions& sharding, int processIndex) {
  if (sharding.numProcesses == 1) {
    return data::makeBatches(loader.sampleOrder(epoch), loader.options().batchSize, loader.options().dropLast);
  }
  return data::BatchSamplerShard(loader.sampleOrder(epoch), sharding, processIndex).batches();
}

data::Batch collateIndices(const data::Dataset& dataset, const data::IndexBatch& indices) {
  return dataset.getBatch(indices);
}

// Dispatch header: [present, then for input and target: dtype, ndim, up to kMaxDims sizes].
constexpr std::int64_t kMaxDims = 8;
constexpr std::int64_t kHeaderSize = 1 + 2 * (2 + kMaxDims);

void writeShape(std::array<std::int64_t, kHeaderSize>& header, std::size_t at, const at::Tensor& t) {
  FATHOM_CHECK(t.dim() <= kMaxDims, ConfigError, "dispatch_batches: a batch tensor has ", t.dim(),
               " dimensions; at most ", kMaxDims, " are supported");
  header[at] = static_cast<std::int64_t>(t.scalar_type());
  header[at + 1] = t.dim();
  for (std::int64_t d = 0; d < t.dim(); ++d)
    header[at + 2 + static_cast<std::size_t>(d)] = t.size(d);
}

at::Tensor emptyFromHeader(const std::int64_t* h, const c10::Device& device) {
  std::vector<std::int64_t> shape(h + 2, h + 2 + h[1]);
  return at::empty(shape, at::TensorOptions().dtype(static_cast<c10::ScalarType>(h[0])).device(device));
}

}  // namespace

DataLoaderShard::DataLoaderShard(data::DataLoader loader, ShardContext context, std::int64_t skipBatches)
    : m_loader(std::move(loader)), m_context(std::move(context)), m_skip(skipBatches) {
  FATHOM_CHECK(m_context.state != nullptr, ConfigError, "DataLoaderShard: no GradientState");
  FATHOM_CHECK(skipBatches >= 0, ConfigError, "skip_first_batches: num_batches must be >= 0 (got ", skipBatches, ")");
  m_sharding = shardingFor(m_loader, m_context);
  const bool dispatch = m_context.config.dispatchBatches.value_or(m_loader.isIterable());
  FATHOM_CHECK(!dispatch || m_context.numProcesses == 1 || m_context.comm != nullptr, ConfigError,
               "dispatch_batches needs a process group");
  if (dispatch && m_context.numProcesses > 1) {
    m_mode = ShardMode::Dispatch;
  } else {
    m_mode = m_loader.isIterable() ? ShardMode::IterableShard : ShardMode::BatchSampler;
  }
}

DataLoaderShard::~DataLoaderShard() = default;

std::int64_t DataLoaderShard::size() const {
  if (m_loader.isIterable())
    return -1;
  std::int64_t batches = 0;
  if (m_mode == ShardMode::Dispatch) {
    // Rank 0 reads `processes` base batches per step (one with split_batches).
    const std::int64_t base = m_loader.size();
    const std::int64_t perStep = m_sharding.splitBatches ? 1 : m_sharding.numProcesses;
    batches = (base + perStep - 1) / perStep;
  } else {
    batches = static_cast<std::int64_t>(indexBatches(m_loader, m_epoch, m_sharding, m_context.processIndex).size());
  }
  return std::max<std::int64_t>(0, batches - m_skip - m_resumeSkip);
}

void DataLoaderShard::setEpoch(std::int64_t epoch) {
  if (epoch != m_epoch) {
    m_resumeSkip = 0;  // a loaded position belongs to its own epoch
    m_activeSkip = 0;
    m_yielded = 0;
  }
  m_epoch = epoch;
  if (m_loader.dataset())
    m_loader.dataset()->setEpoch(epoch);
  if (m_loader.iterableDataset())
    m_loader.iterableDataset()->setEpoch(epoch);
}

data::Batch DataLoaderShard::toDevice(data::Batch batch) const {
  if (m_context.device.is_cpu())
    return batch;
  batch.input = batch.input.to(m_context.device, /*non_blocking=*/true);
  batch.target = batch.target.to(m_context.device, /*non_blocking=*/true);
  return batch;
}

void DataLoaderShard::iterationStarted() {
  FATHOM_CHECK(!m_active, ConfigError,
               "DataLoaderShard: the loader is already being iterated (finish or break the first loop before "
               "starting another over the same loader)");
  m_active = true;
  m_endOfDataloader = false;
  m_activeSkip = m_skip + m_resumeSkip;
  m_resumeSkip = 0;
  m_yielded = 0;
  m_remainder = m_loader.isIterable() ? -1 : data::remainder(m_loader.dataset()->size(), m_sharding);
  m_context.state->pushLoader(this);
}

void DataLoaderShard::iterationEnded() {
  m_active = false;
  m_endOfDataloader = false;
  m_context.state->popLoader(this);
}

DataLoaderShard::Iterator DataLoaderShard::begin() {
  iterationStarted();
  auto run = std::make_shared<Iterator::Run>();
  run->owner = this;
  try {
    run->produce = makeProducer();
    profile::RecordFunction span("fathom::data_loader", profile::Phase::DataLoader);
    run->next = run->produce();
  } catch (...) {
    run.reset();  // leaves the GradientState
    throw;
  }
  run->advance();
  return Iterator(std::move(run));
}

DataLoaderShard::Iterator DataLoaderShard::end() {
  return Iterator();
}

DataLoaderShard::Producer DataLoaderShard::makeProducer() {
  Producer produce;
  switch (m_mode) {
  case ShardMode::BatchSampler: return batchSamplerProducer();
  case ShardMode::IterableShard: produce = iterableShardProducer(); break;
  case ShardMode::Dispatch: produce = dispatchProducer(); break;
  }
  // Iterable and dispatched data have no indices to cut: the skipped batches are read and dropped, as
  // Accelerate's skip_batches does.
  if (m_activeSkip == 0)
    return produce;
  return [produce, toSkip = m_activeSkip]() mutable -> std::optional<data::Batch> {
    for (; toSkip > 0; --toSkip) {
      if (!produce())
        return std::nullopt;
    }
    return produce();
  };
}

DataLoaderShard::Producer DataLoaderShard::batchSamplerProducer() {
  m_loader.dataset()->setEpoch(m_epoch);
  auto batches = std::make_shared<std::vector<data::IndexBatch>>(
      indexBatches(m_loader, m_epoch, m_sharding, m_context.processIndex));
  auto dataset = m_loader.dataset();
  auto position = std::make_shared<std::size_t>(
      static_cast<std::size_t>(std::min<std::int64_t>(m_activeSkip, static_cast<std::int64_t>(batches->size()))));
  return [this, batches, dataset, position]() -> std::optional<data::Batch> {
    if (*position >= batches->size())
      return std::nullopt;
    return toDevice(collateIndices(*dataset, (*batches)[(*position)++]));
  };
}

DataLoaderShard::Producer DataLoaderShard::iterableShardProducer() {
  auto dataset = m_loader.iterableDataset();
  dataset->setEpoch(m_epoch);
  dataset->reset();
  struct State {
    std::vector<data::Example> first;  // the first full buffer, to top up a short final one
    bool done = false;
  };
  auto state = std::make_shared<State>();
  const auto total = static_cast<std::size_t>(m_sharding.totalBatchSize());
  const auto perProcess = static_cast<std::size_t>(m_sharding.processBatchSize());
  const auto begin = static_cast<std::size_t>(m_context.processIndex) * perProcess;
  const bool dropLast = m_sharding.dropLast;
  return [this, dataset, state, total, perProcess, begin, dropLast]() -> std::optional<data::Batch> {
    if (state->done)
      return std::nullopt;
    std::vector<data::Example> buffer;
    buffer.reserve(total);
    while (buffer.size() < total) {
      auto example = dataset->next();
      if (!example)
        break;
      buffer.push_back(std::move(*example));
    }
    if (buffer.size() < total) {
      state->done = true;
      if (buffer.empty() || dropLast)
        return std::nullopt;
      // One process: no IterableDatasetShard upstream, so the short tail is yielded as it is.
      if (m_context.numProcesses == 1)
        return toDevice(data::collate(buffer));
      const std::vector<data::Example> fill = state->first.empty() ? buffer : state->first;
      while (buffer.size() < total)
        buffer.insert(buffer.end(), fill.begin(), fill.end());
    } else if (state->first.empty()) {
      state->first = buffer;
    }
    std::vector<data::Example> mine(buffer.begin() + static_cast<std::ptrdiff_t>(begin),
                                    buffer.begin() + static_cast<std::ptrdiff_t>(begin + perProcess));
    return toDevice(data::collate(mine));
  };
}

DataLoaderShard::Producer DataLoaderShard::dispatchProducer() {
  // Rank 0 iterates the user's loader (per-process batch size; `processes` batches concatenated per step, or one
  // global batch with split_batches) and broadcasts each global batch; every rank slices its part. This is
  // DataLoaderDispatcher.__iter__, including its tail rule: a last batch whose size does not divide by the
  // number of processes gets the first global batch appended, and every rank takes ceil(size / processes) rows.
  struct State {
    std::deque<data::Batch> base;  // rank 0: the user's batches
    std::optional<data::Batch> first;
  };
  auto state = std::make_shared<State>();
  if (m_context.processIndex == 0) {
    for (auto& b : m_loader.batches(m_epoch))
      state->base.push_back(std::move(b));
  }
  return [this, state]() -> std::optional<data::Batch> {
    const int processes = m_context.numProcesses;
    std::array<std::int64_t, kHeaderSize> header{};
    data::Batch global;
    if (m_context.processIndex == 0) {
      const std::size_t take = m_sharding.splitBatches ? 1 : static_cast<std::size_t>(processes);
      std::vector<at::Tensor> inputs, targets;
      for (std::size_t i = 0; i < take && !state->base.empty(); ++i) {
        inputs.push_back(state->base.front().input);
        targets.push_back(state->base.front().target);
        state->base.pop_front();
      }
      if (!inputs.empty()) {
        global.input = at::cat(inputs).to(m_context.device);
        global.target = at::cat(targets).to(m_context.device);
        header[0] = 1;
        writeShape(header, 1, global.input);
        writeShape(header, 1 + 2 + kMaxDims, global.target);
      }
    }
    at::Tensor headerTensor = at::from_blob(header.data(), {kHeaderSize}, at::kLong).clone().to(m_context.device);
    m_context.comm->broadcast(headerTensor, 0, "data.dispatch.header");
    headerTensor = headerTensor.cpu();
    const std::int64_t* h = headerTensor.data_ptr<std::int64_t>();
    if (h[0] == 0)
      return std::nullopt;
    if (m_context.processIndex != 0) {
      global.input = emptyFromHeader(h + 1, m_context.device);
      global.target = emptyFromHeader(h + 1 + 2 + kMaxDims, m_context.device);
    }
    m_context.comm->broadcast(global.input, 0, "data.dispatch.input");
    m_context.comm->broadcast(global.target, 0, "data.dispatch.target");
    if (!state->first)
      state->first = global;

    const std::int64_t observed = global.size();
    std::int64_t perRank = observed / processes;
    // Whether this is the last global batch is known only to rank 0's queue; the header cannot say it without a
    // second look-ahead, so every rank derives it the way Accelerate does: a short batch is the last.
    const bool last = observed < m_sharding.totalBatchSize();
    if (last && !m_sharding.dropLast && observed % processes != 0) {
      global.input = at::cat({global.input, state->first->input});
      global.target = at::cat({global.target, state->first->target});
      perRank += 1;
    }
    if (last)
      m_remainder = observed;
    const std::int64_t from = m_context.processIndex * perRank;
    data::Batch mine;
    mine.input = global.input.slice(0, from, from + perRank);
    mine.target = global.target.slice(0, from, from + perRank);
    return mine;
  };
}

std::int64_t DataLoaderShard::batchesConsumed() const {
  return m_resumeSkip > 0 ? m_skip + m_resumeSkip : m_activeSkip + m_yielded;
}

checkpoint::StateDict DataLoaderShard::stateDict() const {
  checkpoint::StateDict out;
  out.values["format"] = "fathom.data_loader.v1";
  out.values["epoch"] = std::to_string(m_epoch);
  out.values["batches"] = std::to_string(batchesConsumed());
  out.values["seed"] = std::to_string(m_loader.options().seed);
  out.values["shuffle"] = m_loader.options().shuffle ? "true" : "false";
  out.values["dataset_size"] = std::to_string(m_loader.isIterable() ? -1 : m_loader.dataset()->size());
  out.values["batch_size"] = std::to_string(m_loader.options().batchSize);
  out.values["num_processes"] = std::to_string(m_context.numProcesses);
  out.values["total_batch_size"] = std::to_string(totalBatchSize());  // samples per step: resharding maps by it
  out.values["mode"] = toString(m_mode);
  return out;
}

namespace {

/// Where a loader saved by `state` resumes on `loader`: this rank's batches to skip in the saved epoch. The same
/// count on the same number of processes and batch size. Otherwise (a resharded load, docs/checkpoint.md
/// "Resharding") the saved position is a number of samples of the epoch's shuffled order, k steps of T samples,
/// and this run skips k·T / T' steps of its T' samples: exact when T' divides k·T. A position past the epoch's last
/// whole step (its uneven last step, topped up by even_batches according to the number of processes) is the end of
/// the epoch: it was only ever saved once the epoch's last batch was consumed. ConfigError naming `file` when the
/// position cannot be carried over without changing the data order.
std::int64_t resumeBatches(const DataLoaderShard& loader, const checkpoint::StateDict& state,
                           const checkpoint::StateDict& mine, const std::string& file) {
  const std::int64_t epoch = std::stoll(*state.value("epoch"));
  const std::int64_t batches = std::stoll(*state.value("batches"));
  if (*state.value("num_processes") == mine.values.at("num_processes") &&
      *state.value("batch_size") == mine.values.at("batch_size"))
    return batches;
  const std::string what = detail::concat(file, ": the data loader was saved with ", *state.value("num_processes"),
                                          " process(es) and batch_size ", *state.value("batch_size"), ", this one has ",
                                          mine.values.at("num_processes"), " and ", mine.values.at("batch_size"));
  FATHOM_CHECK(loader.mode() == ShardMode::BatchSampler, ConfigError, what, ": a ", toString(loader.mode()),
               " loader's position cannot be carried to another number of processes (only map-style "
               "batch_sampler loaders reshard)");
  const std::string* savedTotal = state.value("total_batch_size");
  FATHOM_CHECK(savedTotal != nullptr, ConfigError, what,
               ": the position has no total_batch_size (saved by an older Fathom), so it cannot be resharded");
  std::int64_t total = 0;
  try {
    total = std::stoll(*savedTotal);
  } catch (const std::logic_error&) {
    throw ConfigError(detail::concat(file, ": total_batch_size '", *savedTotal, "' is not a number"));
  }
  FATHOM_CHECK(total >= 1, ConfigError, file, ": total_batch_size is ", total, ", expected >= 1");
  const std::int64_t size = loader.base().dataset()->size();
  const std::int64_t here = loader.totalBatchSize();
  if (batches > size / total) {
    // The epoch's last (uneven) step was consumed: the epoch is over, on any number of processes.
    return static_cast<std::int64_t>(
        indexBatches(loader.base(), epoch, loader.sharding(), loader.context().processIndex).size());
  }
  const std::int64_t samples = batches * total;
  FATHOM_CHECK(samples % here == 0, ConfigError, what, ": the position is sample ", samples, " of epoch ", epoch, " (",
               batches, " step(s) of ", total, " samples), which is not a whole number of this run's steps of ", here,
               " samples; resuming there would change the data order (choose a batch size whose total divides it)");
  return samples / here;
}

}  // namespace

void DataLoaderShard::checkStateDict(const checkpoint::StateDict& state, const std::string& file) const {
  const checkpoint::StateDict mine = stateDict();
  // On another number of processes the batch size may change too (resumeBatches maps the position, or refuses).
  const std::string* savedProcesses = state.value("num_processes");
  const bool resharded = savedProcesses != nullptr && *savedProcesses != mine.values.at("num_processes");
  for (const char* key : {"seed", "shuffle", "dataset_size", "batch_size", "num_processes", "mode"}) {
    const std::string* saved = state.value(key);
    FATHOM_CHECK(saved != nullptr, ConfigError, file, ": the data loader position has no '", key, "'");
    const bool reshardable =
        std::string_view(key) == "num_processes" || (resharded && std::string_view(key) == "batch_size");
    FATHOM_CHECK(reshardable || *saved == mine.values.at(key), ConfigError, file, ": the data loader was saved with ",
                 key, " ", *saved, ", this one has ", mine.values.at(key),
                 " (its position would not mean the same batches)");
  }
  const std::string* epoch = state.value("epoch");
  const std::string* batches = state.value("batches");
  FATHOM_CHECK(epoch && batches, ConfigError, file, ": the data loader position has no epoch or batches");
  try {
    FATHOM_CHECK(std::stoll(*epoch) >= 0 && std::stoll(*batches) >= 0, ConfigError, file, ": negative epoch ", *epoch,
                 " or batches ", *batches);
    std::stoll(*state.value("num_processes"));
    std::stoll(*state.value("batch_size"));
  } catch (const std::logic_error&) {
    throw ConfigError(detail::concat(file, ": epoch '", *epoch, "', batches '", *batches, "', num_processes or ",
                                     "batch_size is not a number"));
  }
  resumeBatches(*this, state, mine, file);
}

void DataLoaderShard::loadStateDict(const checkpoint::StateDict& state, const std::string& file) {
  checkStateDict(state, file);
  const std::int64_t e = std::stoll(*state.value("epoch"));
  const std::int64_t b = resumeBatches(*this, state, stateDict(), file);
  setEpoch(e);
  m_resumeSkip = std::max<std::int64_t>(0, b - m_skip);  // skipFirstBatches' own skip applies anyway
  m_activeSkip = 0;
  m_yielded = 0;
}

}  // namespace fathom::train
