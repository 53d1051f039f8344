// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace fathom::profile {

class TraceWindow;

/// What the profiler does during one step (torch.profiler.ProfilerAction).
enum class ProfilerAction {
  None,           ///< nothing is collected
  Warmup,         ///< collectors run (CUPTI's first-use cost lands here), events are discarded
  Record,         ///< events are kept
  RecordAndSave,  ///< the last recorded step of a window: the trace is written when it ends
};

/// "none", "warmup", "record", "record_and_save".
std::string_view toString(ProfilerAction action);

/// torch.profiler.schedule(skip_first, wait, warmup, active, repeat), which Accelerate's ProfileKwargs builds from
/// its schedule_option dict. After `skipFirst` steps, cycles of `wait` idle steps, `warmup` warm-up steps and
/// `active` recorded steps repeat `repeat` times (0: until the profiler stops). Each cycle's active steps form
/// one trace window.
struct ProfileSchedule {
  int skipFirst = 0;
  int wait = 0;
  int warmup = 0;
  int active = 1;  ///< >= 1
  int repeat = 0;  ///< 0 = no limit

  /// The action for step `step` (0-based, counted by Profiler::step()), exactly as torch.profiler.schedule.
  ProfilerAction action(std::int64_t step) const;
  /// ConfigError naming the field for negative counts or active < 1.
  void validate() const;
  /// "wait,warmup,active,repeat" or "skip_first,wait,warmup,active,repeat" (fathom train --profile_schedule).
  /// ConfigError naming the text for anything else.
  static ProfileSchedule parse(std::string_view text);
  bool operator==(const ProfileSchedule&) const = default;
};

/// Accelerate's ProfileKwargs: what one Profiler collects and where its traces go.
struct ProfilerOptions {
  /// Record CPU activity: ATen operators (RecordFunction), Fathom's spans and ProfilerStep#N.
  bool cpu = true;
  /// Record GPU activity through CUPTI. std::nullopt: when the accelerator's device is CUDA and CUPTI can trace
  /// (CuptiTracer::probe); true where it cannot is a ProfilerError that says why.
  std::optional<bool> cuda;
  /// Steps to record (torch.profiler.schedule). std::nullopt: every step from construction to stop() is one window.
  std::optional<ProfileSchedule> schedule;
  /// Record each ATen operator's input shapes and dtypes ("Input Dims", "Input type").
  bool recordShapes = false;
  /// Record every allocation and free with a category, and the memory-over-time series by category.
  bool profileMemory = false;
  /// Attach the stack of enclosing annotations (ProfilerStep#N, Fathom's spans, the model's wrapped units) to each
  /// operator as "Call stack". C++ has no Python frames; this is the closest honest equivalent.
  bool withStack = false;
  /// Estimate FLOPs of matrix products, convolutions and element-wise arithmetic from the shapes ("flops").
  bool withFlops = false;
  /// Attach the enclosing module units (UnitScope: the built-in models' blocks, FSDP units) as "Module Hierarchy".
  bool withModules = false;
  /// Where traces are written (created if missing): `profile_<rank>.json` per rank (Accelerate's name), plus a
  /// merged multi-rank trace under `merged/`. Empty: no files; onTraceReady still runs.
  std::filesystem::path outputTraceDir;
  /// Write `.json.gz` instead of `.json`.
  bool gzip = false;
  /// After the last window, the main process merges every rank's trace into `merged/profile_merged.json` (needs
  /// outputTraceDir on a file system every rank writes to, as on one machine).
  bool mergeRanks = true;
  /// Called on the calling thread when a window's trace is ready (after its file is written, if any).
  std::function<void(const TraceWindow&)> onTraceReady;

  /// ConfigError naming the field (schedule, an uncreatable outputTraceDir is reported when the first trace is
  /// written).
  void validate() const;
};

}  // namespace fathom::profile
