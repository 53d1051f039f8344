// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/models/model.h>
#include <fathom/parallel/comm.h>
#include <fathom/parallel/ddp_engine.h>
#include <fathom/parallel/fully_sharded_engine.h>
#include <fathom/parallel/zero_engine.h>
#include <fathom/precision/grad_scaler.h>
#include <fathom/profile/annotations.h>
#include <fathom/runtime/process_group.h>
#include <fathom/telemetry/sqlite_tracker.h>
#include <fathom/train/accelerator.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/nn/utils/clip_grad.h>
#include <torch/utils.h>

#include <algorithm>
#include <cstdlib>
#include <unordered_set>

namespace fathom::train {

namespace {

/// The setup this process trains with, in the workspace's vocabulary (what the `sqlite` tracker records).
store::RunSetup runSetup(const ResolvedAcceleratorOptions& options, precision::MixedPrecision mixedPrecision) {
  store::RunSetup setup;
  if (options.fsdp) {
    setup.strategy.strategy = plan::Strategy::Fsdp;
    setup.strategy.fsdpSharding = options.fsdp->shardingStrategy;
  } else if (options.zero) {
    setup.strategy = store::zeroStageStrategy(options.zero->stage);
  }
  setup.mixedPrecision = precision::toString(mixedPrecision);
  return setup;
}

std::optional<std::string> processEnv(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  if (value == nullptr)
    return std::nullopt;
  return std::string(value);
}

c10::Device torchDevice(const runtime::Device& device) {
  if (device.kind == runtime::Device::Kind::Cpu)
    return c10::Device(c10::kCPU);
  return c10::Device(c10::kCUDA, static_cast<c10::DeviceIndex>(std::max(device.index, 0)));
}

}  // namespace

SyncPause::~SyncPause() {
  for (parallel::DataParallelEngine* engine : m_paused)
    engine->setRequireGradSync(true);
}

ProcessFirst::ProcessFirst(Accelerator& accelerator, bool first) : m_accelerator(accelerator), m_first(first) {
  if (!m_first)
    m_accelerator.waitForEveryone();
}

ProcessFirst::~ProcessFirst() noexcept(false) {
  // Not while unwinding: the other processes may never reach the barrier, and throwing here would terminate.
  if (m_first && std::uncaught_exceptions() == 0)
    m_accelerator.waitForEveryone();
}

Accelerator::Accelerator(AcceleratorOptions options)
    : Accelerator(options, runtime::ProcessState::fromEnvironment({.cpu = options.cpu})) {}

Accelerator::Accelerator(AcceleratorOptions options, runtime::ProcessState state)
    : m_state(std::move(state)), m_options(resolveAcceleratorOptions(options, processEnv)),
      m_gradientState(m_options.gradientAccumulationSteps, options.gradientAccumulation.syncWithDataloader) {
  using runtime::DistributedType;
  const DistributedType type = m_state.distributedType();
  FATHOM_CHECK(type != DistributedType::MegatronLm, ConfigError, "distributed_type ", runtime::toString(type),
               " is not supported by fathom::Accelerator (it runs NO, MULTI_CPU, MULTI_GPU, FSDP and DEEPSPEED)");
  const checkpoint::CheckpointOptions& checkpoints = m_options.raw.checkpoint;
  FATHOM_CHECK(!checkpoints.totalLimit || *checkpoints.totalLimit >= 1, ConfigError,
               "checkpoint total_limit must be >= 1, got ", checkpoints.totalLimit.value_or(0));
  FATHOM_CHECK(checkpoints.iteration >= 0, ConfigError, "checkpoint iteration must be >= 0, got ",
               checkpoints.iteration);
  m_saveIteration = checkpoints.iteration;
  m_device = options.cpu ? c10::Device(c10::kCPU) : torchDevice(m_state.device());
  if (m_state.useDistributed()) {
    m_group = m_state.joinProcessGroup(options.processGroup);
    m_comm = std::make_unique<parallel::Comm>(*m_group);
    if (m_options.fsdp && config::isHybrid(m_options.fsdp->shardingStrategy))
      joinHybridGroups();
  }
  if (m_options.mixedPrecision == precision::MixedPrecision::Fp16) {
    m_scaler = std::make_unique<precision::GradScaler>(options.gradScaler);
    if (m_comm && (m_options.fsdp || m_options.zero)) {
      m_scaler->setFoundInfReduction([this](bool found) {
        at::Tensor flag = at::scalar_tensor(found ? 1.0 : 0.0, at::kFloat);
        m_comm->allReduce(flag, runtime::ReduceOp::Max, "amp.found_inf");
        return flag.item<float>() > 0;
      });
    }
  }
}

void Accelerator::joinHybridGroups() {
  // HYBRID_SHARD(_ZERO2): parameters are sharded within a node (consecutive ranks) and replicated across nodes.
  const int world = numProcesses();
  const int size = m_options.fsdp->shardGroupSize > 0 ? m_options.fsdp->shardGroupSize : m_state.localNumProcesses();
  FATHOM_CHECK(size >= 1 && world % size == 0, ConfigError,
               parallel::fsdpShardingName(m_options.fsdp->shardingStrategy), ": the shard group size (", size,
               ", fsdp_hybrid_group_size or the ranks per machine) must divide the number of processes (", world, ")");
  const int rank = processIndex();
  const int node = rank / size;
  // Every rank creates every group it belongs to, in the same order: its node's, then its replica set's.
  std::vector<int> shard;
  for (int r = node * size; r < (node + 1) * size; ++r)
    shard.push_back(r);
  std::vector<int> replicas;
  for (int r = rank % size; r < world; r += size)
    replicas.push_back(r);
  const std::string shardName = "hybrid.shard." + std::to_string(node);
  const std::string replicaName = "hybrid.replica." + std::to_string(rank % size);
  m_shardGroup = m_group->newGroup(shard, shardName);
  m_replicaGroup = m_group->newGroup(replicas, replicaName);
  // Their collectives are recorded with the world's: one recorder per rank, so step totals cover all groups (and
  // the wavefront the heartbeats report numbers every call of this rank in one sequence).
  m_shardComm = std::make_unique<parallel::Comm>(*m_shardGroup, m_comm->recorderHandle(), shardName);
  m_replicaComm = std::make_unique<parallel::Comm>(*m_replicaGroup, m_comm->recorderHandle(), replicaName);
}

Accelerator::~Accelerator() {
  // Engines hold hooks that reference the Comms; they go first.
  m_engines.clear();
}

std::string Accelerator::describe() const {
  return m_state.describe() + "\nMixed precision type: " + precision::toString(m_options.mixedPrecision) + "\n";
}

// ---- prepare ---------------------------------------------------------------------------------------------------

std::string Accelerator::strategy() const {
  if (m_options.fsdp)
    return "fsdp";
  if (m_options.zero)
    return "zero" + std::to_string(m_options.zero->stage);
  return "ddp";
}

std::unique_ptr<parallel::DataParallelEngine>
Accelerator::makeEngine(const std::shared_ptr<torch::nn::Module>& module) {
  // The built-in models name their block class; Accelerate's default for fsdp_transformer_layer_cls_to_wrap is
  // the model's _no_split_modules, the same thing.
  std::vector<std::string> blockClasses;
  const auto* builtin = dynamic_cast<const models::Model*>(module.get());
  if (builtin != nullptr)
    blockClasses.push_back(builtin->repeatedBlockType());
  if (m_options.fsdp) {
    parallel::FullyShardedConfig config = parallel::FullyShardedConfig::fromFsdp(*m_options.fsdp);
    if (config.unitClassNames.empty())
      config.unitClassNames = blockClasses;
    config.rootOpensScope = builtin != nullptr;  // models::Model's forward opens the root's UnitScope
    parallel::Comm* shard = m_shardComm ? m_shardComm.get() : m_comm.get();
    return std::make_unique<parallel::FullyShardedEngine>(module, shard, m_replicaComm.get(), config);
  }
  if (m_options.zero && m_options.zero->stage == 3) {
    parallel::FullyShardedConfig config = parallel::FullyShardedConfig::fromZero3(*m_options.zero);
    config.unitClassNames = blockClasses;
    config.rootOpensScope = builtin != nullptr;
    if (blockClasses.empty())
      config.wrapPolicy = parallel::FsdpWrapPolicy::NoWrap;
    return std::make_unique<parallel::FullyShardedEngine>(module, m_comm.get(), nullptr, config);
  }
  if (m_options.zero && m_comm)
    return std::make_unique<parallel::ZeroEngine>(module, *m_comm, *m_options.zero);
  // ZeRO-1/2 in one process: nothing to partition; the parameters, gradients and states are DDP's.
  return std::make_unique<parallel::DdpEngine>(module, m_comm.get(), m_options.raw.ddp);
}

void Accelerator::prepareModule(const std::shared_ptr<torch::nn::Module>& module) {
  FATHOM_CHECK(module != nullptr, ConfigError, "prepare: the model is null");
  if (engineFor(*module) != nullptr)
    return;  // prepared before: its engine already synchronizes (or shards) it; preparing again changes nothing
  module->to(m_device);
  m_engines.push_back(makeEngine(module));
  // Setup (the engines' initial broadcasts) is step 0; from here on collectives belong to the first step.
  if (m_comm)
    m_comm->markStep(m_optimizerSteps + 1);
  // Optimizers prepared before their model (prepare(optimizer, model)) are bound now.
  for (const auto& weak : m_optimizers) {
    if (auto optimizer = weak.lock())
      bindEngines(optimizer->optimizer());
  }
}

void Accelerator::bindEngines(torch::optim::Optimizer& optimizer) {
  std::unordered_set<const c10::TensorImpl*> held;
  for (const auto& group : optimizer.param_groups()) {
    for (const at::Tensor& p : group.params())
      held.insert(p.unsafeGetTensorImpl());
  }
  for (const auto& engine : m_engines) {
    const bool bound = std::any_of(m_bindings.begin(), m_bindings.end(),
                                   [&](const auto& b) { return b.first == &optimizer && b.second == engine.get(); });
    if (bound)
      continue;
    const auto params = engine->module()->parameters(/*recurse=*/true);
    const bool holds = std::any_of(params.begin(), params.end(),
                                   [&](const at::Tensor& p) { return held.count(p.unsafeGetTensorImpl()) > 0; });
    if (!holds)
      continue;
    engine->bindOptimizer(optimizer);
    m_bindings.emplace_back(&optimizer, engine.get());
  }
}

void Accelerator::runStepHooks(const torch::optim::Optimizer& optimizer, bool after) {
  for (const auto& [bound, engine] : m_bindings) {
    if (bound != &optimizer)
      continue;
    if (after) {
      engine->afterOptimizerStep();
    } else {
      engine->beforeOptimizerStep();
    }
  }
}

std::shared_ptr<AcceleratedOptimizer>
Accelerator::prepareOptimizer(std::shared_ptr<torch::optim::Optimizer> optimizer) {
  FATHOM_CHECK(optimizer != nullptr, ConfigError, "prepare: the optimizer is null");
  torch::optim::Optimizer* raw = optimizer.get();
  bindEngines(*raw);
  auto prepared = std::make_shared<AcceleratedOptimizer>(
      std::move(optimizer), m_gradientState, m_scaler.get(),
      [this, raw] {
        runStepHooks(*raw, /*after=*/true);
        onOptimizerStep();
      },
      [this, raw] { runStepHooks(*raw, /*after=*/false); });
  m_optimizers.push_back(prepared);
  return prepared;
}

std::shared_ptr<AcceleratedScheduler>
Accelerator::prepareScheduler(std::shared_ptr<torch::optim::LRScheduler> scheduler) {
  FATHOM_CHECK(scheduler != nullptr, ConfigError, "prepare: the scheduler is null");
  SchedulerStepping stepping;
  stepping.stepWithOptimizer = m_options.raw.stepSchedulerWithOptimizer;
  stepping.splitBatches = m_options.raw.dataLoader.splitBatches;
  stepping.numProcesses = numProcesses();
  auto prepared = std::make_shared<AcceleratedScheduler>(std::move(scheduler), m_gradientState, stepping,
                                                         [this] { return optimizerStepWasSkipped(); });
  m_schedulers.push_back(prepared);
  return prepared;
}

ShardContext Accelerator::shardContext() {
  ShardContext context;
  context.processIndex = processIndex();
  context.numProcesses = numProcesses();
  context.device = m_device;
  context.comm = m_comm.get();
  context.state = &m_gradientState;
  context.config = m_options.raw.dataLoader;
  return context;
}

std::shared_ptr<DataLoaderShard> Accelerator::prepareDataLoader(data::DataLoader loader) {
  auto prepared = std::make_shared<DataLoaderShard>(std::move(loader), shardContext());
  m_loaders.push_back(prepared);
  return prepared;
}

std::shared_ptr<DataLoaderShard> Accelerator::skipFirstBatches(const std::shared_ptr<DataLoaderShard>& loader,
                                                               std::int64_t numBatches) {
  FATHOM_CHECK(loader != nullptr, ConfigError, "skip_first_batches: the loader is null");
  auto skipped = std::make_shared<DataLoaderShard>(loader->base(), loader->context(), numBatches);
  skipped->setEpoch(loader->epoch());
  return skipped;
}

const parallel::DdpReducer* Accelerator::reducerFor(const torch::nn::Module& module) const {
  const auto* ddp = dynamic_cast<const parallel::DdpEngine*>(engineFor(module));
  return ddp != nullptr ? ddp->reducer() : nullptr;
}

const parallel::DataParallelEngine* Accelerator::engineFor(const torch::nn::Module& module) const {
  for (const auto& engine : m_engines) {
    if (engine->module().get() == &module)
      return engine.get();
  }
  return nullptr;
}

parallel::ModelStateBytes Accelerator::modelStateBytes() const {
  std::vector<const torch::optim::Optimizer*> optimizers;
  for (const auto& weak : m_optimizers) {
    if (auto optimizer = weak.lock())
      optimizers.push_back(&optimizer->optimizer());
  }
  parallel::ModelStateBytes total;
  auto add = [](parallel::StateCategoryBytes& to, const parallel::StateCategoryBytes& from) {
    for (const auto& field : parallel::kStateCategoryFields)
      to.*field.member += from.*field.member;
  };
  for (const auto& engine : m_engines) {
    const parallel::ModelStateBytes b = engine->stateBytes(optimizers);
    add(total.device, b.device);
    add(total.host, b.host);
    total.peakGatheredParameters += b.peakGatheredParameters;
    total.communicationBuffers += b.communicationBuffers;
  }
  return total;
}

// ---- training --------------------------------------------------------------------------------------------------

void Accelerator::backward(const at::Tensor& loss) {
  FATHOM_CHECK(loss.defined(), ConfigError, "backward: the loss is an undefined tensor");
  m_stepOpen = true;
  at::Tensor scaled = loss;
  if (gradientAccumulationSteps() > 1)
    scaled = scaled / gradientAccumulationSteps();
  if (m_scaler)
    scaled = m_scaler->scale(scaled);
  profile::RecordFunction span("fathom::backward", profile::Phase::Backward);
  scaled.backward();
  // Until the optimizer steps, nothing allocated is part of a forward pass (clipping, logging).
  profile::hooks::setBasePhase(profile::Phase::None);
}

void Accelerator::onOptimizerStep() {
  // Several optimizers step on the same batch: count the batch once.
  if (m_stepOpen || m_optimizerSteps == 0)
    ++m_optimizerSteps;
  m_stepOpen = false;
  // What follows (the next forward: FSDP / ZeRO-3 gather there) belongs to the next step.
  if (m_comm)
    m_comm->markStep(m_optimizerSteps + 1);
}

SyncPause Accelerator::accumulate() {
  return accumulateModules({});
}

SyncPause Accelerator::accumulateModules(const std::vector<const torch::nn::Module*>& modules) {
  m_gradientState.advance();
  if (m_gradientState.syncGradients() || m_options.raw.gradientAccumulation.syncEachBatch)
    return SyncPause({});
  return pauseModules(modules);
}

SyncPause Accelerator::pauseModules(const std::vector<const torch::nn::Module*>& modules) {
  std::vector<parallel::DataParallelEngine*> paused;
  for (const auto& engine : m_engines) {
    const bool selected =
        modules.empty() || std::find(modules.begin(), modules.end(), engine->module().get()) != modules.end();
    // DeepSpeed ZeRO-2/3 reduce on every micro-step: accumulate() does not pause them.
    if (selected && engine->requireGradSync() && !engine->reducesEveryMicroStep()) {
      engine->setRequireGradSync(false);
      paused.push_back(engine.get());
    }
  }
  return SyncPause(std::move(paused));
}

void Accelerator::unscaleGradients() {
  if (!m_scaler)
    return;
  for (const auto& weak : m_optimizers) {
    if (auto optimizer = weak.lock())
      m_scaler->unscale_(optimizer->optimizer());
  }
}

double Accelerator::clipGradNorm_(const std::vector<at::Tensor>& parameters, double maxNorm, double normType) {
  unscaleGradients();
  // Sharded strategies hold the gradients in their shards, not in the parameters the loop passes: the engine
  // of the model they belong to clips across ranks (Accelerate calls FSDP's model.clip_grad_norm_ likewise).
  std::unordered_set<const c10::TensorImpl*> given;
  for (const at::Tensor& p : parameters)
    given.insert(p.unsafeGetTensorImpl());
  for (const auto& engine : m_engines) {
    if (engine->strategy() == "ddp")
      continue;
    const auto params = engine->module()->parameters(/*recurse=*/true);
    if (std::any_of(params.begin(), params.end(),
                    [&](const at::Tensor& p) { return given.count(p.unsafeGetTensorImpl()) > 0; })) {
      return engine->clipGradNorm(maxNorm, normType);
    }
  }
  return torch::nn::utils::clip_grad_norm_(parameters, maxNorm, normType);
}

void Accelerator::clipGradValue_(const std::vector<at::Tensor>& parameters, double clipValue) {
  unscaleGradients();
  torch::nn::utils::clip_grad_value_(parameters, clipValue);
}

bool Accelerator::optimizerStepWasSkipped() const {
  return std::any_of(m_optimizers.begin(), m_optimizers.end(), [](const auto& weak) {
    auto optimizer = weak.lock();
    return optimizer && optimizer->stepWasSkipped();
  });
}

AutocastRegion Accelerator::autocast(precision::AutocastOptions options) const {
  const auto dtype = precision::autocastDtype(m_options.mixedPrecision, m_device.type());
  if (!dtype)
    return AutocastRegion();
  return AutocastRegion(m_device.type(), *dtype, options);
}

void Accelerator::setSeed(std::uint64_t seed, bool deviceSpecific) const {
  torch::manual_seed(seed + (deviceSpecific ? static_cast<std::uint64_t>(processIndex()) : 0));
}

// ---- trackers --------------------------------------------------------------------------------------------------

void Accelerator::initTrackers(const std::string& projectName, const nlohmann::json& config,
                               const std::string& runName) {
  track::TrackerOptions options;
  options.projectName = projectName;
  options.projectDir = m_options.raw.projectDir;
  options.loggingDir = m_options.raw.loggingDir;
  options.runName = runName;
  options.workspace = m_options.workspace;
  // The workspace's sqlite tracker is always on (docs/trackers.md), on every process; the Accelerator keeps a typed
  // handle to it for what only it takes (this process's setup, memory samples, log lines, traces).
  auto workspace = std::make_unique<telemetry::SqliteTracker>(options);
  telemetry::SqliteTracker* handle = workspace.get();
  handle->recordSetup(runSetup(m_options, mixedPrecision()), numProcesses());
  track::TrackerGroup trackers({}, options, isMainProcess());
  trackers.add(std::move(workspace));
  std::vector<std::string> names{telemetry::registerSqliteTracker()};
  for (const std::string& entry : m_options.raw.logWith) {
    for (std::string& name : track::parseLogWith(entry)) {
      if (std::find(names.begin(), names.end(), name) == names.end()) {
        trackers.add(track::makeTracker(name, options));
        names.push_back(std::move(name));
      }
    }
  }
  m_trackers = std::move(trackers);
  m_workspace = handle;
  // Heartbeats carry this rank's collective wavefront, read by the sender's own thread (hang detection works while
  // this thread is blocked inside a collective).
  if (m_comm)
    handle->watchCollectives(m_comm->recorder().wavefront());
  if (!config.is_null())
    m_trackers.storeInitConfiguration(config);
}

void Accelerator::log(const track::LogValues& values, std::optional<std::int64_t> step) {
  m_trackers.log(values, step);
}

void Accelerator::endTraining() {
  m_trackers.finish();
  waitForEveryone();
}

// ---- communication records -------------------------------------------------------------------------------------

std::vector<parallel::CommRecord> Accelerator::commRecords() const {
  return m_comm ? m_comm->records() : std::vector<parallel::CommRecord>{};
}

std::optional<parallel::StepTotals> Accelerator::commStepTotals(std::int64_t step) const {
  return m_comm ? m_comm->stepTotals(step) : std::nullopt;
}

std::vector<parallel::StepTotals> Accelerator::allCommStepTotals() const {
  return m_comm ? m_comm->allStepTotals() : std::vector<parallel::StepTotals>{};
}

}  // namespace fathom::train
