// SPDX-License-Identifier: Apache-2.0
#include <fathom/plan/plan_vs_actual.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <string>

namespace fathom::plan {
namespace {

using nlohmann::ordered_json;

constexpr int kLastCollectiveKind = static_cast<int>(CollectiveKind::SendRecv);

ordered_json wholeOrNull(const std::optional<double>& bytes) {
  return bytes ? ordered_json(static_cast<std::int64_t>(std::llround(*bytes))) : ordered_json(nullptr);
}

ordered_json secondsOrNull(const std::optional<double>& seconds) {
  return seconds && std::isfinite(*seconds) ? ordered_json(*seconds) : ordered_json(nullptr);
}

ordered_json bytesJson(const Compared& c) {
  return {{"predicted", wholeOrNull(c.predicted)}, {"measured", wholeOrNull(c.measured)}};
}

ordered_json countJson(const std::optional<CollectiveCount>& c) {
  if (!c) {
    return nullptr;
  }
  return {{"count", c->count}, {"bytes", static_cast<std::int64_t>(std::llround(c->bytes))}};
}

template <typename T> std::optional<T> find(const std::map<CollectiveKind, T>& map, CollectiveKind kind) {
  const auto it = map.find(kind);
  return it != map.end() ? std::optional<T>(it->second) : std::nullopt;
}

}  // namespace

bool Compared::exact() const {
  return predicted && measured && *predicted == *measured;
}

std::optional<double> Compared::difference() const {
  if (!predicted || !measured) {
    return std::nullopt;
  }
  return *measured - *predicted;
}

bool ComparedCollective::exact() const {
  return predicted && measured && *predicted == *measured;
}

std::map<CollectiveKind, CollectiveCount> plannedCollectives(const CommunicationPrediction& communication) {
  std::map<CollectiveKind, CollectiveCount> out;
  for (const Collective& c : communication.collectives) {
    CollectiveCount& sum = out[c.kind];
    sum.count += c.count;
    sum.bytes += c.bytes;
  }
  return out;
}

PlanVsActual comparePlanToRun(std::int64_t run, const Prediction& prediction, const std::vector<MeasuredRank>& ranks) {
  PlanVsActual out;
  out.run = run;
  const std::map<CollectiveKind, CollectiveCount> planned = plannedCollectives(prediction.communication);
  for (const MeasuredRank& measured : ranks) {
    RankComparison r;
    r.rank = measured.rank;
    for (std::size_t i = 0; i < kComparedMemoryCategories.size(); ++i) {
      const MemoryCategory category = kComparedMemoryCategories[i];
      r.memory[i].predicted = bytesOf(prediction.memory, category);
      const auto it = measured.memory.find(category);
      if (it != measured.memory.end()) {
        r.memory[i].measured = it->second;
      }
    }
    r.totalBytes = {prediction.memory.total, measured.totalBytes};
    for (int k = 0; k <= kLastCollectiveKind; ++k) {
      const auto kind = static_cast<CollectiveKind>(k);
      ComparedCollective c{kind, find(planned, kind), std::nullopt};
      if (measured.collectiveStep) {
        c.measured = find(measured.collectives, kind);
      }
      if (c.predicted || c.measured) {
        r.collectives.push_back(c);
      }
    }
    r.stepSeconds = {prediction.time.stepS, measured.stepSeconds};
    out.ranks.push_back(std::move(r));
  }
  return out;
}

ordered_json toJson(const PlanVsActual& comparison) {
  ordered_json ranks = ordered_json::array();
  for (const RankComparison& r : comparison.ranks) {
    ordered_json memory = ordered_json::object();
    for (std::size_t i = 0; i < kComparedMemoryCategories.size(); ++i) {
      memory[std::string(toString(kComparedMemoryCategories[i]))] = bytesJson(r.memory[i]);
    }
    memory["total"] = bytesJson(r.totalBytes);
    ordered_json collectives = ordered_json::object();
    for (const ComparedCollective& c : r.collectives) {
      collectives[toString(c.kind)] = {{"predicted", countJson(c.predicted)}, {"measured", countJson(c.measured)}};
    }
    ranks.push_back({{"rank", r.rank},
                     {"memory", std::move(memory)},
                     {"collectives", std::move(collectives)},
                     {"step_s",
                      {{"predicted", secondsOrNull(r.stepSeconds.predicted)},
                       {"measured", secondsOrNull(r.stepSeconds.measured)}}}});
  }
  return {{"run", comparison.run}, {"ranks", std::move(ranks)}};
}

}  // namespace fathom::plan
