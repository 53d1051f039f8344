// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/profile/memory_timeline.h>
#include <fathom/profile/profiler_options.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::profile {

/// A storage whose category Fathom knows (the model states an Accelerator holds).
struct StorageRef {
  const void* ptr = nullptr;  ///< the storage's data pointer (what the allocator reported)
  std::int64_t bytes = 0;     ///< the storage's size
  MemoryCategory category = MemoryCategory::Other;
  MemoryDevice device;
};

/// What the embedding program tells a Profiler about where it runs. fathom::Accelerator::profile() fills it; a
/// Profiler built by hand may leave it empty (one process, no workspace).
struct ProfilerContext {
  int rank = 0;
  int worldSize = 1;
  std::string backend = "gloo";  ///< distributedInfo.backend
  bool cudaDevice = false;       ///< training runs on a CUDA device (ProfilerOptions::cuda's default)
  /// The model states (parameters, gradients, optimizer states) with their storages: asked when a window starts
  /// and at every step(), so memory categories follow what Fathom knows.
  std::function<std::vector<StorageRef>()> modelStates;
  /// A barrier over every rank (before the main process merges the ranks' traces); none in one process.
  std::function<void()> barrier;
  /// Receives every block of a trace file's bytes as it is written (the file's name relative to outputTraceDir,
  /// trace/trace_file_names.h: "profile_0.json", on the main process also "merged/profile_merged.json"; and the
  /// bytes): Accelerator streams them to the run's workspace through telemetry.
  std::function<void(std::string_view traceName, std::string_view chunk)> traceChunk;
  /// Called once a trace file is complete (path, bytes), e.g. to record it as an artifact of the run.
  std::function<void(const std::filesystem::path& path, std::int64_t bytes)> traceWritten;
  /// Extra top-level keys for every trace file, as a JSON object's text ({"fathom":{"run_id":3}}); may be empty.
  std::string metadataJson;
  /// The workspace's run, when there is one: its traces go to `outputTraceDir/run_<id>/` (trace_file_names.h), so
  /// runs that share a profile directory never write the same file and each run's artifact rows keep pointing at its
  /// own traces. Without it the traces go to outputTraceDir itself. Either way a trace file never replaces an
  /// existing one: the Profiler refuses to start when its first trace file exists (ConfigError), and a file that
  /// appears meanwhile makes the write fail (StorageError "it exists").
  std::optional<std::int64_t> runId;
};

/// Counts of one recorded window.
struct WindowStats {
  std::int64_t cpuOps = 0;
  std::int64_t annotations = 0;  ///< RecordFunction and Fathom spans, ProfilerStep#N included
  std::int64_t collectives = 0;
  std::int64_t memoryEvents = 0;
  std::int64_t gpuActivities = 0;
  std::int64_t kernels = 0;
  std::int64_t kernelsLinkedToLaunch = 0;  ///< kernels whose CUDA runtime/driver launch record was found
  std::int64_t kernelsLinkedToCpuOp = 0;   ///< kernels linked through the launch to the CPU op that issued it
  std::int64_t threads = 0;
  std::int64_t steps = 0;
};

struct WindowData;

/// One finished window (the steps of one active cycle of the schedule), handed to ProfilerOptions::onTraceReady.
/// Valid only during that call.
class TraceWindow {
public:
  /// 0 for the first window of the profiler.
  int index() const;
  /// The profiler steps the window recorded (Profiler::stepNum() values).
  std::int64_t firstStep() const;
  std::int64_t lastStep() const;
  /// The trace file written for this window, or an empty path without ProfilerOptions::outputTraceDir.
  const std::filesystem::path& traceFile() const;
  const WindowStats& stats() const;
  /// The memory-over-time series by category (profileMemory), else nullptr.
  const MemoryTimeline* memory() const;
  /// What GPU tracing said (e.g. "CUPTI 13.0: 1,234 kernels" or why nothing was traced).
  const std::string& gpuStatus() const;
  /// Writes the window as a Kineto-compatible Chrome trace to `path` (.json, or .json.gz compressed).
  void exportChromeTrace(const std::filesystem::path& path) const;

private:
  friend class Profiler;
  explicit TraceWindow(std::shared_ptr<const WindowData> data) : m_data(std::move(data)) {}
  std::shared_ptr<const WindowData> m_data;
};

/// Fathom's profiler (torch.profiler.profile for C++ programs; Accelerate's accelerator.profile() returns it). It
/// records, while its schedule says so: every ATen operator (name, thread, shapes when asked), Fathom's spans
/// (forward, backward, optimizer step, data loading, each collective with its kind and bytes, checkpoint I/O),
/// allocations and frees with a category and the memory-over-time series, and GPU activity through CUPTI where a
/// CUDA device and libcupti exist. Each window is written as a Kineto-compatible Chrome trace.
///
///     fathom::profile::Profiler profiler({.schedule = ProfileSchedule{.wait = 1, .warmup = 1, .active = 3},
///                                         .profileMemory = true, .outputTraceDir = "traces"});
///     for (...) { train_step(); profiler.step(); }
///     // destruction (or stop()) writes the last window and merges the ranks' traces
///
/// One Profiler per process at a time (ProfilerError otherwise). Use it from one thread: construct, step() and
/// destroy it on the training thread (the memory reporter is installed thread-locally there). Movable.
class Profiler {
public:
  /// Validates the options (ConfigError naming the field), decides GPU tracing (ProfilerError when cuda is
  /// requested but CUPTI cannot trace, with the reason) and starts: without a schedule, recording starts now.
  explicit Profiler(ProfilerOptions options, ProfilerContext context = {});
  /// stop(); errors are logged, not thrown.
  ~Profiler();
  Profiler(Profiler&&) noexcept;
  Profiler& operator=(Profiler&&) noexcept;
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  /// Ends the current step: closes its ProfilerStep#N span, advances the step number and does what the schedule
  /// says (start, discard warm-up, write a finished window).
  void step();
  /// Writes the window in progress (if any), merges the ranks' traces (main process, after a barrier) and stops.
  /// Idempotent.
  void stop();

  /// The current step number (0 at construction, +1 per step()).
  std::int64_t stepNum() const;
  /// What the profiler does during the current step.
  ProfilerAction currentAction() const;
  /// Every trace file written so far, in order.
  const std::vector<std::filesystem::path>& traceFiles() const;
  /// The merged multi-rank traces written by stop() (main process only).
  const std::vector<std::filesystem::path>& mergedTraceFiles() const;
  /// Whether GPU activity is traced, and if not, why.
  const std::string& gpuStatus() const;

private:
  struct Impl;
  std::unique_ptr<Impl> m_impl;
};

}  // namespace fathom::profile
