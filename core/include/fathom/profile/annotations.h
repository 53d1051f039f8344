// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/common/memory_category.h>

#include <cstdint>
#include <string_view>

namespace fathom::profile {

/// The phases of a training step. Memory allocated during a phase gets its category from it (an allocation of the
/// forward phase still alive when the phase ends is an activation; one freed within its phase is a temporary; see
/// docs/profiler.md). The Accelerator sets them: backward() is Backward, a prepared optimizer's step() is
/// OptimizerStep, and between an optimizer step and the next backward the phase is Forward; a prepared loader's
/// batch fetch is DataLoader; saving and loading are Checkpoint.
enum class Phase : std::uint8_t { None, Forward, Backward, OptimizerStep, DataLoader, Checkpoint };

/// "none", "forward", "backward", "optimizer_step", "data_loader", "checkpoint".
std::string_view toString(Phase phase);

/// Whether a Profiler of this process is recording right now (one relaxed atomic load: cheap enough for hot paths).
bool isRecording();

/// A named span on the calling thread, Fathom's torch.autograd.profiler.record_function: while a Profiler records,
/// it becomes a `user_annotation` slice (and encloses the operators it runs). With a phase, memory allocated inside
/// is categorized by it. Nothing is recorded (and nothing allocated) when no profiler is recording.
///
///     {
///       fathom::profile::RecordFunction span("forward", fathom::profile::Phase::Forward);
///       output = model->forward(input);
///     }
///
/// Spans must nest on their thread (create and destroy them in LIFO order, as scoped objects do).
class RecordFunction {
public:
  explicit RecordFunction(std::string_view name);
  RecordFunction(std::string_view name, Phase phase);
  ~RecordFunction();
  RecordFunction(const RecordFunction&) = delete;
  RecordFunction& operator=(const RecordFunction&) = delete;

private:
  std::int64_t m_startNs = -1;  ///< -1: not recording when the span began
  std::uint32_t m_nameId = 0;
  std::uint64_t m_generation = 0;
  bool m_phasePushed = false;
};

/// Memory allocated on any thread while this scope is alive is of `category` (Fathom's own knowledge, e.g. the
/// buffers FSDP gathers parameters into). Scopes nest; the innermost wins. No effect without memory profiling.
class MemoryCategoryScope {
public:
  explicit MemoryCategoryScope(MemoryCategory category);
  ~MemoryCategoryScope();
  MemoryCategoryScope(const MemoryCategoryScope&) = delete;
  MemoryCategoryScope& operator=(const MemoryCategoryScope&) = delete;

private:
  std::uint8_t m_previous;
};

/// Hooks for Fathom's own layers (the Comm layer, the Accelerator). Each is a no-op while nothing records.
namespace hooks {

/// Sets the phase outside any phase span (see Phase). The Accelerator calls it; user code uses RecordFunction.
void setBasePhase(Phase phase);

/// One finished collective, as the Comm layer recorded it. Times are on the profiler clock (nowNs()).
struct CollectiveSpan {
  std::string_view kind;       ///< what ran: "all_reduce", "all_gather", "reduce_scatter", "broadcast", "barrier"
  std::string_view requested;  ///< what the caller asked for (differs when emulated)
  std::string_view op;         ///< "sum", "avg", ... or empty
  std::string_view dtype;      ///< "Float", "BFloat16", ... (c10 names), empty for barrier
  std::string_view backend;    ///< "gloo" | "nccl"
  std::string_view label;      ///< the caller's tag ("ddp.bucket.3")
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
  std::int64_t bytes = 0;     ///< whole-buffer bytes (docs/comm.md)
  std::int64_t elements = 0;  ///< elements of the same buffer
  int groupSize = 1;
  int rank = 0;
  std::uint64_t sequence = 0;    ///< the Comm's call index
  std::int64_t step = 0;         ///< the Comm's step
  std::uint64_t externalId = 0;  ///< what beginCollectiveIssue returned (links NCCL kernels to this collective)
};

/// Called by the Comm layer right before it issues a collective to the process group: returns a new external
/// correlation id and pushes it to CUPTI, so GPU kernels launched by the issue (NCCL's) link to the collective;
/// 0 when nothing records.
std::uint64_t beginCollectiveIssue();
/// Called right after the issue returned (before waiting): pops what beginCollectiveIssue pushed.
void endCollectiveIssue(std::uint64_t externalId);
/// Called when a collective's record is complete (any thread).
void collectiveFinished(const CollectiveSpan& span);

/// A module unit's forward begins / ends on the calling thread (parallel::UnitScope): the enclosing units form the
/// operators' "Module Hierarchy" under with_modules. enterModule returns whether it recorded (pass that to
/// exitModule).
bool enterModule(std::string_view name);
void exitModule(bool entered);

}  // namespace hooks
}  // namespace fathom::profile
