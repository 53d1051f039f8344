// SPDX-License-Identifier: Apache-2.0
// `fathom runs list|show|watch|compare|export|plan-vs-actual|delete`: reads (and prunes) the runs of a workspace.
// docs/workspace.md.
#include "command.h"
#include "runs_plan_vs_actual.h"
#include "runs_watch.h"
#include "text_table.h"
#include "workspace_flag.h"

#include <fathom/bigmodel/dispatch_record.h>
#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>
#include <fathom/common/terminal_text.h>
#include <fathom/config/config_resolver.h>
#include <fathom/store/run_comparison.h>
#include <fathom/store/workspace.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

namespace fathom::cli {
namespace {

using nlohmann::json;
using store::MetricSummary;
using store::RunInfo;
using store::Workspace;

struct RunsFlags {
  std::string workspace;  ///< --workspace; empty: FATHOM_WORKSPACE, the config's fathom.workspace, ./fathom.sqlite
  bool json = false;
  std::string run;
  std::vector<std::string> runs;  ///< compare: two or more
  std::string format = "csv";
  std::string output;
  bool force = false;
  int logLines = 20;      ///< show: the last N log lines
  std::string keyPrefix;  ///< export: only keys starting with this
};

constexpr std::string_view kMemoryPrefix = "memory/";

bool isMemoryKey(const std::string& key) {
  return key.rfind(kMemoryPrefix, 0) == 0;
}

/// "1.5 GiB", "12.0 MiB", "512 B".
std::string formatBytes(double bytes) {
  return formatBinaryBytes(bytes, 1);
}

Workspace openWorkspace(const RunsFlags& flags) {
  return openExistingWorkspace(flags.workspace);
}

std::string formatTime(double seconds) {
  const auto t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%S", &tm);
  return text;
}

std::string formatNumber(double v) {
  if (std::isnan(v)) {
    return "nan";
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

/// Exact text for export: round-trips every double.
std::string exactNumber(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

std::string duration(const RunInfo& r) {
  const double start = r.startedAt.value_or(r.createdAt);
  if (!r.endedAt) {
    return "-";
  }
  std::ostringstream out;
  out << std::fixed << std::setprecision(1) << (*r.endedAt - start) << " s";
  return out.str();
}

/// "fsdp/full_shard", "zero2", "ddp"; "-" when the record does not say.
std::string strategyText(const store::RunLayout& layout) {
  return layout.strategy ? store::strategyLabel(*layout.strategy) : "-";
}

json runJson(const RunInfo& r) {
  auto opt = [](const auto& o) { return o ? json(*o) : json(nullptr); };
  auto known = [](const auto& v, const auto& unknown) { return v == unknown ? json(nullptr) : json(v); };
  json hosts = json::array();
  for (const std::string& host : r.layout.hosts) {
    hosts.push_back(known(host, std::string()));
  }
  return {{"id", r.id.value},
          {"name", r.name},
          {"status", store::toString(r.status)},
          {"created_at", r.createdAt},
          {"started_at", opt(r.startedAt)},
          {"ended_at", opt(r.endedAt)},
          {"exit_code", opt(r.exitCode)},
          {"command_line", r.commandLine},
          {"host", r.host},
          {"launcher_pid", r.launcherPid},
          {"config_format", r.configFormat},
          {"strategy", r.layout.strategy ? json(store::strategyLabel(*r.layout.strategy)) : json(nullptr)},
          {"world_size", known(r.layout.worldSize, 0)},
          {"num_machines", known(r.layout.numMachines, 0)},
          {"mixed_precision", known(r.layout.mixedPrecision, std::string())},
          {"hosts", hosts},
          {"slurm_job_id", known(r.slurmJobId, std::string())}};
}

json summaryJson(const MetricSummary& m) {
  return {{"key", m.key},           {"rank", m.rank},       {"count", m.count},    {"last_step", m.lastStep},
          {"last", number(m.last)}, {"min", number(m.min)}, {"max", number(m.max)}};
}

int listRuns(const RunsFlags& flags) {
  const Workspace ws = openWorkspace(flags);
  const auto runs = ws.listRuns();
  if (flags.json) {
    json out = json::array();
    for (const auto& r : runs) {
      out.push_back(runJson(r));
    }
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  if (runs.empty()) {
    std::cout << "No runs in " << ws.path().string() << ".\n";
    return 0;
  }
  std::vector<std::vector<std::string>> rows{
      {"ID", "NAME", "STATUS", "CREATED (UTC)", "DURATION", "EXIT", "STRATEGY", "PROCESSES", "HOST"}};
  for (const auto& r : runs) {
    rows.push_back({std::to_string(r.id.value), r.name, std::string(store::toString(r.status)), formatTime(r.createdAt),
                    duration(r), r.exitCode ? std::to_string(*r.exitCode) : "-", strategyText(r.layout),
                    r.layout.worldSize > 0 ? std::to_string(r.layout.worldSize) : "-", r.host});
  }
  printTable(std::cout, rows);
  return 0;
}

int showRun(const RunsFlags& flags) {
  const Workspace ws = openWorkspace(flags);
  const RunInfo r = ws.resolveRun(flags.run);
  const auto ranks = ws.ranks(r.id);
  const auto summaries = ws.metricSummaries(r.id);
  const auto artifacts = ws.artifacts(r.id);
  const auto heartbeats = ws.heartbeats(r.id);
  const auto alerts = ws.alerts(r.id);
  const auto traces = ws.traces(r.id);
  const auto deviceMaps = ws.deviceMaps(r.id);
  const auto logLines = ws.lastEvents(r.id, static_cast<std::size_t>(std::max(flags.logLines, 0)));
  if (flags.json) {
    json out = runJson(r);
    out["config_text"] = r.configText;
    out["run_spec"] = r.runSpec;
    out["ranks"] = json::array();
    for (const auto& k : ranks) {
      out["ranks"].push_back({{"rank", k.rank},
                              {"host", k.host},
                              {"pid", k.pid},
                              {"device", k.device},
                              {"exit_code", k.exitCode ? json(*k.exitCode) : json(nullptr)}});
    }
    out["metrics"] = json::array();
    for (const auto& m : summaries) {
      out["metrics"].push_back(summaryJson(m));
    }
    out["artifacts"] = json::array();
    for (const auto& a : artifacts) {
      out["artifacts"].push_back(
          {{"kind", store::toString(a.artifact.kind)}, {"path", a.artifact.path}, {"bytes", a.artifact.bytes}});
    }
    // Each record whole (bigmodel::DispatchRecord's JSON: tree, map, limits): `jq '.device_maps[0].record.device_map'`.
    out["device_maps"] = json::array();
    for (const auto& d : deviceMaps) {
      out["device_maps"].push_back({{"id", d.id.value},
                                    {"rank", d.map.rank},
                                    {"created_at", d.map.createdAt},
                                    {"record", json::parse(d.map.recordJson, nullptr, /*allow_exceptions=*/false)}});
    }
    out["heartbeats"] = json::array();
    for (const auto& h : heartbeats) {
      out["heartbeats"].push_back({{"rank", h.rank},
                                   {"time", h.time},
                                   {"step", h.step},
                                   {"entered", store::positionToJson(h.entered)},
                                   {"finished", store::positionToJson(h.finished)}});
    }
    out["alerts"] = json::array();
    for (const auto& a : alerts) {
      out["alerts"].push_back(store::alertToJson(a));
    }
    out["traces"] = json::array();
    for (const auto& t : traces) {
      out["traces"].push_back({{"name", t.name}, {"rank", t.rank}, {"chunks", t.chunks}, {"bytes", t.bytes}});
    }
    // The memory series (memory/* metrics) per rank: the latest sample and the peak.
    out["memory"] = json::array();
    for (const auto& m : summaries) {
      if (isMemoryKey(m.key)) {
        out["memory"].push_back({{"key", m.key.substr(kMemoryPrefix.size())},
                                 {"rank", m.rank},
                                 {"samples", m.count},
                                 {"latest", number(m.last)},
                                 {"latest_step", m.lastStep},
                                 {"peak", number(m.max)}});
      }
    }
    out["log"] = json::array();
    for (const auto& e : logLines) {
      out["log"].push_back({{"time", e.event.time},
                            {"rank", e.event.rank},
                            {"level", std::string(fathom::toString(e.event.level))},
                            {"text", e.event.text}});
    }
    std::cout << out.dump(2) << '\n';
    return 0;
  }
  std::cout << "Run " << r.id.value << " \"" << r.name << "\": " << store::toString(r.status) << '\n';
  printTable(
      std::cout,
      {{"created", formatTime(r.createdAt) + " UTC"},
       {"ended", r.endedAt ? formatTime(*r.endedAt) + " UTC (" + duration(r) + ")" : "-"},
       {"exit code", r.exitCode ? std::to_string(*r.exitCode) : "-"},
       {"host", r.host + " (launcher pid " + std::to_string(r.launcherPid) + ")"},
       {"slurm job", r.slurmJobId.empty() ? "-" : r.slurmJobId},
       {"strategy", strategyText(r.layout)},
       {"processes", r.layout.worldSize > 0
                         ? std::to_string(r.layout.worldSize) + " on " +
                               (r.layout.numMachines > 0 ? std::to_string(r.layout.numMachines) : std::string("?")) +
                               " machine(s)"
                         : "-"},
       {"precision", r.layout.mixedPrecision.empty() ? "-" : r.layout.mixedPrecision},
       {"command", r.commandLine.empty() ? "-" : r.commandLine},
       {"config", r.configText.empty() ? "-" : r.configFormat + ", " + std::to_string(r.configText.size()) + " bytes"},
       {"run spec",
        r.runSpec.empty() ? "-" : "Accelerate YAML, " + std::to_string(r.runSpec.size()) + " bytes (--json)"}});
  if (!ranks.empty()) {
    std::cout << "Ranks\n";
    std::vector<std::vector<std::string>> rows{{"RANK", "HOST", "PID", "DEVICE", "EXIT"}};
    for (const auto& k : ranks) {
      rows.push_back({std::to_string(k.rank), k.host, std::to_string(k.pid), k.device,
                      k.exitCode ? std::to_string(*k.exitCode) : "-"});
    }
    printTable(std::cout, rows);
  }
  std::cout << "Metrics\n";
  std::vector<std::vector<std::string>> metricRows{{"KEY", "RANK", "COUNT", "LAST", "AT STEP", "MIN", "MAX"}};
  std::vector<std::vector<std::string>> memoryRows{{"RANK", "KEY", "SAMPLES", "LATEST", "AT STEP", "PEAK"}};
  for (const auto& m : summaries) {
    if (isMemoryKey(m.key)) {
      memoryRows.push_back({std::to_string(m.rank), m.key.substr(kMemoryPrefix.size()), std::to_string(m.count),
                            formatBytes(m.last), std::to_string(m.lastStep), formatBytes(m.max)});
    } else {
      metricRows.push_back({m.key, std::to_string(m.rank), std::to_string(m.count), formatNumber(m.last),
                            std::to_string(m.lastStep), formatNumber(m.min), formatNumber(m.max)});
    }
  }
  if (metricRows.size() == 1) {
    std::cout << "  (none)\n";
  } else {
    printTable(std::cout, metricRows);
  }
  if (memoryRows.size() > 1) {
    // Sorted by rank, then key.
    std::stable_sort(memoryRows.begin() + 1, memoryRows.end(),
                     [](const auto& a, const auto& b) { return std::stoi(a[0]) < std::stoi(b[0]); });
    std::cout << "Memory (latest sample and peak per rank)\n";
    printTable(std::cout, memoryRows);
  }
  if (!heartbeats.empty()) {
    std::cout << "Heartbeats\n";
    std::vector<std::vector<std::string>> rows{{"RANK", "LAST SEEN (UTC)", "STEP"}};
    for (const auto& h : heartbeats) {
      rows.push_back({std::to_string(h.rank), formatTime(h.time), std::to_string(h.step)});
    }
    printTable(std::cout, rows);
  }
  if (!alerts.empty()) {
    // The run monitor's typed alerts (docs/launch.md, "Hang and straggler detection").
    std::cout << "Alerts\n";
    std::vector<std::vector<std::string>> rows{{"ID", "KIND", "RAISED (UTC)", "BEHIND", "STATUS", "DETAIL"}};
    for (const auto& a : alerts) {
      std::string behind;
      for (int rank : a.alert.behind()) {
        if (!behind.empty()) {
          behind += ',';
        }
        behind += std::to_string(rank);
      }
      rows.push_back({std::to_string(a.id.value), std::string(store::toString(a.alert.kind)), formatTime(a.alert.time),
                      behind.empty() ? "-" : behind,
                      a.alert.resolvedAt ? std::string(store::toString(a.alert.end)) : "open",
                      store::describeAlert(a.alert)});
    }
    printTable(std::cout, rows);
  }
  if (!traces.empty()) {
    std::cout << "Traces\n";
    std::vector<std::vector<std::string>> rows{{"NAME", "RANK", "CHUNKS", "BYTES"}};
    for (const auto& t : traces) {
      rows.push_back({t.name, std::to_string(t.rank), std::to_string(t.chunks), std::to_string(t.bytes)});
    }
    printTable(std::cout, rows);
  }
  if (!deviceMaps.empty()) {
    std::cout << "Device maps (the Studio's run page opens them)\n";
    std::vector<std::vector<std::string>> rows{{"RANK", "TIME (UTC)", "MODEL", "ENTRIES"}};
    for (const auto& d : deviceMaps) {
      try {
        const bigmodel::DispatchRecord record = bigmodel::dispatchRecordFromJson(d.map.recordJson, "the record");
        rows.push_back({std::to_string(d.map.rank), formatTime(d.map.createdAt), terminalSafe(record.modelName),
                        std::to_string(record.deviceMap.size())});
      } catch (const ConfigError& e) {
        rows.push_back({std::to_string(d.map.rank), formatTime(d.map.createdAt), terminalSafe(e.what()), "-"});
      }
    }
    printTable(std::cout, rows);
  }
  if (!artifacts.empty()) {
    std::cout << "Artifacts\n";
    std::vector<std::vector<std::string>> rows{{"KIND", "BYTES", "PATH"}};
    for (const auto& a : artifacts) {
      rows.push_back(
          {std::string(store::toString(a.artifact.kind)), std::to_string(a.artifact.bytes), a.artifact.path});
    }
    printTable(std::cout, rows);
  }
  if (!logLines.empty()) {
    std::cout << "Log (last " << logLines.size() << " lines)\n";
    std::vector<std::vector<std::string>> rows{{"TIME (UTC)", "RANK", "LEVEL", "TEXT"}};
    for (const auto& e : logLines) {
      rows.push_back({formatTime(e.event.time), std::to_string(e.event.rank),
                      std::string(fathom::toString(e.event.level)), e.event.text});
    }
    printTable(std::cout, rows);
  }
  return 0;
}

json optionalNumber(const std::optional<double>& v) {
  return v ? number(*v) : json(nullptr);
}

json summaryJson(const store::RunSummary& s) {
  json peaks = json::array();
  for (const store::RankPeakMemory& p : s.peakMemory) {
    peaks.push_back({{"rank", p.rank},
                     {"device_bytes", optionalNumber(p.deviceBytes)},
                     {"host_bytes", optionalNumber(p.hostBytes)}});
  }
  return {{"id", s.info.id.value},
          {"world_size", s.worldSize > 0 ? json(s.worldSize) : json(nullptr)},
          {"strategy", s.strategy.empty() ? json(nullptr) : json(s.strategy)},
          {"steps_per_second", optionalNumber(s.stepsPerSecond)},
          {"final_loss", optionalNumber(s.finalLoss)},
          {"last_step", s.lastStep ? json(*s.lastStep) : json(nullptr)},
          {"peak_memory", peaks},
          {"config_error", s.configError.empty() ? json(nullptr) : json(s.configError)}};
}

/// "0: 1.2 GiB, 1: 1.3 GiB" over the ranks that sampled the kind.
std::string peaksText(const store::RunSummary& s, bool device) {
  std::string out;
  for (const store::RankPeakMemory& p : s.peakMemory) {
    if (const auto& v = device ? p.deviceBytes : p.hostBytes) {
      out += (out.empty() ? "" : ", ") + std::to_string(p.rank) + ": " + formatBytes(*v);
    }
  }
  return out.empty() ? "-" : out;
}

/// Two or more runs: the configuration keys that differ (store::compareRuns, shared with the Studio), a summary per
/// run, and the last value of every (key, rank). JSON keeps "a" and "b" (the first two runs) for scripts written
/// against the two-run form.
int compareRuns(const RunsFlags& flags) {
  FATHOM_CHECK(flags.runs.size() >= 2, ConfigError, "runs compare needs two or more runs, got ", flags.runs.size());
  const Workspace ws = openWorkspace(flags);
  std::vector<RunInfo> runs;
  std::vector<store::RunId> ids;
  for (const std::string& name : flags.runs) {
    runs.push_back(ws.resolveRun(name));
    ids.push_back(runs.back().id);
  }
  const store::RunComparison comparison = store::compareRuns(ws, ids);
  // (key, rank) -> last value in each run.
  std::map<std::pair<std::string, int>, std::vector<std::optional<double>>> table;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (const auto& m : ws.metricSummaries(runs[i].id)) {
      auto& values = table[{m.key, m.rank}];
      values.resize(runs.size());
      values[i] = m.last;
    }
  }
  for (auto& entry : table) {
    entry.second.resize(runs.size());
  }
  if (flags.json) {
    json rows = json::array();
    for (const auto& [where, values] : table) {
      json all = json::array();
      for (const auto& v : values) {
        all.push_back(optionalNumber(v));
      }
      rows.push_back({{"key", where.first},
                      {"rank", where.second},
                      {"a", optionalNumber(values[0])},
                      {"b", optionalNumber(values[1])},
                      {"values", all}});
    }
    json runsJson = json::array(), summaries = json::array(), diff = json::array();
    for (const RunInfo& r : runs) {
      runsJson.push_back(runJson(r));
    }
    for (const store::RunSummary& summary : comparison.runs) {
      summaries.push_back(summaryJson(summary));
    }
    for (const store::ConfigDifference& d : comparison.configDifferences) {
      json values = json::array();
      for (const auto& v : d.values) {
        values.push_back(v ? json(*v) : json(nullptr));
      }
      diff.push_back({{"key", d.key}, {"values", values}});
    }
    std::cout << json{{"runs", runsJson},    {"a", runsJson[0]},     {"b", runsJson[1]},
                      {"config_diff", diff}, {"summary", summaries}, {"metrics", rows}}
                     .dump(2)
              << '\n';
    return 0;
  }
  std::vector<std::string> names;
  for (const RunInfo& r : runs) {
    names.push_back("#" + std::to_string(r.id.value) + " " + r.name);
  }
  std::cout << "Configuration differences";
  if (comparison.configDifferences.empty()) {
    std::cout << ": none (the runs' configurations are the same)\n";
  } else {
    std::cout << " (only the keys that differ):\n";
    std::vector<std::vector<std::string>> rows{{"KEY"}};
    rows[0].insert(rows[0].end(), names.begin(), names.end());
    for (const store::ConfigDifference& d : comparison.configDifferences) {
      std::vector<std::string> row{d.key};
      for (const auto& v : d.values) {
        row.push_back(v ? *v : std::string("(not set)"));
      }
      rows.push_back(std::move(row));
    }
    printTable(std::cout, rows);
  }
  for (const store::RunSummary& summary : comparison.runs) {
    if (!summary.configError.empty()) {
      std::cout << "  run " << summary.info.id.value << "'s configuration could not be read: " << summary.configError
                << '\n';
    }
  }
  std::cout << "\nSummary:\n";
  std::vector<std::vector<std::string>> summaryRows{
      {"RUN", "STATUS", "WORLD", "STRATEGY", "STEPS/S", "FINAL LOSS", "LAST STEP", "PEAK DEVICE", "PEAK HOST"}};
  for (std::size_t i = 0; i < comparison.runs.size(); ++i) {
    const store::RunSummary& s = comparison.runs[i];
    auto opt = [](const std::optional<double>& v) { return v ? formatNumber(*v) : std::string("-"); };
    summaryRows.push_back({names[i], std::string(store::toString(s.info.status)),
                           s.worldSize > 0 ? std::to_string(s.worldSize) : "-", s.strategy.empty() ? "-" : s.strategy,
                           opt(s.stepsPerSecond), opt(s.finalLoss), s.lastStep ? std::to_string(*s.lastStep) : "-",
                           peaksText(s, true), peaksText(s, false)});
  }
  printTable(std::cout, summaryRows);
  std::cout << "\nLast values:\n";
  std::vector<std::vector<std::string>> rows{{"KEY", "RANK"}};
  rows[0].insert(rows[0].end(), names.begin(), names.end());
  const bool two = runs.size() == 2;
  if (two) {
    rows[0].push_back("B - A");
  }
  auto cell = [](const std::optional<double>& v) { return v ? formatNumber(*v) : std::string("-"); };
  for (const auto& [where, values] : table) {
    std::vector<std::string> row{where.first, std::to_string(where.second)};
    for (const auto& v : values) {
      row.push_back(cell(v));
    }
    if (two) {
      row.push_back(values[0] && values[1] ? formatNumber(*values[1] - *values[0]) : std::string("-"));
    }
    rows.push_back(std::move(row));
  }
  printTable(std::cout, rows);
  return 0;
}

std::string csvField(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) {
    return text;
  }
  std::string out = "\"";
  for (const char c : text) {
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  }
  return out + "\"";
}

int exportRun(const RunsFlags& flags) {
  FATHOM_CHECK(flags.format == "csv" || flags.format == "jsonl", ConfigError, "--format must be csv or jsonl, got \"",
               flags.format, "\"");
  const Workspace ws = openWorkspace(flags);
  const RunInfo r = ws.resolveRun(flags.run);
  // To a file: through AtomicFile (a temporary next to it, fsynced and renamed over it once whole), so an export that
  // fails or is interrupted leaves the previous file as it was and no half file under either name.
  std::optional<AtomicFile> file;
  if (!flags.output.empty()) {
    file.emplace(flags.output, AtomicFileOptions{.what = "metrics export"});
  }
  std::string pending;  // rows not yet handed to the file or standard output
  const auto flush = [&] {
    if (file) {
      file->write(pending);
    } else {
      std::cout << pending;
    }
    pending.clear();
  };
  const auto emit = [&](const std::string& row) {
    pending += row;
    if (pending.size() >= (std::size_t{1} << 20)) {
      flush();
    }
  };
  std::int64_t count = 0;
  const auto selected = [&](const store::MetricRow& m) { return m.point.key.rfind(flags.keyPrefix, 0) == 0; };
  if (flags.format == "csv") {
    emit("run_id,rank,step,wall_time,key,value\n");
    ws.forEachMetric(r.id, [&](const store::MetricRow& m) {
      if (!selected(m)) {
        return;
      }
      emit(detail::concat(m.run.value, ',', m.point.rank, ',', m.point.step, ',', exactNumber(m.point.wallTime), ',',
                          csvField(m.point.key), ',', std::isnan(m.point.value) ? "" : exactNumber(m.point.value),
                          '\n'));
      ++count;
    });
  } else {
    ws.forEachMetric(r.id, [&](const store::MetricRow& m) {
      if (!selected(m)) {
        return;
      }
      emit(json{{"run_id", m.run.value},
                {"rank", m.point.rank},
                {"step", m.point.step},
                {"wall_time", m.point.wallTime},
                {"key", m.point.key},
                {"value", number(m.point.value)}}
               .dump() +
           '\n');
      ++count;
    });
  }
  flush();
  if (file) {
    file->commit();
    std::cerr << "Exported " << count << " metric points of run " << r.id.value << " to " << flags.output << '\n';
  } else {
    std::cout.flush();
  }
  return 0;
}

int deleteRun(const RunsFlags& flags) {
  Workspace ws = openWorkspace(flags);
  const RunInfo r = ws.resolveRun(flags.run);
  ws.deleteRun(r.id, flags.force);
  if (flags.json) {
    std::cout << json{{"deleted", r.id.value}, {"name", r.name}}.dump() << '\n';
  } else {
    std::cout << "Deleted run " << r.id.value << " (" << r.name << ").\n";
  }
  return 0;
}

}  // namespace

void addRunsCommand(CLI::App& root, CommandAction& action) {
  auto flags = std::make_shared<RunsFlags>();
  CLI::App* cmd =
      root.add_subcommand("runs", "List, inspect, watch, compare, export and delete the runs of a workspace");
  cmd->require_subcommand(1);
  auto common = [flags](CLI::App* sub, bool json) {
    addWorkspaceOption(*sub, flags->workspace);
    if (json) {
      sub->add_flag("--json", flags->json, "Print JSON instead of text");
    }
  };

  CLI::App* list = cmd->add_subcommand("list", "List every run: id, name, status, times, exit code, host");
  common(list, true);
  list->callback([flags, &action] { action = [flags] { return listRuns(*flags); }; });

  CLI::App* show = cmd->add_subcommand("show", "Print a run's facts, ranks, per-key metric summaries per rank, memory "
                                               "per rank, hang and straggler alerts and last log lines");
  common(show, true);
  show->add_option("run", flags->run, "Run id or name (the newest run of that name)")->required();
  show->add_option("--log_lines,--log-lines", flags->logLines, "How many of the run's last log lines to show")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  show->callback([flags, &action] { action = [flags] { return showRun(*flags); }; });

  addRunsWatchCommand(*cmd, action);

  CLI::App* compare = cmd->add_subcommand(
      "compare", "Compare two or more runs: the configuration keys that differ, a summary of each (steps/s, final "
                 "loss, peak memory per rank, strategy, world size) and their last metric values side by side");
  common(compare, true);
  compare->add_option("runs", flags->runs, "Two or more runs (ids or names)")->required()->expected(2, -1);
  compare->callback([flags, &action] { action = [flags] { return compareRuns(*flags); }; });

  CLI::App* exportCmd = cmd->add_subcommand("export", "Write all metrics of a run as CSV or JSON lines");
  common(exportCmd, false);
  exportCmd->add_option("run", flags->run, "Run id or name")->required();
  exportCmd->add_option("--format", flags->format, "csv or jsonl")->check(CLI::IsMember({"csv", "jsonl"}));
  exportCmd->add_option("--output,-o", flags->output, "Write to this file instead of standard output");
  exportCmd->add_option("--key_prefix,--key-prefix", flags->keyPrefix,
                        "Only the keys that start with this (e.g. memory/ for the memory samples)");
  exportCmd->callback([flags, &action] { action = [flags] { return exportRun(*flags); }; });

  addRunsPlanVsActual(*cmd, action);

  CLI::App* del = cmd->add_subcommand("delete", "Delete a run and all it recorded (not a running one without --force)");
  common(del, true);
  del->add_option("run", flags->run, "Run id or name")->required();
  del->add_flag("--force", flags->force, "Delete even a run whose status is still running");
  del->callback([flags, &action] { action = [flags] { return deleteRun(*flags); }; });
}

}  // namespace fathom::cli
