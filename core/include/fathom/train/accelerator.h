// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/checkpoint/state_dict.h>
#include <fathom/common/log.h>
#include <fathom/data/data_loader.h>
#include <fathom/parallel/comm_record.h>
#include <fathom/parallel/data_parallel_engine.h>
#include <fathom/precision/autocast_guard.h>
#include <fathom/profile/profiler.h>
#include <fathom/runtime/process_state.h>
#include <fathom/track/tracker_registry.h>
#include <fathom/train/accelerated_optimizer.h>
#include <fathom/train/accelerated_scheduler.h>
#include <fathom/train/accelerator_options.h>
#include <fathom/train/data_loader_shard.h>
#include <fathom/train/gradient_state.h>

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <concepts>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace fathom::parallel {
class Comm;
class DdpReducer;
}  // namespace fathom::parallel
namespace fathom::runtime {
class ProcessGroup;
}
namespace fathom::precision {
class GradScaler;
}
namespace fathom::telemetry {
class SqliteTracker;
}
namespace fathom::bigmodel {
struct DispatchRecord;
}

namespace fathom::train {

/// Accelerator::reduce's reductions (Accelerate's "sum", "mean", "max").
enum class Reduction { Sum, Mean, Max };

class Accelerator;

/// An autocast region for the accelerator's mixed precision; does nothing when mixed precision is "no".
class AutocastRegion {
public:
  AutocastRegion(const AutocastRegion&) = delete;
  AutocastRegion& operator=(const AutocastRegion&) = delete;
  /// Whether autocast is on inside the region.
  bool active() const { return m_guard.has_value() && m_guard->enabled(); }

private:
  friend class Accelerator;
  AutocastRegion() = default;
  AutocastRegion(c10::DeviceType device, c10::ScalarType dtype, precision::AutocastOptions options) {
    m_guard.emplace(device, dtype, options);
  }
  std::optional<precision::AutocastGuard> m_guard;
};

/// Restores gradient synchronization of the models it paused (accumulate(), noSync()) when it goes out of scope.
class SyncPause {
public:
  SyncPause(SyncPause&& other) noexcept : m_paused(std::move(other.m_paused)) { other.m_paused.clear(); }
  SyncPause(const SyncPause&) = delete;
  SyncPause& operator=(const SyncPause&) = delete;
  SyncPause& operator=(SyncPause&&) = delete;
  ~SyncPause();

private:
  friend class Accelerator;
  explicit SyncPause(std::vector<parallel::DataParallelEngine*> paused) : m_paused(std::move(paused)) {}
  std::vector<parallel::DataParallelEngine*> m_paused;
};

/// Runs its body on the main process before the others (Accelerate's main_process_first()): the others wait at a
/// barrier on entry, the main process at one on exit.
class ProcessFirst {
public:
  ProcessFirst(const ProcessFirst&) = delete;
  ProcessFirst& operator=(const ProcessFirst&) = delete;
  ~ProcessFirst() noexcept(false);

private:
  friend class Accelerator;
  ProcessFirst(Accelerator& accelerator, bool first);
  Accelerator& m_accelerator;
  bool m_first;
};

template <typename T>
concept SharedModule = requires {
  typename T::element_type;
}
&&std::derived_from<typename T::element_type, torch::nn::Module>&&
    std::same_as<T, std::shared_ptr<typename T::element_type>>;
template <typename T>
concept ModuleHolderType = requires(T holder) {
  typename T::ContainedType;
  { holder.ptr() } -> std::convertible_to<std::shared_ptr<typename T::ContainedType>>;
};
template <typename T>
concept SharedOptimizer = requires {
  typename T::element_type;
}
&&std::derived_from<typename T::element_type, torch::optim::Optimizer>&&
    std::same_as<T, std::shared_ptr<typename T::element_type>>;
template <typename T>
concept SharedScheduler = requires {
  typename T::element_type;
}
&&std::derived_from<typename T::element_type, torch::optim::LRScheduler>&&
    std::same_as<T, std::shared_ptr<typename T::element_type>>;

/// fathom::Accelerator: Accelerate's Accelerator for C++ LibTorch loops. A plain single-process loop becomes
/// distributed data-parallel training with a few lines:
///
///     fathom::Accelerator accelerator({.gradientAccumulationSteps = 4});
///     auto [model, optimizer, loader] = accelerator.prepare(model0, optimizer0, loader0);
///     for (const auto& batch : *loader) {
///       auto sync = accelerator.accumulate();
///       auto output = [&] { auto ac = accelerator.autocast(); return model->forward(batch.input); }();
///       accelerator.backward(loss_fn(output, batch.target));
///       optimizer->step();
///       optimizer->zeroGrad();
///     }
///
/// The process's place in the run comes from the environment `fathom launch` (or `accelerate launch`,
/// torchrun, srun) sets; with more than one process the constructor joins the process group (Gloo on CPU,
/// NCCL on CUDA) and every collective afterwards goes through one recorded parallel::Comm. Methods map 1:1 to
/// Accelerate's, in camelCase (docs/train.md has the table). Use from one thread. Collectives (gather, reduce,
/// waitForEveryone, ...) must be called by every process in the same order.
class Accelerator {
public:
  /// Reads the process state from the environment and joins the group. Throws ConfigError for invalid options
  /// (named) or a distributed type Fathom does not run yet, CommError when the rendezvous fails.
  explicit Accelerator(AcceleratorOptions options = {});
  /// Same, with a given process state (tests, embedding).
  Accelerator(AcceleratorOptions options, runtime::ProcessState state);
  ~Accelerator();
  Accelerator(const Accelerator&) = delete;
  Accelerator& operator=(const Accelerator&) = delete;

