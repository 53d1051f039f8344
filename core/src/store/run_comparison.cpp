// SPDX-License-Identifier: Apache-2.0
#include <fathom/store/run_comparison.h>

#include <fathom/common/error.h>
#include <fathom/common/memory_metric_keys.h>
#include <fathom/config/config_reader.h>
#include <fathom/store/workspace.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace fathom::store {

std::vector<std::pair<std::string, std::string>> runConfigValues(const RunInfo& run) {
  std::string text;
  std::string source;
  if (!run.runSpec.empty()) {
    text = run.runSpec;
    source = "run " + std::to_string(run.id.value) + " (run specification)";
  } else if ((run.configFormat == "yaml" || run.configFormat == "json") && !run.configText.empty()) {
    text = run.configText;
    source = "run " + std::to_string(run.id.value) + " (configuration)";
  } else {
    return {};
  }
  // The config reader, not a text diff: two spellings of one value (a legacy key, `fp16: true`) compare equal.
  const config::LoadedConfig loaded = config::parseConfig(text, source);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, value] : loaded.config.values()) {
    out.emplace_back(key, config::toDisplayString(value));
  }
  return out;
}

std::vector<ConfigDifference>
diffConfigValues(const std::vector<std::vector<std::pair<std::string, std::string>>>& configs) {
  std::map<std::string, std::vector<std::optional<std::string>>> byKey;
  for (std::size_t i = 0; i < configs.size(); ++i) {
    for (const auto& [key, value] : configs[i]) {
      auto& values = byKey[key];
      values.resize(configs.size());
      values[i] = value;
    }
  }
  std::vector<ConfigDifference> out;
  for (auto& [key, values] : byKey) {
    values.resize(configs.size());
    if (std::adjacent_find(values.begin(), values.end(), std::not_equal_to<>()) != values.end()) {
      out.push_back({key, std::move(values)});
    }
  }
  return out;
}

RunSummary summarizeRun(const Workspace& workspace, const RunInfo& run) {
  RunSummary s;
  s.info = run;
  const std::vector<RankInfo> ranks = workspace.ranks(run.id);
  s.worldSize = run.layout.worldSize > 0 ? run.layout.worldSize : static_cast<int>(ranks.size());
  s.strategy = run.layout.strategy ? strategyLabel(*run.layout.strategy) : std::string();
  std::optional<double> lastLoss;
  std::map<int, RankPeakMemory> peaks;
  // Peaks: the allocator's (and the OS's) running peak when the rank sampled one, else the highest sample.
  std::map<int, std::optional<double>> devicePeak, device, hostPeak, host;
  for (const MetricSummary& m : workspace.metricSummaries(run.id)) {
    s.lastStep = std::max(s.lastStep.value_or(m.lastStep), m.lastStep);
    if (m.rank == 0 && m.key == "final_loss") {
      s.finalLoss = m.last;
    } else if (m.rank == 0 && m.key == "loss") {
      lastLoss = m.last;
    } else if (m.key == kPeakAllocatedBytesKey) {
      devicePeak[m.rank] = m.max;
    } else if (m.key == kAllocatedBytesKey) {
      device[m.rank] = m.max;
    } else if (m.key == kPeakRssBytesKey) {
      hostPeak[m.rank] = m.max;
    } else if (m.key == kRssBytesKey) {
      host[m.rank] = m.max;
    }
  }
  if (!s.finalLoss) {
    s.finalLoss = lastLoss;
  }
  std::set<int> rankIds;
  for (const RankInfo& r : ranks) {
    rankIds.insert(r.rank);
  }
  for (const auto* m : {&devicePeak, &device, &hostPeak, &host}) {
    for (const auto& entry : *m) {
      rankIds.insert(entry.first);
    }
  }
  for (const int rank : rankIds) {
    RankPeakMemory p{rank, devicePeak[rank] ? devicePeak[rank] : device[rank],
                     hostPeak[rank] ? hostPeak[rank] : host[rank]};
    if (p.deviceBytes || p.hostBytes) {
      s.peakMemory.push_back(p);
    }
  }
  double sum = 0;
  std::size_t count = 0;
  for (const MetricRow& m : workspace.metricSeries(run.id, "steps_per_second", 0)) {
    if (std::isfinite(m.point.value)) {
      sum += m.point.value;
      ++count;
    }
  }
  if (count > 0) {
    s.stepsPerSecond = sum / static_cast<double>(count);
  }
  return s;
}

RunComparison compareRuns(const Workspace& workspace, const std::vector<RunId>& runs) {
  FATHOM_CHECK(!runs.empty(), ConfigError, "compare needs at least one run");
  RunComparison out;
  std::vector<std::vector<std::pair<std::string, std::string>>> configs;
  for (const RunId id : runs) {
    const std::optional<RunInfo> info = workspace.run(id);
    FATHOM_CHECK(info.has_value(), ConfigError, "run ", id.value, " is not in the workspace ",
                 workspace.path().string());
    RunSummary summary = summarizeRun(workspace, *info);
    try {
      configs.push_back(runConfigValues(*info));
    } catch (const Error& e) {
      summary.configError = e.what();
      configs.emplace_back();
    }
    out.runs.push_back(std::move(summary));
  }
  out.configDifferences = diffConfigValues(configs);
  return out;
}

}  // namespace fathom::store
