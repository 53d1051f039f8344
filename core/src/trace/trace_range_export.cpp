// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_range_export.h"

#include "event_fields.h"
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
  std::size_t size() const { return m_ids.size(); }

private:
  std::unordered_map<std::string, std::uint32_t> m_ids;
};

/// The export's two passes over one input. Pass 1 (scan) parses every event and decides, by its index in
/// traceEvents, which are kept: most at once, the rest once the whole file is known (the launches of the kept GPU
/// work, which flows are whole, each counter's last sample before the range, and, with a rows filter, the metadata
/// and counters of the rows' processes). Pass 2 (write) only scans: it copies the events whose bit is set, unparsed.
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
    m_result.output = output;
    if (!scan()) {
      m_result.cancelled = true;
      return m_result;
    }
    resolve();
    TraceFileOptions fileOptions;
    fileOptions.gzip = m_options.gzip;
    TraceFileSink sink(output, fileOptions);
    if (!write(sink)) {
      sink.abandon();
      m_result = {.output = output, .cancelled = true};
      return m_result;
    }
    sink.finish();
    m_result.bytesOut = sink.bytesOut();
    return m_result;
  }

private:
  struct Interval {
    std::int64_t start;
    std::int64_t end;
  };
  /// A launch not kept by itself: kept after all when GPU work with its correlation is.
  struct Launch {
    std::int64_t correlation;
    std::uint64_t event;
    std::uint32_t row;
    std::uint32_t pid;
    Interval time;
  };
  struct FlowPoint {
    std::uint64_t event;
    std::uint32_t flow;
    std::uint32_t row;
    std::int64_t ts;
    bool enclosing;  ///< s, t, and f with "bp":"e": bound to the slice enclosing ts; else the next slice
    bool covered;    ///< a plain f: it lies in the range on a kept row
  };
  struct LastSample {
    std::int64_t ts = 0;
    std::uint64_t event = std::numeric_limits<std::uint64_t>::max();  ///< none yet
    std::uint32_t pid = 0;
  };
  /// A metadata event or counter sample kept when its process is (with a rows filter, known after pass 1).
  struct PerProcess {
    std::uint64_t event;
    std::uint32_t pid;
    bool counter;
  };

  /// The range rule of TraceSummaryOptions::range.
  bool meets(std::int64_t start, std::int64_t end) const {
    return start == end ? m_lo <= start && start < m_hi : start < m_hi && end > m_lo;
  }
  bool inRange(std::int64_t ts) const { return m_lo <= ts && ts < m_hi; }

  /// The rank filter, as `fathom trace summary --rank`: a merged trace's rows of that rank.
  bool rankKeeps() const {
    if (!m_options.rank || m_mergedRanks.empty()) {
      return true;
    }
    const std::optional<std::int64_t> pid = m_event.integer("pid");
    return pid && mergedRankOf(*pid) == *m_options.rank;
  }

  /// m_key = "<pid>/<tid>" (raw texts); returns whether the rows filter keeps it.
  bool rowSelected() {
    m_key.assign(m_event.raw("pid"));
    m_key += '/';
    m_key += m_event.raw("tid");
    return m_rows.empty() || m_rows.contains(m_key);
  }
  std::uint32_t pidId() { return m_pidIds.intern(std::string(m_event.raw("pid"))); }
  void keepPid(std::uint32_t pid) {
    if (m_pidKept.size() <= pid) {
      m_pidKept.resize(pid + 1, false);
    }
    m_pidKept[pid] = true;
  }
  bool pidKept(std::uint32_t pid) const { return m_rows.empty() || (pid < m_pidKept.size() && m_pidKept[pid]); }

  /// Progress and cancellation: false to stop.
  bool progress(double fraction) const {
    if (m_options.cancel != nullptr && m_options.cancel->load(std::memory_order_relaxed)) {
      return false;
    }
    return !m_options.onProgress || m_options.onProgress(std::clamp(fraction, 0.0, 1.0));
  }

  std::optional<std::int64_t> correlation() {
    if (!m_args.parse(m_event.raw("args"))) {
      return std::nullopt;
    }
    return m_args.integer("correlation");
  }

  void keep(std::uint64_t event) { m_keep[event] = true; }

  bool scan() {
    TraceReader reader(m_open());
    m_name = reader.name();
    m_mergedRanks = detail::mergedRanks(reader.metadata());
    if (m_options.rank && !m_mergedRanks.empty()) {
      FATHOM_CHECK(std::find(m_mergedRanks.begin(), m_mergedRanks.end(), *m_options.rank) != m_mergedRanks.end(),
                   ConfigError, "--rank ", *m_options.rank, ": ", m_name, " is a merged trace of other ranks");
    }
    while (reader.next()) {
      const std::uint64_t index = reader.eventIndex();
      if (index % m_options.progressEvery == 0 && index > 0 &&
          !progress(m_totalRawBytes > 0
                        ? 0.5 * static_cast<double>(reader.rawBytesRead()) / static_cast<double>(m_totalRawBytes)
                        : 0.0)) {
        return false;
      }
      const detail::EventTimes times = detail::readCheckedEvent(reader, m_event);
      m_keep.push_back(false);
      if (rankKeeps()) {
        scanEvent(index, times);
      }
    }
    m_result.eventsRead = reader.eventCount();
    m_metadata = reader.metadata();
    if (m_options.rank && m_mergedRanks.empty()) {
      const std::optional<int> rank = detail::fileRank(m_metadata);
      FATHOM_CHECK(rank == m_options.rank, ConfigError, "--rank ", *m_options.rank, ": ", m_name, " holds ",
                   rank ? "rank " + std::to_string(*rank) : "no rank", " only");
    }
    return progress(0.5);
  }

  /// `times` were checked by readCheckedEvent: X events have ts and dur >= 0, every phase but M a ts.
  void scanEvent(std::uint64_t index, const detail::EventTimes& times) {
    const char phase = times.phase;
    const bool selected = rowSelected();  // sets m_key to the row
    if (!m_rows.empty() && selected) {
      keepPid(pidId());  // a selected row's process: its names, sort index and counters
    }
    if (phase == 'M') {
      m_perProcess.push_back({index, pidId(), false});
      return;
    }
    const std::optional<std::int64_t> ts = times.ts;
    if (phase == 'X') {
      const Interval time{*ts, *ts + times.dur};
      const std::string_view cat = m_event.string("cat").value_or("");
      if (selected && meets(time.start, time.end)) {
        keep(index);
        ++m_result.slices;
        intervals(m_rowIds.intern(m_key)).push_back(time);
        if (isGpuActivity(cat)) {
          if (const auto c = correlation()) {
            m_needed.insert(*c);
          }
        }
      } else if (isLaunch(cat)) {
        if (const auto c = correlation()) {
          m_launches.push_back({*c, index, m_rowIds.intern(m_key), pidId(), time});
        }
      }
    } else if (phase == 's' || phase == 't' || phase == 'f') {
      const std::uint32_t row = m_rowIds.intern(m_key);
      const bool enclosing = phase != 'f' || m_event.string("bp") == "e";
      const bool covered = selected && inRange(*ts);
      std::string_view id = m_event.raw("id");
      m_key.assign(id.empty() ? m_event.raw("id2") : id);  // Perfetto matches v1 flows by (id, cat, name)
      m_key += '\x1f';
      m_key += m_event.string("cat").value_or("");
      m_key += '\x1f';
      m_key += m_event.string("name").value_or("");
      m_flowPoints.push_back({index, m_flowIds.intern(m_key), row, *ts, enclosing, covered});
    } else if (phase == 'C') {
      const std::uint32_t pid = pidId();
      if (inRange(*ts)) {
        m_perProcess.push_back({index, pid, true});
      } else if (*ts < m_lo) {
        m_key.assign(m_event.raw("pid"));
        m_key += '\x1f';
        m_key += m_event.raw("name");
        LastSample& last = m_lastBefore[m_key];
        if (last.event == std::numeric_limits<std::uint64_t>::max() || *ts >= last.ts) {
          last = {*ts, index, pid};
        }
      }
    } else if (selected && inRange(*ts)) {  // instants, and B/E, async and object events
      keep(index);
      m_result.instants += phase == 'i' || phase == 'I' ? 1 : 0;
    }
  }

  std::vector<Interval>& intervals(std::uint32_t row) {
    if (m_intervals.size() <= row) {
      m_intervals.resize(row + 1);
    }
    return m_intervals[row];
  }

  /// Between the passes: the launches of the kept GPU work join the kept slices; then each flow is whole or not;
  /// then the processes' metadata and counters.
  void resolve() {
    for (const Launch& launch : m_launches) {
      if (m_needed.contains(launch.correlation)) {
        keep(launch.event);
        ++m_result.slices;
        ++m_result.launchesAdded;
        intervals(launch.row).push_back(launch.time);
        keepPid(launch.pid);  // the launching thread's process: its names
      }
    }
    m_launches = {};
    // Per row: kept slices by start and the running latest end, so "ts lies in a kept slice" is a binary search.
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
    // A flow is kept when each of its points binds to a kept slice; it counts as dropped when some point touches the
    // selection (a kept slice, or the range) but not all bind.
    std::vector<bool> whole(m_flowIds.size(), true);
    std::vector<bool> touches(m_flowIds.size(), false);
    for (const FlowPoint& p : m_flowPoints) {
      const bool isBound = p.enclosing ? bound(p.row, p.ts) : p.covered;
      whole[p.flow] = whole[p.flow] && isBound;
      touches[p.flow] = touches[p.flow] || isBound || inRange(p.ts);
    }
    for (const FlowPoint& p : m_flowPoints) {
      if (whole[p.flow]) {
        keep(p.event);
        ++m_result.flowEvents;
      }
    }
    for (std::size_t f = 0; f < whole.size(); ++f) {
      m_result.flowsDropped += !whole[f] && touches[f] ? 1 : 0;
    }
    m_flowPoints = {};
    for (const auto& [key, last] : m_lastBefore) {
      m_perProcess.push_back({last.event, last.pid, true});
    }
    for (const PerProcess& e : m_perProcess) {
      if (pidKept(e.pid)) {
        keep(e.event);
        (e.counter ? m_result.counters : m_result.metadataEvents) += 1;
      }
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

  /// Pass 2: the kept events' texts, unparsed.
  bool write(TraceFileSink& sink) {
    TraceReader reader(m_open());
    sink.write(header());
    std::string line;
    const double total = static_cast<double>(std::max<std::uint64_t>(m_result.eventsRead, 1));
    while (reader.next()) {
      const std::uint64_t index = reader.eventIndex();
      if (index % m_options.progressEvery == 0 && index > 0 &&
          !progress(0.5 + 0.5 * static_cast<double>(index) / total)) {
        return false;
      }
      FATHOM_CHECK(index < m_keep.size(), StorageError, m_name, " changed while it was exported (", m_keep.size(),
                   " events, then more)");
      if (!m_keep[index]) {
        continue;
      }
      line.assign(m_result.eventsWritten > 0 ? ",\n" : "");
      line += reader.event();
      sink.write(line);
      ++m_result.eventsWritten;
    }
    FATHOM_CHECK(reader.eventCount() == m_result.eventsRead, StorageError, m_name, " changed while it was exported (",
                 m_result.eventsRead, " events, then ", reader.eventCount(), ")");
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
  TraceRangeExportResult m_result;
  std::vector<bool> m_keep;  ///< per event index: written by pass 2
  TraceEventView m_event;
  TraceEventView m_args;
  std::string m_key;  ///< scratch: a row, flow or counter key

  Interner m_rowIds;
  std::vector<std::vector<Interval>> m_intervals;  ///< per row id: the kept X events
  Interner m_pidIds;                               ///< raw pid texts
  std::vector<bool> m_pidKept;                     ///< per pid id: a kept process (with a rows filter)
  std::vector<PerProcess> m_perProcess;            ///< metadata and in-range counter samples
  std::unordered_set<std::int64_t> m_needed;       ///< correlations of kept GPU activity
  std::vector<Launch> m_launches;                  ///< launches not kept by themselves
  Interner m_flowIds;
  std::vector<FlowPoint> m_flowPoints;
  std::unordered_map<std::string, LastSample> m_lastBefore;
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
