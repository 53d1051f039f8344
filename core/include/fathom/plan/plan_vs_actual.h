// SPDX-License-Identifier: Apache-2.0
// Plan vs actual: a run's stored plan (the prediction it was launched with) next to what each of its ranks measured,
// per memory category, per collective kind and for the step time. `fathom runs plan-vs-actual` prints it; the Studio's
// plan-vs-actual page shows it. What is measured where: docs/planner.md, "Plan vs actual".
#pragma once

#include <fathom/common/memory_category.h>
#include <fathom/plan/prediction.h>

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace fathom::plan {

/// One number of plan vs actual: what the plan predicted and what the run measured; either may be unknown (a run
/// without a profile measured no activations, a plan on a model without dimensions predicts none).
struct Compared {
  std::optional<double> predicted;
  std::optional<double> measured;
  /// Both are known and equal.
  bool exact() const;
  /// measured − predicted (positive: the run used more than planned); std::nullopt unless both are known.
  std::optional<double> difference() const;
  bool operator==(const Compared&) const = default;
};

/// The calls of one collective kind in one optimizer step, as plan::Collective and the Comm layer count them: calls,
/// and the whole-buffer bytes summed over them (docs/comm.md).
struct CollectiveCount {
  std::int64_t count = 0;
  double bytes = 0.0;
  bool operator==(const CollectiveCount&) const = default;
};

/// One collective kind of plan vs actual. A side that has no call of the kind holds std::nullopt.
struct ComparedCollective {
  CollectiveKind kind = CollectiveKind::AllReduce;
  std::optional<CollectiveCount> predicted;
  std::optional<CollectiveCount> measured;
  /// Both sides have the kind, with the same count and bytes.
  bool exact() const;
};

/// What a run measured on one rank, read from its metrics (store/run_measurements.h makes it from a workspace).
struct MeasuredRank {
  int rank = 0;
  /// Device bytes by category: for the model states the last sample the engine reported
  /// (memory/device/<category>_bytes), for activations the profiler's highest peak
  /// (profile/memory/<device>/peak_activations_bytes). A category the run did not measure is absent.
  std::map<MemoryCategory, double> memory;
  /// The profiler's highest peak of every category together (profile/memory/<device>/peak_total_bytes).
  std::optional<double> totalBytes;
  /// The optimizer step the collectives are from: the last one the rank logged (comm/<kind>/count and bytes).
  std::optional<std::int64_t> collectiveStep;
  /// The collectives of that step by kind (kinds without a call absent).
  std::map<CollectiveKind, CollectiveCount> collectives;
  /// Seconds per optimizer step: 1 / the last steps_per_second the rank logged.
  std::optional<double> stepSeconds;
};

/// Plan vs actual on one rank.
struct RankComparison {
  int rank = 0;
  /// kComparedMemoryCategories, in that order.
  std::array<Compared, 5> memory;
  /// The planned total (every category, framework overhead included) against the profiler's peak total.
  Compared totalBytes;
  /// Every kind either side has, in CollectiveKind order.
  std::vector<ComparedCollective> collectives;
  Compared stepSeconds;
};

/// The memory categories plan vs actual compares, in the order it lists them: the model states the engines report
/// and the activations the profiler measures.
inline constexpr std::array<MemoryCategory, 5> kComparedMemoryCategories{
    MemoryCategory::Parameters, MemoryCategory::Gradients, MemoryCategory::OptimizerStates,
    MemoryCategory::MasterWeights, MemoryCategory::Activations};

/// The whole comparison of a run.
struct PlanVsActual {
  std::int64_t run = 0;
  std::vector<RankComparison> ranks;  ///< by rank
};

/// The planned collectives of one optimizer step by kind: the prediction's entries of each kind summed.
std::map<CollectiveKind, CollectiveCount> plannedCollectives(const CommunicationPrediction& communication);

/// Compares `prediction` (the planner predicts the same for every rank: its most loaded one) with each measured
/// rank.
PlanVsActual comparePlanToRun(std::int64_t run, const Prediction& prediction, const std::vector<MeasuredRank>& ranks);

/// {"run": N, "ranks": [{"rank": 0, "memory": {"parameters": {"predicted": B, "measured": B}, "gradients", ...,
/// "activations", "total"}, "collectives": {"all_reduce": {"predicted": {"count": C, "bytes": B}, "measured":
/// {...}}, ...}, "step_s": {"predicted": S, "measured": S}}, ...]}: bytes as whole numbers, null where a side is
/// unknown (a collective kind one side lacks: null on that side).
nlohmann::ordered_json toJson(const PlanVsActual& comparison);

}  // namespace fathom::plan