  // ---- state ---------------------------------------------------------------------------------------------------
  int processIndex() const { return m_state.processIndex(); }
  int localProcessIndex() const { return m_state.localProcessIndex(); }
  int numProcesses() const { return m_state.numProcesses(); }
  bool isMainProcess() const { return m_state.isMainProcess(); }
  bool isLocalMainProcess() const { return m_state.isLocalMainProcess(); }
  bool isLastProcess() const { return m_state.isLastProcess(); }
  runtime::DistributedType distributedType() const { return m_state.distributedType(); }
  /// The device models and batches are placed on.
  c10::Device device() const { return m_device; }
  precision::MixedPrecision mixedPrecision() const { return m_options.mixedPrecision; }
  const runtime::ProcessState& state() const { return m_state; }
  const ResolvedAcceleratorOptions& options() const { return m_options; }
  int gradientAccumulationSteps() const { return m_gradientState.accumulationSteps(); }
  void setGradientAccumulationSteps(int steps) { m_gradientState.setAccumulationSteps(steps); }
  /// Whether the current batch synchronizes gradients (and the optimizer steps).
  bool syncGradients() const { return m_gradientState.syncGradients(); }
  void setSyncGradients(bool sync) { m_gradientState.setSyncGradients(sync); }
  /// The accumulation counter (Accelerate's `accelerator.step`).
  std::int64_t step() const { return m_gradientState.step(); }
  /// Optimizer steps taken (sync batches on which a prepared optimizer stepped, skipped ones included).
  std::int64_t optimizerSteps() const { return m_optimizerSteps; }
  GradientState& gradientState() { return m_gradientState; }
  /// Accelerate's state repr, plus the mixed precision.
  std::string describe() const;

  // ---- prepare -------------------------------------------------------------------------------------------------
  /// Prepares models, optimizers, LR schedulers and data loaders, in any order, and returns them in the same
  /// order: models (std::shared_ptr<Module> or a ModuleHolder) come back as themselves, moved to the device and,
  /// with several processes, synchronized by DDP; optimizers as AcceleratedOptimizer; schedulers as
  /// AcceleratedScheduler; data::DataLoader as DataLoaderShard. Anything else passes through unchanged.
  template <typename... Ts> auto prepare(Ts&&... objects) {
    return std::tuple{prepareOne(std::forward<Ts>(objects))...};
  }
  template <typename M>
  requires std::derived_from<M, torch::nn::Module> std::shared_ptr<M> prepareModel(std::shared_ptr<M> model) {
    prepareModule(model);
    return model;
  }
  std::shared_ptr<AcceleratedOptimizer> prepareOptimizer(std::shared_ptr<torch::optim::Optimizer> optimizer);
  std::shared_ptr<AcceleratedScheduler> prepareScheduler(std::shared_ptr<torch::optim::LRScheduler> scheduler);
  std::shared_ptr<DataLoaderShard> prepareDataLoader(data::DataLoader loader);
  /// The prepared model itself (there is no wrapper to strip in C++); for code written against Accelerate.
  template <typename M> M unwrapModel(M model) const { return model; }

