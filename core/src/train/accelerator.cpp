// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/error.h>
#include <fathom/parallel/comm.h>
#include <fathom/parallel/ddp_reducer.h>
#include <fathom/precision/grad_scaler.h>
#include <fathom/runtime/process_group.h>
#include <fathom/train/accelerator.h>

#include <ATen/ATen.h>
#include <nlohmann/json.hpp>
#include <torch/nn/utils/clip_grad.h>
#include <torch/utils.h>

#include <algorithm>
#include <cstdlib>

namespace fathom::train {

namespace {

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
  for (parallel::DdpReducer* reducer : m_paused)
    reducer->setRequireGradSync(true);
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
  FATHOM_CHECK(type == DistributedType::No || type == DistributedType::MultiCpu || type == DistributedType::MultiGpu,
               ConfigError, "distributed_type ", runtime::toString(type),
               " is not supported by fathom::Accelerator yet (it runs NO, MULTI_CPU and MULTI_GPU)");
  m_device = options.cpu ? c10::Device(c10::kCPU) : torchDevice(m_state.device());
  if (m_state.useDistributed()) {
    m_group = m_state.joinProcessGroup(options.processGroup);
    m_comm = std::make_unique<parallel::Comm>(*m_group);
  }
  if (m_options.mixedPrecision == precision::MixedPrecision::Fp16) {
    m_scaler = std::make_unique<precision::GradScaler>(options.gradScaler);
  }
}

Accelerator::~Accelerator() {
  // Reducers hold hooks that reference the Comm; they go first.
  m_reducers.clear();
}

std::string Accelerator::describe() const {
  return m_state.describe() + "\nMixed precision type: " + precision::toString(m_options.mixedPrecision) + "\n";
}

// ---- prepare ---------------------------------------------------------------------------------------------------

void Accelerator::prepareModule(const std::shared_ptr<torch::nn::Module>& module) {
  FATHOM_CHECK(module != nullptr, ConfigError, "prepare: the model is null");
  FATHOM_CHECK(reducerFor(*module) == nullptr, ConfigError, "prepare: this model was already prepared");
  module->to(m_device);
  if (m_comm)
    m_reducers.push_back(std::make_unique<parallel::DdpReducer>(module, *m_comm, m_options.raw.ddp));
}

std::shared_ptr<AcceleratedOptimizer>
Accelerator::prepareOptimizer(std::shared_ptr<torch::optim::Optimizer> optimizer) {
  FATHOM_CHECK(optimizer != nullptr, ConfigError, "prepare: the optimizer is null");
  auto prepared = std::make_shared<AcceleratedOptimizer>(std::move(optimizer), m_gradientState, m_scaler.get(),
                                                         [this] { onOptimizerStep(); });
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
  return std::make_shared<AcceleratedScheduler>(std::move(scheduler), m_gradientState, stepping,
                                                [this] { return optimizerStepWasSkipped(); });
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
  return std::make_shared<DataLoaderShard>(std::move(loader), shardContext());
}

std::shared_ptr<DataLoaderShard> Accelerator::skipFirstBatches(const std::shared_ptr<DataLoaderShard>& loader,
                                                               std::int64_t numBatches) {
  FATHOM_CHECK(loader != nullptr, ConfigError, "skip_first_batches: the loader is null");
  auto skipped = std::make_shared<DataLoaderShard>(loader->base(), loader->context(), numBatches);
  skipped->setEpoch(loader->epoch());
  return skipped;
}

const parallel::DdpReducer* Accelerator::reducerFor(const torch::nn::Module& module) const {
  for (const auto& reducer : m_reducers) {
    if (reducer->module().get() == &module)
      return reducer.get();
  }
  return nullptr;
}

// ---- training --------------------------------------------------------------------------------------------------

void Accelerator::backward(const at::Tensor& loss) {
  FATHOM_CHECK(loss.defined(), ConfigError, "backward: the loss is an undefined tensor");
  if (!m_stepOpen) {
    // Collectives from here to the optimizer step belong to step m_optimizerSteps + 1.
    if (m_comm)
      m_comm->markStep(m_optimizerSteps + 1);
    m_stepOpen = true;
  }
  at::Tensor scaled = loss;
  if (gradientAccumulationSteps() > 1)
    scaled = scaled / gradientAccumulationSteps();
  if (m_scaler)
    scaled = m_scaler->scale(scaled);
  scaled.backward();
}

void Accelerator::onOptimizerStep() {
  // Several optimizers step on the same batch: count the batch once.
  if (m_stepOpen || m_optimizerSteps == 0)
    ++m_optimizerSteps;
  m_stepOpen = false;
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
  std::vector<parallel::DdpReducer*> paused;
  for (const auto& reducer : m_reducers) {
    const bool selected =
        modules.empty() || std::find(modules.begin(), modules.end(), reducer->module().get()) != modules.end();
    if (selected && reducer->requireGradSync()) {
      reducer->setRequireGradSync(false);
      paused.push_back(reducer.get());
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
  std::vector<std::string> names;
  for (const std::string& entry : m_options.raw.logWith) {
    for (std::string& name : track::parseLogWith(entry)) {
      if (std::find(names.begin(), names.end(), name) == names.end())
        names.push_back(std::move(name));
    }
  }
  m_trackers = track::TrackerGroup(names, options, isMainProcess());
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
