// SPDX-License-Identifier: Apache-2.0
#include <fathom/store/run_measurements.h>

#include <fathom/common/memory_metric_keys.h>
#include <fathom/plan/collective_metric_keys.h>
#include <fathom/store/workspace.h>

#include <algorithm>
#include <map>
#include <string>

namespace fathom::store {
namespace {

constexpr std::string_view kProfilePrefix = "profile/memory/";

/// The device a profiler key names ("cuda:0" of profile/memory/cuda:0/peak_total_bytes); empty for other keys.
std::string_view profiledDevice(std::string_view key) {
  if (key.substr(0, kProfilePrefix.size()) != kProfilePrefix) {
    return {};
  }
  const std::string_view rest = key.substr(kProfilePrefix.size());
  return rest.substr(0, rest.find('/'));
}

/// The rank's entry, made on first use.
plan::MeasuredRank& entry(std::map<int, plan::MeasuredRank>& ranks, int rank) {
  plan::MeasuredRank& r = ranks[rank];
  r.rank = rank;
  return r;
}

}  // namespace

std::vector<plan::MeasuredRank> measuredRanks(const Workspace& workspace, RunId run) {
  std::map<int, plan::MeasuredRank> ranks;
  for (const RankInfo& r : workspace.ranks(run)) {
    entry(ranks, r.rank);
  }
  // metricSeries orders by rank, then step: the last row of a rank is its latest sample.
  for (const MemoryCategory category : plan::kComparedMemoryCategories) {
    if (category == MemoryCategory::Activations) {
      continue;  // measured by the profiler, below
    }
    for (const MetricRow& row : workspace.metricSeries(run, memoryMetricKey(MemoryPlace::Device, category))) {
      entry(ranks, row.point.rank).memory[category] = row.point.value;
    }
  }
  for (const MetricRow& row : workspace.metricSeries(run, "steps_per_second")) {
    if (row.point.value > 0) {
      entry(ranks, row.point.rank).stepSeconds = 1.0 / row.point.value;
    }
  }

  // The collectives of the last step each rank logged: first find that step, then take that step's values.
  struct Sample {
    plan::CollectiveMetricName name;
    MetricPoint point;
  };
  std::vector<Sample> comm;
  for (const std::string& key : workspace.metricKeys(run)) {
    if (const auto name = plan::parseCollectiveMetricKey(key)) {
      for (const MetricRow& row : workspace.metricSeries(run, key)) {
        comm.push_back({*name, row.point});
      }
      continue;
    }
    const std::string_view device = profiledDevice(key);
    if (device.empty()) {
      continue;
    }
    const bool activations = key == profiledPeakMetricKey(device, MemoryCategory::Activations);
    const bool total = key == profiledPeakTotalMetricKey(device);
    if (!activations && !total) {
      continue;
    }
    for (const MetricRow& row : workspace.metricSeries(run, key)) {
      plan::MeasuredRank& r = entry(ranks, row.point.rank);
      if (activations) {
        double& peak = r.memory[MemoryCategory::Activations];
        peak = std::max(peak, row.point.value);
      } else {
        r.totalBytes = std::max(r.totalBytes.value_or(0.0), row.point.value);
      }
    }
  }
  for (const Sample& s : comm) {
    plan::MeasuredRank& r = entry(ranks, s.point.rank);
    r.collectiveStep = std::max(r.collectiveStep.value_or(s.point.step), s.point.step);
  }
  for (const Sample& s : comm) {
    plan::MeasuredRank& r = entry(ranks, s.point.rank);
    if (s.point.step != r.collectiveStep) {
      continue;
    }
    plan::CollectiveCount& c = r.collectives[s.name.kind];
    if (s.name.metric == plan::CollectiveMetric::Count) {
      c.count = static_cast<std::int64_t>(s.point.value);
    } else {
      c.bytes = s.point.value;
    }
  }

  std::vector<plan::MeasuredRank> out;
  for (auto& [rank, measured] : ranks) {
    out.push_back(std::move(measured));
  }
  return out;
}

}  // namespace fathom::store