  // ---- training ------------------------------------------------------------------------------------------------
  /// Divides the loss by the accumulation steps, scales it under fp16 and runs the backward pass; with several
  /// processes gradients are averaged across them on sync batches (overlapping the backward pass).
  void backward(const at::Tensor& loss);
  /// Starts one batch of gradient accumulation: advances the counter (sync every k-th batch and on the last
  /// batch of the loader) and, on non-sync batches, pauses gradient synchronization of every prepared model
  /// (or of `models` only) until the returned object goes out of scope.
  [[nodiscard]] SyncPause accumulate();
  template <typename... Ms> [[nodiscard]] SyncPause accumulate(const Ms&... models) {
    return accumulateModules({moduleOf(models)...});
  }
  /// torch's no_sync(): no gradient synchronization for `model` until the returned object goes out of scope.
  template <typename M> [[nodiscard]] SyncPause noSync(const M& model) { return pauseModules({moduleOf(model)}); }
  /// Unscales (fp16) and clips the gradients' total norm; returns the norm before clipping.
  double clipGradNorm_(const std::vector<at::Tensor>& parameters, double maxNorm, double normType = 2.0);
  /// Unscales (fp16) and clamps every gradient element to [-clipValue, clipValue].
  void clipGradValue_(const std::vector<at::Tensor>& parameters, double clipValue);
  /// Unscales the gradients of every prepared optimizer (fp16); nothing otherwise.
  void unscaleGradients();
  /// Whether a prepared optimizer skipped its last step (fp16 overflow).
  bool optimizerStepWasSkipped() const;
  /// An autocast region for the mixed precision (bf16/fp16); inactive for "no". Throws ConfigError where the
  /// device or LibTorch cannot autocast to that type (fp16 on the CPU needs LibTorch >= 2.3).
  [[nodiscard]] AutocastRegion autocast(precision::AutocastOptions options = {}) const;
  /// The fp16 loss scaler, or nullptr.
  precision::GradScaler* scaler() { return m_scaler.get(); }

  // ---- collectives ---------------------------------------------------------------------------------------------
  /// Every process's tensor concatenated on dim 0 in rank order (0-dim tensors become one row each). Shapes
  /// must agree. A single process gets the tensor back.
  at::Tensor gather(const at::Tensor& tensor);
  /// gather() for evaluation: first dims may differ by rank, and on the last batch of a prepared loader the
  /// result is cut to the loader's remainder, dropping the samples even_batches duplicated.
  at::Tensor gatherForMetrics(const at::Tensor& tensor);
  /// All-reduce of a copy: sum, mean (sum / processes) or max, then times `scale`.
  at::Tensor reduce(const at::Tensor& tensor, Reduction reduction = Reduction::Sum, double scale = 1.0);
  /// Pads `tensor` along `dim` with `padIndex` to the largest size any process has (at the end, or the start
  /// with padFirst), so it can be gathered.
  at::Tensor padAcrossProcesses(const at::Tensor& tensor, std::int64_t dim = 0, double padIndex = 0,
                                bool padFirst = false);
  /// Process `fromProcess`'s tensor, on every process (shapes and dtypes must agree).
  at::Tensor broadcast(const at::Tensor& tensor, int fromProcess = 0);
  /// Barrier; nothing in a single process.
  void waitForEveryone();
  /// Sets this process's trigger (an early-stop flag any process can raise).
  void setTrigger() { m_trigger = true; }
  /// Whether any process set its trigger since the last check; resets it everywhere. Collective.
  bool checkTrigger();

