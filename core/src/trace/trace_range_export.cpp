// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_range_export.h"

#include "fathom/common/error.h"
#include "fathom/trace/trace_event_view.h"
#include "fathom/trace/trace_file_sink.h"
#include "fathom/trace/trace_merge.h"
#include "fathom/trace/trace_reader.h"
#include "trace_json.h"
#include "trace_summarizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace fathom::trace {
namespace {

using nlohmann::json;

bool isGpuActivity(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset";
}

bool isLaunch(std::string_view cat) {
  return cat == "cuda_runtime" || cat == "cuda_driver";
}

/// A JSON value as text without `\u` escapes (appendJsonString for every string; nlohmann's dump() escapes control
/// characters as \u00XX, which Perfetto rejects).
void appendJson(std::string& out, const json& value) {
  if (value.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [key, item] : value.items()) {
      out += first ? "" : ",";
      first = false;
      appendJsonString(out, key);
      out += ':';
      appendJson(out, item);
    }
    out += '}';
  } else if (value.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < value.size(); ++i) {
      out += i > 0 ? "," : "";
      appendJson(out, value[i]);
    }
    out += ']';
  } else if (value.is_string()) {
    appendJsonString(out, value.get_ref<const std::string&>());
  } else {
    out += value.dump();
  }
}

/// Interns strings as dense ids.
class Interner {
public:
  std::uint32_t intern(const std::string& text) {
    const auto [it, added] = m_ids.try_emplace(text, static_cast<std::uint32_t>(m_ids.size()));
    return it->second;
  }
  std::optional<std::uint32_t> find(const std::string& text) const {
    const auto it = m_ids.find(text);
    return it == m_ids.end() ? std::nullopt : std::optional(it->second);
  }
  std::size_t size() const { return m_ids.size(); }

private:
  std::unordered_map<std::string, std::uint32_t> m_ids;
};

/// The export's two passes over one input. Pass 1 (scan) learns what the range needs beyond itself (the launches of
/// its GPU work, which flows are whole, each counter's last sample before the range); pass 2 (write) copies the
/// events chosen. Both passes apply the same per-event rules, so they agree on every event by its index.
class RangeExporter {
public:
  RangeExporter(std::function<TraceInput()> open, std::uint64_t totalRawBytes, const TraceRangeExportOptions& options)
      : m_open(std::move(open)), m_totalRawBytes(totalRawBytes), m_options(options) {
    FATHOM_CHECK(!options.range || options.range->startNs < options.range->endNs, ConfigError,
                 "trace export: the range [", options.range ? options.range->startNs : 0, ", ",
                 options.range ? options.range->endNs : 0, ") ns is empty");
    FATHOM_CHECK(options.progressEvery >= 1, ConfigError, "TraceRangeExportOptions::progressEvery must be >= 1");
    FATHOM_CHECK(!options.rank || *options.rank >= 0, ConfigError, "trace export: rank must be >= 0, got ",
                 options.rank.value_or(0));
    m_lo = options.range ? options.range->startNs : std::numeric_limits<std::int64_t>::min();
    m_hi = options.range ? options.range->endNs : std::numeric_limits<std::int64_t>::max();
    m_rows.insert(options.rows.begin(), options.rows.end());
  }

  TraceRangeExportResult run(const std::filesystem::path& output) {
    TraceRangeExportResult result;
    result.output = output;
    if (!scan()) {
      result.cancelled = true;
      return result;
    }
    resolve();
    TraceFileOptions fileOptions;
    fileOptions.gzip = m_options.gzip;
    TraceFileSink sink(output, fileOptions);
    if (!write(sink, result)) {
      sink.abandon();
      result.cancelled = true;
      return result;
    }
    sink.finish();
    result.bytesOut = sink.bytesOut();
    result.flowsDropped = m_flowsDropped;
    return result;
  }

private:
  struct Interval {
    std::int64_t start;
    std::int64_t end;
  };
  struct Launch {
    std::int64_t correlation;
    std::uint64_t event;  ///< its index in traceEvents
    std::uint32_t row;
    std::uint32_t pid;
    Interval time;
  };
  struct FlowPoint {
    std::uint32_t flow;
    std::uint32_t row;
    std::int64_t ts;
    bool enclosing;  ///< s, t, and f with "bp":"e": bound to the slice enclosing ts; else the next slice
  };
  struct LastSample {
    std::int64_t ts = 0;
    std::uint64_t event = std::numeric_limits<std::uint64_t>::max();  ///< none yet
  };

