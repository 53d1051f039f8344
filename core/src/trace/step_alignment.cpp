// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/step_alignment.h"

#include "trace_summarizer.h"

#include "fathom/trace/timeline_queries.h"

#include <algorithm>
#include <map>

namespace fathom::trace {

namespace {

/// One rank's steps by start, to find the step a collective starts in.
struct RankSteps {
  std::vector<RankStepSpan> spans;  ///< sorted by start
  std::vector<std::int64_t> numbers;
  /// Per step (same order): its collectives, by start.
  std::vector<std::vector<CollectiveArrival>> collectives;
};

/// The step of `steps` whose span holds `t` (start <= t < end; a step that ends where the next starts keeps its end
/// for the next), or -1.
int stepAt(const RankSteps& steps, std::int64_t t) {
  const auto it = std::upper_bound(steps.spans.begin(), steps.spans.end(), t,
                                   [](std::int64_t value, const RankStepSpan& s) { return value < s.startNs; });
  if (it == steps.spans.begin()) {
    return -1;
  }
  const auto& span = *(it - 1);
  return t < span.endNs || (t == span.startNs) ? static_cast<int>(it - 1 - steps.spans.begin()) : -1;
}

AlignedCollective alignCollective(std::uint32_t ordinal, std::vector<CollectiveArrival> arrivals, std::size_t stepRanks,
                                  const TimelineIndex& index) {
  AlignedCollective out;
  out.ordinal = ordinal;
  out.ranks = std::move(arrivals);
  const auto nameOf = [&](const CollectiveArrival& a) { return index.lane(a.slice.lane).name[a.slice.index]; };
  out.name = nameOf(out.ranks.front());
  out.consistent = out.ranks.size() == stepRanks && std::all_of(out.ranks.begin(), out.ranks.end(), [&](const auto& a) {
                     return index.name(nameOf(a)) == index.name(out.name);
                   });
  // By arrival; ties to the lower rank (ranks are in ascending order and stable_sort keeps it).
  std::vector<const CollectiveArrival*> order;
  for (const CollectiveArrival& a : out.ranks) {
    order.push_back(&a);
  }
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->startNs < b->startNs; });
  const CollectiveArrival* first = order.front();
  // The last arrival; among ranks tied at the latest time, the lowest rank.
  const auto last =
      std::find_if(order.begin(), order.end(), [&](const auto* a) { return a->startNs == order.back()->startNs; });
  out.firstRank = first->rank;
  out.lastRank = (*last)->rank;
  out.spreadNs = (*last)->startNs - first->startNs;
  out.lagNs = last == order.begin() ? 0 : (*last)->startNs - (*(last - 1))->startNs;
  return out;
}

}  // namespace