  // ---- process control -----------------------------------------------------------------------------------------
  template <typename F> void onMainProcess(F&& f) const {
    if (isMainProcess())
      std::forward<F>(f)();
  }
  template <typename F> void onLocalMainProcess(F&& f) const {
    if (isLocalMainProcess())
      std::forward<F>(f)();
  }
  template <typename F> void onLastProcess(F&& f) const {
    if (isLastProcess())
      std::forward<F>(f)();
  }
  template <typename F> void onProcess(int processIndex, F&& f) const {
    if (this->processIndex() == processIndex)
      std::forward<F>(f)();
  }
  template <typename F> void onLocalProcess(int localProcessIndex, F&& f) const {
    if (this->localProcessIndex() == localProcessIndex)
      std::forward<F>(f)();
  }
  /// The main process runs the scope first, the others after it (see ProcessFirst).
  [[nodiscard]] ProcessFirst mainProcessFirst() { return ProcessFirst(*this, isMainProcess()); }
  [[nodiscard]] ProcessFirst localMainProcessFirst() { return ProcessFirst(*this, isLocalMainProcess()); }
  /// This process's contiguous share of `inputs` (Accelerate's split_between_processes): with q, r = divmod(n,
  /// P), process p gets [p·q + min(p, r), + q + (p < r)); applyPadding repeats the last element so every process
  /// gets q + (r > 0) items.
  template <typename T>
  std::vector<T> splitBetweenProcesses(const std::vector<T>& inputs, bool applyPadding = false) const {
    const auto [start, end, padTo] = splitRange(static_cast<std::int64_t>(inputs.size()));
    std::vector<T> mine(inputs.begin() + start, inputs.begin() + end);
    while (applyPadding && !inputs.empty() && static_cast<std::int64_t>(mine.size()) < padTo)
      mine.push_back(inputs.back());
    return mine;
  }
  /// The same along dim 0 of a tensor.
  at::Tensor splitBetweenProcesses(const at::Tensor& inputs, bool applyPadding = false) const;
  /// A new prepared loader that skips the first `numBatches` batches of `loader` (resuming mid-epoch); it keeps
  /// the loader's epoch.
  std::shared_ptr<DataLoaderShard> skipFirstBatches(const std::shared_ptr<DataLoaderShard>& loader,
                                                    std::int64_t numBatches);
  /// Prints the arguments, space-separated, on the main process only.
  template <typename... Args> void print(const Args&... args) const {
    if (!isMainProcess())
      return;
    std::ostringstream line;
    bool first = true;
    ((line << (first ? "" : " ") << args, first = false), ...);
    std::cout << line.str() << std::endl;
  }
  /// Seeds LibTorch's generators (CPU and CUDA); deviceSpecific adds the process index, as Accelerate's set_seed.
  void setSeed(std::uint64_t seed, bool deviceSpecific = false) const;

  // ---- checkpoints (docs/checkpoint.md) -------------------------------------------------------------------------
  /// Accelerate's save_state: writes every prepared model, optimizer, scheduler and data loader position, the
  /// GradScaler, each process's RNG states and accumulation counter, and the registered objects into `outputDir`
  /// (default, with options().checkpoint.automaticCheckpointNaming: `<projectDir>/checkpoints/checkpoint_<n>`, n =
  /// saveIteration(), which then grows by one; rotation to totalLimit after publishing). Sharded strategies write one
  /// file per process (in parallel) plus index.json. Atomic: all processes write into a staging folder, agree, and the
  /// main process publishes it with one rename after manifest.json; a failure on any process publishes nothing,
  /// leaves earlier checkpoints as they were and throws on every process (StorageError / ConfigError naming the file
  /// and the reason). When it tracks into a workspace (the sqlite tracker), the main process records the published
  /// folder as a run artifact of kind checkpoint (path, bytes). Returns the published folder. Collective.
  std::filesystem::path saveState(std::optional<std::filesystem::path> outputDir = std::nullopt);
  /// Accelerate's load_state: restores what saveState wrote (default folder: the highest `checkpoint_<n>` under
  /// `<projectDir>/checkpoints`, automatic naming only). Every file read is verified against manifest.json (size,
  /// CRC-32) and checked against this run (models' parameter names and shapes, strategy and sharding layout,
  /// optimizer type, data setup) before anything is changed; a mismatch on any process throws on every process,
  /// naming the file and what differs, and leaves everything as it was. Prepared loaders resume at the next batch of
  /// the saved epoch. With automatic naming saveIteration() becomes n + 1. A sharded checkpoint saved by another number
  /// of processes is resharded (docs/checkpoint.md, "Resharding"). Returns the folder loaded. Collective.
  std::filesystem::path loadState(std::optional<std::filesystem::path> inputDir = std::nullopt);
  /// Accelerate's register_for_checkpointing: `object`'s stateDict() is saved (by the main process) as
  /// custom_checkpoint_<i>.safetensors by saveState, and given back to loadStateDict() by loadState, in
  /// registration order.
  template <checkpoint::Checkpointable T> void registerForCheckpointing(std::shared_ptr<T> object) {
    m_customObjects.push_back({[object] { return checkpoint::StateDict(std::as_const(*object).stateDict()); },
                               [object](const checkpoint::StateDict& state) { object->loadStateDict(state); }});
  }
  /// The number the next automatic checkpoint gets (Accelerate's save_iteration).
  int saveIteration() const { return m_saveIteration; }
  void setSaveIteration(int iteration) { m_saveIteration = iteration; }