  /// The range rule of TraceSummaryOptions::range.
  bool meets(std::int64_t start, std::int64_t end) const {
    return start == end ? m_lo <= start && start < m_hi : start < m_hi && end > m_lo;
  }
  bool inRange(std::int64_t ts) const { return m_lo <= ts && ts < m_hi; }

  /// The rank filter, as `fathom trace summary --rank`: a merged trace's rows of that rank.
  bool rankKeeps(const TraceEventView& e) const {
    if (!m_options.rank || m_mergedRanks.empty()) {
      return true;
    }
    const std::optional<std::int64_t> pid = e.integer("pid");
    return pid && *pid / kMergedPidStride == *m_options.rank;
  }

  void rowKey(const TraceEventView& e) {
    m_key.assign(e.raw("pid"));
    m_key += '/';
    m_key += e.raw("tid");
  }
  bool rowSelected() const { return m_rows.empty() || m_rows.contains(m_key); }
  bool pidSelected(const TraceEventView& e) const {
    if (m_rows.empty()) {
      return true;
    }
    const std::optional<std::uint32_t> pid = m_pidIds.find(std::string(e.raw("pid")));
    return pid && *pid < m_pidKept.size() && m_pidKept[*pid];
  }
  void keepPid(std::string_view raw) {
    const std::uint32_t pid = m_pidIds.intern(std::string(raw));
    if (m_pidKept.size() <= pid) {
      m_pidKept.resize(pid + 1, false);
    }
    m_pidKept[pid] = true;
  }

  void flowKey(const TraceEventView& e) {
    std::string_view id = e.raw("id");
    m_key.assign(id.empty() ? e.raw("id2") : id);
    m_key += '\x1f';
    m_key += e.string("cat").value_or("");
    m_key += '\x1f';
    m_key += e.string("name").value_or("");
  }

  void parse(const TraceReader& reader) {
    if (!m_event.parse(reader.event())) {
      throw StorageError(reader.describeInEvent(
          m_event.errorOffset(), "malformed event #" + std::to_string(reader.eventIndex()) + ": " + m_event.error()));
    }
  }

  /// Progress and cancellation: false to stop.
  bool progress(double fraction) const {
    if (m_options.cancel != nullptr && m_options.cancel->load(std::memory_order_relaxed)) {
      return false;
    }
    return !m_options.onProgress || m_options.onProgress(std::clamp(fraction, 0.0, 1.0));
  }

  std::optional<std::int64_t> correlationOf(const TraceEventView& e) {
    if (!m_args.parse(e.raw("args"))) {
      return std::nullopt;
    }
    return m_args.integer("correlation");
  }

  bool scan() {
    TraceReader reader(m_open());
    m_name = reader.name();
    m_mergedRanks = detail::mergedRanks(reader.metadata());
    if (m_options.rank && !m_mergedRanks.empty()) {
      FATHOM_CHECK(std::find(m_mergedRanks.begin(), m_mergedRanks.end(), *m_options.rank) != m_mergedRanks.end(),
                   ConfigError, "--rank ", *m_options.rank, ": ", m_name, " is a merged trace of other ranks");
    }
    while (reader.next()) {
      parse(reader);
      const std::uint64_t index = reader.eventIndex();
      if (index % m_options.progressEvery == 0 && index > 0 &&
          !progress(m_totalRawBytes > 0
                        ? 0.5 * static_cast<double>(reader.rawBytesRead()) / static_cast<double>(m_totalRawBytes)
                        : 0.0)) {
        return false;
      }
      if (!rankKeeps(m_event)) {
        continue;
      }
      scanEvent(index);
    }
    m_events = reader.eventCount();
    m_metadata = reader.metadata();
    if (m_options.rank && m_mergedRanks.empty()) {
      const std::optional<int> rank = detail::fileRank(m_metadata);
      FATHOM_CHECK(rank == m_options.rank, ConfigError, "--rank ", *m_options.rank, ": ", m_name, " holds ",
                   rank ? "rank " + std::to_string(*rank) : "no rank", " only");
    }
    return progress(0.5);
  }

