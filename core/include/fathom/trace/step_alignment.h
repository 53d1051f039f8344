// SPDX-License-Identifier: Apache-2.0
#pragma once

// Multi-rank step alignment (issue 19): each ProfilerStep#N of every rank side by side, and each collective of the
// step with the time every rank arrived at it, so that the rank the others waited for stands out. Computed from a
// TimelineIndex, whose ranks share one clock (a merged trace's ranks are shifted by their base times: trace_merge.h).

#include "fathom/trace/timeline_index.h"
#include "fathom/trace/trace_summary.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace fathom::trace {

/// One rank's ProfilerStep#N span.
struct RankStepSpan {
  int rank = 0;
  SliceRef slice;
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
};

/// One rank's arrival at a collective: its collective span (fathom::all_reduce, ...).
struct CollectiveArrival {
  int rank = 0;
  SliceRef slice;
  std::int64_t startNs = 0;  ///< the arrival: the rank called the collective
  std::int64_t endNs = 0;    ///< the rank left it
};

/// The k-th collective of a step on every rank. c10d runs the collectives of a group in the same order on every
/// rank, so the k-th span of a step on one rank is the k-th on the others.
struct AlignedCollective {
  std::uint32_t ordinal = 0;             ///< k: its position among the step's collectives (from 0)
  NameId name = kNoName;                 ///< the span's name on the first rank that has it ("fathom::all_reduce")
  std::vector<CollectiveArrival> ranks;  ///< by rank; a rank with fewer collectives in the step is missing
  /// Every rank of the step has a k-th collective, with the same name. When false, the ranks ran different
  /// collectives (or some fewer) in this step: the ordinal match, and so the arrivals, may not be the same call.
  bool consistent = false;
  int firstRank = 0;          ///< the rank that arrived first (ties: the lowest rank)
  int lastRank = 0;           ///< the rank that arrived last, which every other rank waited for (ties: the lowest)
  std::int64_t spreadNs = 0;  ///< last arrival − first arrival: how long the first rank waited for the last
  std::int64_t lagNs = 0;     ///< last arrival − the arrival before it: by how much the last rank was last (0 alone)
};

/// ProfilerStep#N on every rank that has it.
struct AlignedStep {
  std::int64_t number = 0;
  std::vector<RankStepSpan> ranks;             ///< by rank
  std::vector<AlignedCollective> collectives;  ///< by ordinal
  std::int64_t startNs = 0;                    ///< the earliest rank's start
  std::int64_t endNs = 0;                      ///< the latest rank's end
};

/// The steps of a trace aligned across ranks.
struct StepAlignment {
  std::vector<int> ranks;          ///< every rank with a ProfilerStep, ascending
  std::vector<AlignedStep> steps;  ///< by step number
  /// Collective spans of those ranks that start in none of their rank's steps (before the first step, between
  /// steps): left out of `steps`.
  std::uint64_t collectivesOutsideSteps = 0;
};

/// Aligns the ProfilerStep#N spans of every rank (TimelineIndex::steps(); steps whose process has no rank are left
/// out) and, per step, Fathom's collective spans (fathom::all_reduce, all_gather, reduce_scatter, broadcast, barrier,
/// send_recv: the spans `fathom trace summary` counts as communication, on the collectives lane or any other lane of
/// the rank's processes): each rank's collectives that start within its step, in start order, matched across ranks by
/// their ordinal. A rank that runs the same step number twice (two profiler windows) keeps its first. Cost: one pass
/// over the slices of the ranks' lanes (names tested once each) plus sorting the collectives.
StepAlignment alignSteps(const TimelineIndex& index);

/// What rank `rank` measured in ProfilerStep#`number`: `fathom trace summary --rank R` over the step's span (the
/// index's area aggregation on the lanes of the rank's processes: compute, communication, exposed communication =
/// communication − overlap, data loading, idle). nullopt when the rank has no such step.
std::optional<StepSummary> rankStepSummary(const TimelineIndex& index, std::int64_t number, int rank);

}  // namespace fathom::trace