  // ---- trackers ------------------------------------------------------------------------------------------------
  /// Creates the trackers of options().logWith (on the main process, for main-process-only ones) under
  /// `projectName` and stores `config` as the run's hyper-parameters (Accelerate's init_trackers). ConfigError
  /// for an unknown tracker name, StorageError for an unwritable directory.
  void initTrackers(const std::string& projectName, const nlohmann::json& config, const std::string& runName = {});
  /// Logs `values` at `step` to every tracker (a no-op where none was created).
  void log(const track::LogValues& values, std::optional<std::int64_t> step = std::nullopt);
  /// The tracker named `name`, or nullptr.
  track::Tracker* getTracker(std::string_view name) const { return m_trackers.get(name); }
  /// Finishes every tracker, then waits for every process (Accelerate's end_training).
  void endTraining();
  /// Records a memory sample of this process in the workspace through the `sqlite` tracker (every process, at
  /// `step`): the resident set size (memory/rss_bytes, memory/peak_rss_bytes) and modelStateBytes() by category
  /// (memory/device/<category>_bytes, memory/host/<category>_bytes for parameters, gradients, optimizer_states,
  /// master_weights; memory/device/peak_gathered_parameters_bytes: common/memory_metric_keys.h). Not collective.
  /// Nothing before initTrackers() or after endTraining(). docs/workspace.md, "Memory metric keys".
  void logMemory(std::int64_t step);
  /// Records this process's collectives of optimizer step `step` in the workspace through the `sqlite` tracker (every
  /// process, at `step`): commStepTotals(step) by requested kind as comm/<kind>/count and comm/<kind>/bytes
  /// (plan/collective_metric_keys.h; kinds without a call left out, barriers too), what plan-vs-actual compares with
  /// the planner's collectives. Every collective of the step counts, logging reductions included. Nothing in a single
  /// process, before initTrackers() or after endTraining(). Not collective.
  void logCollectives(std::int64_t step);
  /// Sends `text` to the workspace as a log line of this process with `level` (the `sqlite` tracker; every
  /// process). Nothing before initTrackers() or after endTraining().
  void logLine(std::string_view text, LogLevel level = LogLevel::Info);
  /// Records a device map this process dispatched a model with (bigmodel::DispatchedModel::record()) with the run,
  /// through the `sqlite` tracker (every process that calls it; not collective), so the Studio's run page opens it in
  /// the device-map view (docs/bigmodel.md, "In the workspace"). Nothing before initTrackers() or after
  /// endTraining().
  void recordDeviceMap(const bigmodel::DispatchRecord& record);

  // ---- profiling ------------------------------------------------------------------------------------------------
  /// Accelerate's profile(): a Profiler for this process (docs/profiler.md). Its traces carry this rank, world size
  /// and backend (distributedInfo), are written to options.outputTraceDir as profile_<rank>.json (merged across
  /// ranks by the main process when it stops, after a barrier: collective then), stream to the run's workspace
  /// through the `sqlite` tracker once initTrackers() ran, and are recorded there as artifacts; memory categories
  /// follow the prepared models' parameters and gradients and the prepared optimizers' states. Call step() after
  /// each optimizer step.
  ///
  ///     auto profiler = accelerator.profile({.schedule = profile::ProfileSchedule{.wait = 1, .warmup = 1,
  ///                                          .active = 3, .repeat = 1}, .outputTraceDir = "traces"});
  ///     for (...) { ...; optimizer->step(); profiler.step(); }
  [[nodiscard]] profile::Profiler profile(profile::ProfilerOptions options = {});
  /// The storages of every prepared model's parameters and gradients and every prepared optimizer's state, by
  /// category, each once (what the profiler's memory categories rest on).
  std::vector<profile::StorageRef> modelStateStorages() const;