StepAlignment alignSteps(const TimelineIndex& index) {
  StepAlignment out;
  std::map<int, RankSteps> byRank;
  for (const TimelineStep& step : index.steps()) {
    if (!step.rank) {
      continue;
    }
    RankSteps& rank = byRank[*step.rank];
    if (std::find(rank.numbers.begin(), rank.numbers.end(), step.number) != rank.numbers.end()) {
      continue;  // a second window's step of the same number
    }
    const TimelineLane& lane = index.lane(step.slice.lane);
    rank.spans.push_back({*step.rank, step.slice, lane.start[step.slice.index], lane.end[step.slice.index]});
    rank.numbers.push_back(step.number);
  }
  // Sort each rank's steps by start (numbers follow them).
  for (auto& [r, steps] : byRank) {
    std::vector<std::size_t> order(steps.spans.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      order[i] = i;
    }
    // An init-capture: clang before 16 cannot capture a structured binding (the fuzz preset builds with clang-14).
    std::sort(order.begin(), order.end(),
              [&spans = steps.spans](std::size_t a, std::size_t b) { return spans[a].startNs < spans[b].startNs; });
    RankSteps sorted;
    for (const std::size_t i : order) {
      sorted.spans.push_back(steps.spans[i]);
      sorted.numbers.push_back(steps.numbers[i]);
    }
    sorted.collectives.resize(sorted.spans.size());
    steps = std::move(sorted);
    out.ranks.push_back(r);
  }

  // The collective spans of each ranked process's lanes, into the step they start in.
  std::vector<signed char> collectiveName(index.names().size(), -1);  // per NameId: unknown, no, yes
  const auto isCollective = [&](NameId id) {
    if (collectiveName[id] < 0) {
      collectiveName[id] = detail::isCollectiveSpan(index.name(id)) ? 1 : 0;
    }
    return collectiveName[id] == 1;
  };
  for (const TimelineProcess& process : index.processes()) {
    if (!process.rank || !byRank.contains(*process.rank)) {
      continue;
    }
    RankSteps& steps = byRank[*process.rank];
    for (const std::uint32_t laneId : process.lanes) {
      const TimelineLane& lane = index.lane(laneId);
      for (std::uint32_t i = 0; i < lane.sliceCount(); ++i) {
        if (lane.name[i] >= collectiveName.size() || !isCollective(lane.name[i])) {
          continue;
        }
        const int step = stepAt(steps, lane.start[i]);
        if (step < 0) {
          ++out.collectivesOutsideSteps;
          continue;
        }
        steps.collectives[static_cast<std::size_t>(step)].push_back(
            {*process.rank, SliceRef{laneId, i}, lane.start[i], lane.end[i]});
      }
    }
  }

  // Per step number: each rank's span and its collectives, matched by ordinal.
  std::map<std::int64_t, AlignedStep> aligned;
  std::map<std::int64_t, std::vector<const std::vector<CollectiveArrival>*>> perStep;
  for (auto& [r, steps] : byRank) {
    for (std::size_t s = 0; s < steps.spans.size(); ++s) {
      auto& collectives = steps.collectives[s];
      std::sort(collectives.begin(), collectives.end(), [](const CollectiveArrival& a, const CollectiveArrival& b) {
        return a.startNs != b.startNs ? a.startNs < b.startNs : a.slice < b.slice;
      });
      AlignedStep& step = aligned[steps.numbers[s]];
      step.number = steps.numbers[s];
      step.ranks.push_back(steps.spans[s]);
      perStep[step.number].push_back(&collectives);
    }
  }
  for (auto& [number, step] : aligned) {
    const auto& lists = perStep[number];
    std::size_t most = 0;
    for (const auto* list : lists) {
      most = std::max(most, list->size());
    }
    for (std::size_t k = 0; k < most; ++k) {
      std::vector<CollectiveArrival> arrivals;
      for (const auto* list : lists) {  // ranks ascending: byRank is ordered
        if (k < list->size()) {
          arrivals.push_back((*list)[k]);
        }
      }
      step.collectives.push_back(
          alignCollective(static_cast<std::uint32_t>(k), std::move(arrivals), lists.size(), index));
    }
    step.startNs = step.ranks.front().startNs;
    step.endNs = step.ranks.front().endNs;
    for (const RankStepSpan& span : step.ranks) {
      step.startNs = std::min(step.startNs, span.startNs);
      step.endNs = std::max(step.endNs, span.endNs);
    }
    out.steps.push_back(std::move(step));
  }
  return out;
}

std::optional<StepSummary> rankStepSummary(const TimelineIndex& index, std::int64_t number, int rank) {
  std::optional<TimeRange> range;
  for (const TimelineStep& step : index.steps()) {  // by rank, then start: the first of this number, as alignSteps
    if (step.rank == rank && step.number == number) {
      const TimelineLane& lane = index.lane(step.slice.lane);
      range = TimeRange{lane.start[step.slice.index], lane.end[step.slice.index]};
      break;
    }
  }
  if (!range || range->endNs <= range->startNs) {
    return std::nullopt;
  }
  std::vector<std::uint32_t> lanes;
  for (const TimelineProcess& process : index.processes()) {
    if (process.rank == rank) {
      lanes.insert(lanes.end(), process.lanes.begin(), process.lanes.end());
    }
  }
  const AreaAggregation area = aggregateArea(index, *range, lanes, {.top = 1});
  for (const RankSummary& summary : area.ranks) {
    if (summary.rank == rank) {
      for (const StepSummary& step : summary.summary.steps) {
        if (step.step == number) {
          return step;
        }
      }
    }
  }
  return std::nullopt;
}

}  // namespace fathom::trace
