// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <fathom/parallel/comm_kind.h>
#include <fathom/plan/prediction.h>
#include <fathom/runtime/process_group.h>

#include <c10/core/ScalarType.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace fathom::parallel {

/// The planner's kind for `kind`; std::nullopt for Barrier.
std::optional<plan::CollectiveKind> toPlanKind(CommKind kind);

/// Nanoseconds on the steady clock since a Comm's epoch (its construction).
struct CommNanos {
  std::int64_t value = 0;  ///< nanoseconds
  auto operator<=>(const CommNanos&) const = default;
};

/// One collective call as it actually ran on this rank.
///
/// `bytes` is the size of the whole buffer the collective operates on, exactly as the planner defines it
/// (docs/comm.md): all_reduce = the tensor; all_gather = the gathered output (world × input); reduce_scatter =
/// the full input (world × output); broadcast = the tensor; barrier = 0.
struct CommRecord {
  std::uint64_t sequence = 0;                ///< call index on this Comm, 0-based; gaps never occur, drops are counted
  std::int64_t step = 0;                     ///< the step cut by Comm::markStep when the call started
  CommKind kind = CommKind::AllReduce;       ///< what ran on the wire
  CommKind requested = CommKind::AllReduce;  ///< what the caller asked for (differs when emulated, see docs)
  std::optional<runtime::ReduceOp> op;       ///< the reduction, for all_reduce and reduce_scatter requests
  std::int64_t bytes = 0;                    ///< whole-buffer bytes (see above)
  std::int64_t elements = 0;                 ///< element count of the same buffer
  c10::ScalarType dtype = c10::ScalarType::Undefined;  ///< element type (Undefined for barrier)
  int groupSize = 1;                                   ///< ranks in the group
  int rank = 0;                                        ///< this rank in the group
  CommNanos start;                                     ///< when the call was issued
  CommNanos duration;                                  ///< until the result was available on this rank
  std::string label;                                   ///< caller's tag ("ddp.bucket.3"); may be empty
  /// The process group it ran on: "world", or the sub-group's name ("hybrid.shard.0"); see Comm's constructor.
  std::string group = "world";
  /// The profiler's correlation id of this call (links the GPU kernels it launched); 0 when no profiler recorded.
  std::uint64_t externalId = 0;
};

/// Totals of one kind over a step: number of calls, bytes and time.
struct KindTotals {
  std::int64_t count = 0;  ///< calls
  std::int64_t bytes = 0;  ///< Σ CommRecord::bytes
  CommNanos duration;      ///< Σ CommRecord::duration
  bool operator==(const KindTotals&) const = default;
};

/// Per-kind totals of the calls that started while one step was current. `byKind` is keyed by the kind that ran,
/// `byRequested` by the kind the caller asked for; they differ only for emulated calls (reduce_scatter run as
/// all_reduce), and `byRequested` is what compares with the planner's predicted collectives.
struct StepTotals {
  std::int64_t step = 0;                               ///< the step number given to Comm::markStep
  std::array<KindTotals, kCommKindCount> byKind;       ///< indexed by CommKind: what ran
  std::array<KindTotals, kCommKindCount> byRequested;  ///< indexed by CommKind: what was asked for
  /// Totals of one kind that ran.
  const KindTotals& operator[](CommKind kind) const { return byKind[static_cast<std::size_t>(kind)]; }
  /// Totals of one kind that ran.
  KindTotals& operator[](CommKind kind) { return byKind[static_cast<std::size_t>(kind)]; }
  /// Totals of one requested kind.
  const KindTotals& requested(CommKind kind) const { return byRequested[static_cast<std::size_t>(kind)]; }
  /// Sum over all kinds.
  KindTotals total() const;
};

}  // namespace fathom::parallel