  // ---- communication records -----------------------------------------------------------------------------------
  /// The recorded Comm every collective goes through; nullptr in a single process.
  parallel::Comm* comm() { return m_comm.get(); }
  /// Every collective kept, oldest first (empty in a single process).
  std::vector<parallel::CommRecord> commRecords() const;
  /// Collective totals of optimizer step `step`. Step n runs from the end of optimizer step n−1 (for step 1: from
  /// the end of prepare(model)) to the end of optimizer step n, so it holds its forward passes (FSDP/ZeRO-3
  /// gathers), backward passes and the step's own hooks (ZeRO's all-gather of updated partitions); step 0 is
  /// the setup (the engines' initial broadcasts).
  std::optional<parallel::StepTotals> commStepTotals(std::int64_t step) const;
  std::vector<parallel::StepTotals> allCommStepTotals() const;
  /// The DDP reducer of a prepared model, or nullptr (single process, FSDP/ZeRO, or not prepared).
  const parallel::DdpReducer* reducerFor(const torch::nn::Module& module) const;

  // ---- sharded strategies --------------------------------------------------------------------------------------
  /// "ddp", "fsdp", "zero1", "zero2" or "zero3": how prepared models are trained ("ddp" also in a single
  /// process, where nothing is communicated).
  std::string strategy() const;
  /// The data-parallel engine of a prepared model (DDP without communication in a single process), or nullptr
  /// when the model was not prepared.
  const parallel::DataParallelEngine* engineFor(const torch::nn::Module& module) const;
  /// Bytes this rank holds for the model states of every prepared model (summed), by category: what the
  /// planner's per-rank memory predicts. In a single process: the parameters, their gradients and the
  /// optimizers' states as they are.
  parallel::ModelStateBytes modelStateBytes() const;
  /// A prepared model's full state dict: parameters and buffers, unflattened, in registration order (FSDP's
  /// FULL_STATE_DICT; ZeRO-3's consolidated weights). rank0Only: other ranks get an empty list. Collective.
  template <typename M> parallel::NamedTensors getStateDict(const M& model, bool rank0Only = true) {
    return stateDictOf(*moduleOf(model), rank0Only);
  }
  /// Accelerate's save_model, in safetensors. FULL_STATE_DICT (every strategy but FSDP with
  /// fsdp_state_dict_type SHARDED_STATE_DICT): the main process writes `directory/model.safetensors` with the
  /// full state dict (bf16 under ZeRO-3 with zero3_save_16bit_model). SHARDED_STATE_DICT: every rank writes
  /// `directory/model-rank<R>-of-<W>.safetensors` with its flat shards and their layout. Atomic per file;
  /// collective. StorageError names the file that could not be written.
  template <typename M> void saveModel(const M& model, const std::filesystem::path& directory) {
    saveModelOf(*moduleOf(model), directory);
  }
  /// Loads what saveModel wrote into a prepared model: `directory/model.safetensors` when it exists (any world
  /// size and strategy), else this rank's sharded file (same world size and wrapping). ConfigError naming the
  /// file and the mismatch; StorageError for an unreadable file. Local.
  template <typename M> void loadModel(const M& model, const std::filesystem::path& directory) {
    loadModelOf(*moduleOf(model), directory);
  }

private:
  struct SaveContext;
  void writeStateFiles(SaveContext& context);
  std::filesystem::path checkpointsFolder() const;
  /// All-reduces "this process failed" and throws on every process when any did (this process's own error when it
  /// is one of them). What save and load use to agree before publishing or applying.
  void agreeOrThrow(std::exception_ptr failure, const char* what);
  parallel::NamedTensors stateDictOf(const torch::nn::Module& module, bool rank0Only);
  void saveModelOf(const torch::nn::Module& module, const std::filesystem::path& directory);
  void loadModelOf(const torch::nn::Module& module, const std::filesystem::path& directory);
  parallel::DataParallelEngine& preparedEngine(const torch::nn::Module& module, const char* what);
  template <typename T> decltype(auto) prepareOne(T&& object) {
    using D = std::remove_cvref_t<T>;
    if constexpr (SharedModule<D>) {
      return prepareModel(D(object));
    } else if constexpr (ModuleHolderType<D>) {
      prepareModule(object.ptr());
      return D(object);
    } else if constexpr (SharedOptimizer<D>) {
      return prepareOptimizer(object);
    } else if constexpr (SharedScheduler<D>) {
      return prepareScheduler(object);
    } else if constexpr (std::same_as<D, data::DataLoader>) {
      return prepareDataLoader(object);
    } else {
      return D(std::forward<T>(object));
    }
  }
  template <typename M> static const torch::nn::Module* moduleOf(const M& model) {
    if constexpr (ModuleHolderType<M>) {
      return model.ptr().get();
    } else {
      return model.get();
    }
  }
  struct SplitRange {
    std::int64_t start, end, padTo;
  };
  SplitRange splitRange(std::int64_t n) const;
  void prepareModule(const std::shared_ptr<torch::nn::Module>& module);
  SyncPause accumulateModules(const std::vector<const torch::nn::Module*>& modules);
  SyncPause pauseModules(const std::vector<const torch::nn::Module*>& modules);
  void onOptimizerStep();
  /// HYBRID_SHARD and HYBRID_SHARD_ZERO2: joins this rank's shard group (its node) and replica group.
  void joinHybridGroups();
  /// Runs the before/after-step hooks of the engines bound to `optimizer`.
  void runStepHooks(const torch::optim::Optimizer& optimizer, bool after);
  /// Binds `optimizer` to every prepared engine whose model's parameters it holds (sharded strategies replace
  /// them with the tensors this rank steps).
  void bindEngines(torch::optim::Optimizer& optimizer);
  /// Builds the engine of the strategy in force for `module`.
  std::unique_ptr<parallel::DataParallelEngine> makeEngine(const std::shared_ptr<torch::nn::Module>& module);
  ShardContext shardContext();
  /// The workspace's `sqlite` tracker while it takes data (initTrackers() ran, endTraining() did not); else nullptr.
  telemetry::SqliteTracker* workspaceTracker() const;