  void scanEvent(std::uint64_t index) {
    const char phase = m_event.phase();
    const std::optional<std::int64_t> ts = m_event.micros("ts");
    if (!m_rows.empty()) {
      rowKey(m_event);
      if (m_rows.contains(m_key)) {
        keepPid(m_event.raw("pid"));  // a selected row's process: its names, sort index and counters
      }
    }
    if (phase == 'X') {
      const std::optional<std::int64_t> dur = m_event.micros("dur");
      if (!ts || !dur) {
        return;
      }
      const Interval time{*ts, *ts + std::max<std::int64_t>(*dur, 0)};
      const std::string_view cat = m_event.string("cat").value_or("");
      rowKey(m_event);
      const bool kept = rowSelected() && meets(time.start, time.end);
      if (kept) {
        const std::uint32_t row = m_rowIds.intern(m_key);
        intervals(row).push_back(time);
        if (isGpuActivity(cat)) {
          if (const auto correlation = correlationOf(m_event)) {
            m_needed.insert(*correlation);
          }
        }
      } else if (isLaunch(cat)) {
        if (const auto correlation = correlationOf(m_event)) {
          m_launches.push_back(
              {*correlation, index, m_rowIds.intern(m_key), m_pidIds.intern(std::string(m_event.raw("pid"))), time});
        }
      }
    } else if (phase == 's' || phase == 't' || phase == 'f') {
      if (!ts) {
        return;
      }
      rowKey(m_event);
      const std::uint32_t row = m_rowIds.intern(m_key);
      const bool enclosing = phase != 'f' || m_event.string("bp") == "e";
      // A plain f binds to the next slice; it is kept when it lies in the range on a kept row.
      const bool plainCovered = rowSelected() && inRange(*ts);
      flowKey(m_event);
      const std::uint32_t flow = m_flowKeys.intern(m_key);
      m_flowPoints.push_back({flow, row, *ts, enclosing});
      if (!enclosing && !plainCovered) {
        m_plainUncovered.insert(flow);
      }
    } else if (phase == 'C' && ts && *ts < m_lo) {
      m_key.assign(m_event.raw("pid"));
      m_key += '\x1f';
      m_key += m_event.raw("name");
      LastSample& last = m_lastBefore[m_key];
      if (last.event == std::numeric_limits<std::uint64_t>::max() || *ts >= last.ts) {
        last = {*ts, index};
      }
    }
  }

  std::vector<Interval>& intervals(std::uint32_t row) {
    if (m_intervals.size() <= row) {
      m_intervals.resize(row + 1);
    }
    return m_intervals[row];
  }

