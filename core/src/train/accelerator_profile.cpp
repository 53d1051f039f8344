// SPDX-License-Identifier: Apache-2.0
// Accelerator::profile: a Profiler that knows this process's place in the run (rank, backend, device), the model
// states for its memory categories, and the workspace its traces stream to. docs/profiler.md.
#include <fathom/train/accelerator.h>

#include <fathom/common/clock.h>
#include <fathom/common/memory_metric_keys.h>
#include <fathom/parallel/module_state_sync.h>
#include <fathom/profile/annotations.h>
#include <fathom/runtime/process_group.h>
#include <fathom/telemetry/sqlite_tracker.h>

#include <nlohmann/json.hpp>

#include <unordered_set>

namespace fathom::train {

namespace {

profile::MemoryDevice memoryDevice(const at::Tensor& t) {
  return {static_cast<std::uint8_t>(t.device().type()), static_cast<std::int16_t>(t.device().index())};
}

/// Adds `t`'s storage once (several tensors may share one: DDP's gradient bucket views, FSDP's flat parameter).
void addStorage(std::vector<profile::StorageRef>& out, std::unordered_set<const void*>& seen, const at::Tensor& t,
                MemoryCategory category) {
  if (!t.defined() || !t.has_storage())
    return;
  const void* ptr = t.storage().data();
  const auto bytes = static_cast<std::int64_t>(t.storage().nbytes());
  if (ptr == nullptr || bytes == 0 || !seen.insert(ptr).second)
    return;
  out.push_back({ptr, bytes, category, memoryDevice(t)});
}

}  // namespace

std::vector<profile::StorageRef> Accelerator::modelStateStorages() const {
  std::vector<profile::StorageRef> out;
  std::unordered_set<const void*> seen;
  for (const auto& engine : m_engines) {
    for (const at::Tensor& p : engine->module()->parameters(/*recurse=*/true))
      addStorage(out, seen, p, MemoryCategory::Parameters);
  }
  for (const auto& engine : m_engines) {
    for (const at::Tensor& p : engine->module()->parameters(/*recurse=*/true))
      addStorage(out, seen, p.grad(), MemoryCategory::Gradients);
  }
  for (const auto& weak : m_optimizers) {
    const std::shared_ptr<AcceleratedOptimizer> optimizer = weak.lock();
    if (!optimizer)
      continue;
    for (const auto& group : optimizer->optimizer().param_groups()) {
      for (const at::Tensor& p : group.params()) {
        // Parameters the engines replaced by shards (FSDP/ZeRO) are only in the optimizer: they are parameters too.
        addStorage(out, seen, p, MemoryCategory::Parameters);
        addStorage(out, seen, p.grad(), MemoryCategory::Gradients);
      }
    }
    for (const auto& [key, state] : optimizer->optimizer().state()) {
      if (state)
        parallel::forEachStateTensor(
            *state, [&](const at::Tensor& t) { addStorage(out, seen, t, MemoryCategory::OptimizerStates); });
    }
  }
  return out;
}

profile::Profiler Accelerator::profile(profile::ProfilerOptions options) {
  profile::ProfilerContext context;
  context.rank = processIndex();
  context.worldSize = numProcesses();
  context.backend = m_group ? runtime::toString(m_group->backend()) : (m_device.is_cuda() ? "nccl" : "gloo");
  context.cudaDevice = m_device.is_cuda();
  context.modelStates = [this] { return modelStateStorages(); };
  if (numProcesses() > 1)
    context.barrier = [this] { waitForEveryone(); };
  std::optional<std::int64_t> runId;
  if (const telemetry::SqliteTracker* workspace = workspaceTracker();
      workspace != nullptr && workspace->run().value > 0) {
    runId = workspace->run().value;  // the traces' folder under outputTraceDir: run_<id>, one per run
  }
  context.runId = runId;
  if (workspaceTracker() != nullptr) {
    // Traces go to the run's workspace as they are written (through the launcher's collector when launched).
    context.traceChunk = [this](std::string_view name, std::string_view chunk) {
      if (telemetry::SqliteTracker* workspace = workspaceTracker())
        workspace->traceChunk(name, chunk, unixNowSeconds());
    };
    context.traceWritten = [this](const std::filesystem::path& path, std::int64_t bytes) {
      if (telemetry::SqliteTracker* workspace = workspaceTracker())
        workspace->artifact({store::ArtifactKind::Trace, std::filesystem::absolute(path).string(), bytes},
                            unixNowSeconds());
    };
  }
  nlohmann::json fathomKeys = {{"strategy", strategy()},
                               {"mixed_precision", precision::toString(mixedPrecision())},
                               {"device", m_device.str()},
                               {"gradient_accumulation_steps", gradientAccumulationSteps()}};
  if (runId) {
    fathomKeys["run_id"] = *runId;  // a trace file says which run wrote it
  }
  context.metadataJson = nlohmann::json{{"fathom", fathomKeys}}.dump();
  // The memory peaks of each window land in the workspace next to the run's other memory samples.
  auto userCallback = std::move(options.onTraceReady);
  options.onTraceReady = [this, userCallback](const profile::TraceWindow& window) {
    if (const profile::MemoryTimeline* memory = window.memory(); memory != nullptr) {
      track::LogValues values;
      for (const profile::DeviceMemorySeries& series : memory->devices) {
        const std::string device = series.device.name();
        for (const MemoryCategory category : kProfiledMemoryCategories)
          values[profiledPeakMetricKey(device, category)] = series.peak[category];
        values[profiledPeakTotalMetricKey(device)] = series.peakTotal;
      }
      if (telemetry::SqliteTracker* workspace = workspaceTracker())
        workspace->log(values, window.lastStep());
    }
    if (userCallback)
      userCallback(window);
  };
  profile::Profiler profiler(std::move(options), std::move(context));
  // Training continues with a forward pass (the phase until the next backward).
  profile::hooks::setBasePhase(profile::Phase::Forward);
  return profiler;
}

}  // namespace fathom::train