  runtime::ProcessState m_state;
  ResolvedAcceleratorOptions m_options;
  c10::Device m_device = c10::Device(c10::kCPU);
  std::unique_ptr<runtime::ProcessGroup> m_group;
  std::unique_ptr<parallel::Comm> m_comm;
  std::unique_ptr<precision::GradScaler> m_scaler;
  GradientState m_gradientState;
  /// The hybrid strategies' groups: this rank's shard group (its "node") and its replica group.
  std::unique_ptr<runtime::ProcessGroup> m_shardGroup;
  std::unique_ptr<runtime::ProcessGroup> m_replicaGroup;
  std::unique_ptr<parallel::Comm> m_shardComm;
  std::unique_ptr<parallel::Comm> m_replicaComm;
  std::vector<std::unique_ptr<parallel::DataParallelEngine>> m_engines;  ///< one per prepared model
  /// Which engines step with which optimizer (set when both are prepared, in either order).
  std::vector<std::pair<const torch::optim::Optimizer*, parallel::DataParallelEngine*>> m_bindings;
  std::vector<std::weak_ptr<AcceleratedOptimizer>> m_optimizers;
  std::vector<std::weak_ptr<AcceleratedScheduler>> m_schedulers;  ///< in preparation order
  std::vector<std::weak_ptr<DataLoaderShard>> m_loaders;          ///< in preparation order
  struct CustomObject {
    std::function<checkpoint::StateDict()> save;
    std::function<void(const checkpoint::StateDict&)> load;
  };
  std::vector<CustomObject> m_customObjects;  ///< registerForCheckpointing, in order
  int m_saveIteration = 0;
  std::int64_t m_optimizerSteps = 0;
  bool m_stepOpen = false;  ///< a backward has run since the last optimizer step
  bool m_trigger = false;
  track::TrackerGroup m_trackers;
  /// The workspace's `sqlite` tracker, owned by m_trackers (set by initTrackers(), which always creates it).
  telemetry::SqliteTracker* m_workspace = nullptr;
};

}  // namespace fathom::train

namespace fathom {
using train::Accelerator;
}  // namespace fathom