  /// Between the passes: the launches of the kept GPU work join the kept slices; then each flow is whole or not.
  void resolve() {
    for (const Launch& launch : m_launches) {
      if (m_needed.contains(launch.correlation)) {
        m_extra.insert(launch.event);
        intervals(launch.row).push_back(launch.time);
        if (m_pidKept.size() <= launch.pid) {
          m_pidKept.resize(launch.pid + 1, false);
        }
        m_pidKept[launch.pid] = true;  // the launching thread's process: its names
      }
    }
    m_launches = {};
    // Per row: slices by start and the running latest end, so "ts lies in a kept slice" is one binary search.
    std::vector<std::vector<std::int64_t>> latestEnd(m_intervals.size());
    for (std::size_t row = 0; row < m_intervals.size(); ++row) {
      std::vector<Interval>& slices = m_intervals[row];
      std::sort(slices.begin(), slices.end(), [](const Interval& a, const Interval& b) { return a.start < b.start; });
      std::int64_t latest = std::numeric_limits<std::int64_t>::min();
      for (const Interval& s : slices) {
        latest = std::max(latest, s.end);
        latestEnd[row].push_back(latest);
      }
    }
    auto bound = [&](std::uint32_t row, std::int64_t ts) {
      if (row >= m_intervals.size()) {
        return false;
      }
      const std::vector<Interval>& slices = m_intervals[row];
      const auto after = std::upper_bound(slices.begin(), slices.end(), ts,
                                          [](std::int64_t t, const Interval& s) { return t < s.start; });
      const auto count = static_cast<std::size_t>(after - slices.begin());
      return count > 0 && latestEnd[row][count - 1] >= ts;
    };
    m_flowKept.assign(m_flowKeys.size(), true);
    for (const std::uint32_t flow : m_plainUncovered) {
      m_flowKept[flow] = false;
    }
    for (const FlowPoint& p : m_flowPoints) {
      if (p.enclosing && !bound(p.row, p.ts)) {
        m_flowKept[p.flow] = false;
      }
    }
    // A flow counts as dropped when some point of it touches the selection (a kept slice or the range on a kept row).
    std::vector<bool> touches(m_flowKeys.size(), false);
    for (const FlowPoint& p : m_flowPoints) {
      touches[p.flow] = touches[p.flow] || bound(p.row, p.ts) || inRange(p.ts);
    }
    for (std::size_t f = 0; f < m_flowKept.size(); ++f) {
      m_flowsDropped += !m_flowKept[f] && touches[f] ? 1 : 0;
    }
    m_flowPoints = {};
    for (const auto& [key, last] : m_lastBefore) {
      m_counterSamples.insert(last.event);
    }
  }

  /// The output's header: every top-level key of the input (fathomExport replaced), then fathomExport, all before
  /// traceEvents (readers such as the summary read distributedInfo before the events).
  std::string header() const {
    std::string out = "{";
    for (const auto& [key, value] : m_metadata.items()) {
      if (key == "fathomExport") {
        continue;
      }
      appendJsonString(out, key);
      out += ':';
      appendJson(out, value);
      out += ",\n";
    }
    out += "\"fathomExport\":{\"source\":";
    appendJsonString(out, m_name);
    if (m_options.range) {
      out += ",\"startNs\":";
      appendInteger(out, m_options.range->startNs);
      out += ",\"endNs\":";
      appendInteger(out, m_options.range->endNs);
    }
    if (m_options.rank) {
      out += ",\"rank\":";
      appendInteger(out, *m_options.rank);
    }
    if (!m_options.rows.empty()) {
      out += ",\"rows\":[";
      for (std::size_t i = 0; i < m_options.rows.size(); ++i) {
        out += i > 0 ? "," : "";
        appendJsonString(out, m_options.rows[i]);
      }
      out += ']';
    }
    out += "},\n\"traceEvents\":[\n";
    return out;
  }

  /// Whether pass 2 keeps the current event; counts it in `result`.
  bool keep(std::uint64_t index, TraceRangeExportResult& result) {
    const char phase = m_event.phase();
    if (phase == 'X' && m_extra.contains(index)) {
      ++result.slices;
      ++result.launchesAdded;
      return true;
    }
    if (!rankKeeps(m_event)) {
      return false;
    }
    if (phase == 'M') {
      const bool kept = pidSelected(m_event);
      result.metadataEvents += kept ? 1 : 0;
      return kept;
    }
    const std::optional<std::int64_t> ts = m_event.micros("ts");
    if (!ts) {
      return false;
    }
    if (phase == 's' || phase == 't' || phase == 'f') {
      flowKey(m_event);
      const std::optional<std::uint32_t> flow = m_flowKeys.find(m_key);
      const bool kept = flow && m_flowKept[*flow];
      result.flowEvents += kept ? 1 : 0;
      return kept;
    }
    if (phase == 'C') {
      const bool kept = pidSelected(m_event) && (inRange(*ts) || m_counterSamples.contains(index));
      result.counters += kept ? 1 : 0;
      return kept;
    }
    rowKey(m_event);
    if (!rowSelected()) {
      return false;
    }
    if (phase == 'X') {
      const std::optional<std::int64_t> dur = m_event.micros("dur");
      const bool kept = dur && meets(*ts, *ts + std::max<std::int64_t>(*dur, 0));
      result.slices += kept ? 1 : 0;
      return kept;
    }
    const bool kept = inRange(*ts);
    result.instants += kept && (phase == 'i' || phase == 'I') ? 1 : 0;
    return kept;
  }

  bool write(TraceFileSink& sink, TraceRangeExportResult& result) {
    TraceReader reader(m_open());
    sink.write(header());
    std::string line;
    while (reader.next()) {
      parse(reader);
      const std::uint64_t index = reader.eventIndex();
      if (index % m_options.progressEvery == 0 && index > 0 &&
          !progress(0.5 +
                    0.5 * static_cast<double>(index) / static_cast<double>(std::max<std::uint64_t>(m_events, 1)))) {
        return false;
      }
      if (!keep(index, result)) {
        continue;
      }
      line.assign(result.eventsWritten > 0 ? ",\n" : "");
      line += reader.event();
      sink.write(line);
      ++result.eventsWritten;
    }
    result.eventsRead = reader.eventCount();
    FATHOM_CHECK(result.eventsRead == m_events, StorageError, m_name, " changed while it was exported (", m_events,
                 " events, then ", result.eventsRead, ")");
    sink.write("\n]}\n");
    return progress(1.0);
  }

  std::function<TraceInput()> m_open;
  std::uint64_t m_totalRawBytes;
  const TraceRangeExportOptions& m_options;
  std::int64_t m_lo;
  std::int64_t m_hi;
  std::unordered_set<std::string> m_rows;

  std::string m_name;
  std::vector<int> m_mergedRanks;
  json m_metadata;
  std::uint64_t m_events = 0;
  TraceEventView m_event;
  TraceEventView m_args;
  std::string m_key;  ///< scratch: a row, flow or counter key

  Interner m_rowIds;
  std::vector<std::vector<Interval>> m_intervals;  ///< per row id: the kept X events
  Interner m_pidIds;                               ///< raw pid texts
  std::vector<bool> m_pidKept;                     ///< per pid id: a selected row's process (with a rows filter)
  std::unordered_set<std::int64_t> m_needed;       ///< correlations of kept GPU activity
  std::vector<Launch> m_launches;                  ///< launches not kept by themselves
  std::unordered_set<std::uint64_t> m_extra;       ///< launches kept for their GPU work, by event index
  Interner m_flowKeys;
  std::vector<FlowPoint> m_flowPoints;
  std::unordered_set<std::uint32_t> m_plainUncovered;
  std::vector<bool> m_flowKept;
  std::uint64_t m_flowsDropped = 0;
  std::unordered_map<std::string, LastSample> m_lastBefore = {};
  std::unordered_set<std::uint64_t> m_counterSamples;
};

}  // namespace

TraceRangeExportResult exportTraceRange(const std::filesystem::path& input, const std::filesystem::path& output,
                                        const TraceRangeExportOptions& options) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(input, error);
  RangeExporter exporter([input] { return TraceInput::openFile(input); }, error ? 0 : size, options);
  return exporter.run(output);
}

TraceRangeExportResult exportTraceRange(const std::function<TraceInput()>& open, const std::filesystem::path& output,
                                        const TraceRangeExportOptions& options) {
  RangeExporter exporter(open, 0, options);
  return exporter.run(output);
}

}  // namespace fathom::trace
