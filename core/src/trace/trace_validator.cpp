// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_validator.h"

#include "event_fields.h"
#include "fathom/common/error.h"
#include "fathom/trace/trace_event_view.h"
#include "fathom/trace/trace_reader.h"
#include "slice_timeline.h"
#include "trace/trace_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <unordered_map>
#include <unordered_set>

namespace fathom::trace {
namespace {

using nlohmann::json;
using Level = TraceIssueLevel;

constexpr TraceRule kRules[] = {
    {"json", Level::Error, "The file is well-formed JSON (or JSON inside gzip) and not truncated.", "all viewers"},
    {"object-form", Level::Error, "The trace is the object form {\"traceEvents\":[...], ...}.", "HTA"},
    {"unclosed-array", Level::Warning, "An array-form trace ends with its closing ']'.", "Chrome trace format"},
    {"trailing-comma", Level::Error, "No ',' before traceEvents' closing ']' (Perfetto accepts it, JSON.parse not).",
     "chrome://tracing"},
    {"distributed-info", Level::Error, "distributedInfo.rank is an integer >= 0.", "HTA"},
    {"display-time-unit", Level::Error, "displayTimeUnit is absent, \"ms\" or \"ns\".", "Perfetto, chrome://tracing"},
    {"base-time", Level::Warning, "baseTimeNanoseconds is an integer (needed to align ranks).", "Kineto, Fathom"},
    {"size", Level::Warning, "The trace stays under 256 MiB of JSON and 1M events.", "chrome://tracing"},
    {"event-object", Level::Error, "Every element of traceEvents is a JSON object.", "all viewers"},
    {"ph", Level::Error, "Every event has a string ph.", "all viewers"},
    {"unknown-phase", Level::Warning, "ph is one of the phases of the Chrome trace format.", "Perfetto"},
    {"unicode-escape", Level::Error, "Strings use no \\u escapes.", "Perfetto JSON tokenizer"},
    {"ts", Level::Error, "Every event but metadata has a numeric ts >= 0.", "Perfetto, HTA"},
    {"ts-precision", Level::Warning, "ts below 2^53 ns, so a double keeps nanoseconds.", "Perfetto (double ts)"},
    {"x-dur", Level::Error, "Complete (X) events have a numeric dur >= 0.", "Perfetto, HTA"},
    {"x-name", Level::Error, "Complete (X) events have a string name.", "HTA"},
    {"x-cat", Level::Error, "Complete (X) events have a string cat.", "HTA (drops rows without cat)"},
    {"pid-tid", Level::Error, "Complete and flow events have integer pid and tid >= 0.", "HTA, Perfetto"},
    {"nesting", Level::Error, "Complete events of one (pid, tid) nest strictly, in Perfetto's rounded ns.", "Perfetto"},
    {"nesting-truncation", Level::Warning,
     "They also nest in the truncated ns of older Perfetto (crossings by a nanosecond).", "Perfetto (older)"},
    {"flow-id", Level::Error, "Flow events (s, t, f) have an id.", "Perfetto, chrome://tracing"},
    {"flow-unmatched", Level::Error, "Every flow start has an end with the same (id, cat, name), and back.",
     "Perfetto"},
    {"flow-binding", Level::Error, "Flow starts/steps, and ends with bp:\"e\", lie inside a slice of their row.",
     "Perfetto, chrome://tracing"},
    {"flow-bp", Level::Warning, "Flow ends carry \"bp\":\"e\" (else they bind to the next slice).", "Kineto"},
    {"gpu-args", Level::Error, "kernel, gpu_memcpy and gpu_memset events have integer args.stream and correlation.",
     "HTA"},
    {"gpu-launch", Level::Error, "Each GPU event's correlation has a cuda_runtime or cuda_driver event.", "HTA"},
    {"counter-args", Level::Error, "Counter (C) events have args with numeric values only.", "Perfetto"},
    {"profiler-step", Level::Error, "ProfilerStep names match ProfilerStep#N.", "HTA"},
    {"metadata", Level::Warning, "Metadata (M) events are known ones with their argument.", "chrome://tracing"},
    {"instant-scope", Level::Warning, "Instant events have s = g, p or t.", "chrome://tracing"},
    {"begin-end", Level::Warning, "No B/E pairs (their nesting is not checked here; Fathom writes X).", "Fathom"},
};

constexpr std::string_view kKnownPhases = "XBEiIsCtfMbneSTpFPNODVvRc";
constexpr std::int64_t kExactDoubleNs = std::int64_t{1} << 53;  // ns a double still counts one by one

Level levelOf(std::string_view rule) {
  for (const TraceRule& r : kRules) {
    if (r.id == rule) {
      return r.level;
    }
  }
  FATHOM_ASSERT(false, "unknown trace rule ", rule);
  return Level::Error;
}

std::string excerptOf(std::string_view text) {
  constexpr std::size_t kMax = 160;
  if (text.size() <= kMax) {
    return std::string(text);
  }
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) {
    --cut;  // not inside a UTF-8 sequence
  }
  return std::string(text.substr(0, cut)) + "...";
}

/// A `\u` escape anywhere in the text (a backslash is always inside a string in valid JSON).
bool hasUnicodeEscape(std::string_view text) {
  for (std::size_t i = text.find('\\'); i != std::string_view::npos && i + 1 < text.size();
       i = text.find('\\', i + 2)) {
    if (text[i + 1] == 'u') {
      return true;
    }
  }
  return false;
}

bool isNumber(std::string_view raw) {
  return !raw.empty() && (raw.front() == '-' || (raw.front() >= '0' && raw.front() <= '9'));
}

bool isString(std::string_view raw) {
  return !raw.empty() && raw.front() == '"';
}

/// A timestamp or duration in Perfetto's nanoseconds: rounded as current versions convert doubles, and how many ns
/// the truncation of older versions takes off that.
struct PerfettoTime {
  std::int64_t ns = 0;
  std::int64_t truncationCut = 0;
};

/// A member's raw number as Perfetto converts it: integers times 1000, other numbers through a double (from_chars
/// rounds correctly, as the JSON parsers do). nullopt when absent or not a number.
std::optional<PerfettoTime> timeOf(std::string_view raw) {
  if (const auto i = parseInteger(raw)) {  // integers: exact in every version
    return *i > INT64_MAX / 1000 || *i < INT64_MIN / 1000 ? std::nullopt : std::optional(PerfettoTime{*i * 1000, 0});
  }
  double micros = 0;
  if (!isNumber(raw) || std::from_chars(raw.data(), raw.data() + raw.size(), micros).ec != std::errc()) {
    return std::nullopt;
  }
  const std::int64_t rounded = perfettoRoundedNs(micros);
  return PerfettoTime{rounded, rounded - perfettoTruncatedNs(micros)};
}

/// A raw member for messages: "none" when absent.
std::string shown(std::string_view raw) {
  return raw.empty() ? std::string("none") : std::string(raw);
}

/// HTA's `ProfilerStep\s*#\s*(\d+)` (re.search): the prefix, '#', then at least one digit.
bool isProfilerStepName(std::string_view name) {
  std::size_t i = std::string_view("ProfilerStep").size();
  while (i < name.size() && std::isspace(static_cast<unsigned char>(name[i]))) {
    ++i;
  }
  if (i >= name.size() || name[i] != '#') {
    return false;
  }
  ++i;
  while (i < name.size() && std::isspace(static_cast<unsigned char>(name[i]))) {
    ++i;
  }
  return i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]));
}

/// One validation: the report, the bounded issue lists, and what the cross-event rules keep.
class Validation {
public:
  Validation(const TraceValidatorOptions& options, std::string file) : m_options(options) {
    m_report.file = std::move(file);
  }

  void add(std::string_view rule, std::string message, std::int64_t event = -1, std::string_view text = {}) {
    const Level level = levelOf(rule);
    std::uint64_t& count = m_report.issuesPerRule[std::string(rule)];
    ++count;
    (level == Level::Error ? m_report.errorCount : m_report.warningCount) += 1;
    if (count <= m_options.maxIssuesPerRule) {
      auto& list = level == Level::Error ? m_report.errors : m_report.warnings;
      list.push_back({std::string(rule), std::move(message), event, text.empty() ? "" : excerptOf(text),
                      event >= 0 ? static_cast<std::int64_t>(m_eventOffset) : -1});
    }
  }

  void checkEvent(const TraceReader& reader) {
    const std::string_view text = reader.event();
    const auto index = static_cast<std::int64_t>(reader.eventIndex());
    m_eventOffset = reader.eventOffset();
    ++m_report.events;
    // One pass checks the JSON grammar and splits the event into its members.
    const TraceEventView::Strict parsed = m_event.parseStrict(text);
    if (parsed == TraceEventView::Strict::NotJson) {
      add("json",
          reader.describeInEvent(m_event.errorOffset(),
                                 "malformed event #" + std::to_string(index) + " (" + m_event.error() + ")"),
          index, text);
      return;
    }
    if (hasUnicodeEscape(text)) {
      add("unicode-escape", "a \\u escape: Perfetto's JSON tokenizer rejects them", index, text);
    }
    if (parsed == TraceEventView::Strict::NotAnObject) {
      add("event-object", "an element of traceEvents that is not an object", index, text);
      return;
    }
    const std::optional<std::string_view> ph = m_event.string("ph");
    if (!ph || ph->empty()) {
      add("ph", detail::describe({"ph", detail::kExpectedPhase, m_event.raw("ph")}), index, text);
      return;
    }
    const std::string phase(*ph);
    ++m_report.phases[phase];
    if (const std::optional<std::string_view> cat = m_event.string("cat")) {
      ++m_report.categories[std::string(*cat)];
    }
    if (phase.size() != 1 || kKnownPhases.find(phase[0]) == std::string_view::npos) {
      add("unknown-phase", "unknown phase \"" + phase + "\"", index, text);
      return;
    }
    const char p = phase[0];
    if (const std::optional<std::string_view> name = m_event.string("name");
        name && (*name).starts_with("ProfilerStep") && !isProfilerStepName(*name)) {
      add("profiler-step", "\"" + std::string(*name) + "\" does not match ProfilerStep#N", index, text);
    }
    if (p == 'M') {
      checkMetadataEvent(index, text);
      return;
    }
    const std::optional<PerfettoTime> ts = timeOf(m_event.raw("ts"));
    if (!ts || ts->ns < 0) {
      add("ts", detail::describe({"ts", ts ? detail::kExpectedDuration : detail::kExpectedMicros, m_event.raw("ts")}),
          index, text);
    } else if (ts->ns >= kExactDoubleNs) {
      add("ts-precision", "ts beyond 2^53 ns: a double loses nanoseconds; write ts relative to baseTimeNanoseconds",
          index, text);
    }
    switch (p) {
    case 'X': checkComplete(ts, index, text); break;
    case 's':
    case 't':
    case 'f': checkFlow(p, ts, index, text); break;
    case 'C': checkCounter(index, text); break;
    case 'i':
    case 'I': {
      const std::string scope(m_event.string("s").value_or("t"));
      if (scope != "g" && scope != "p" && scope != "t") {
        add("instant-scope", "instant scope \"" + scope + "\" is not g, p or t", index, text);
      }
      break;
    }
    case 'B':
    case 'E': add("begin-end", "a B/E event: nesting of B/E pairs is not checked", index, text); break;
    default: break;
    }
  }

  /// The top-level keys (parsed by the reader with nlohmann::json: they are few and small).
  void checkMetadata(const json& meta, bool objectForm) {
    if (!objectForm) {
      add("object-form", "the array form: Holistic Trace Analysis reads only {\"traceEvents\":[...]}");
    }
    const auto find = [](const json& object, const char* key) {
      const auto it = object.is_object() ? object.find(key) : object.end();
      return it == object.end() ? nullptr : &*it;
    };
    const auto integer = [](const json* v) {
      return v && v->is_number_integer() && !(v->is_number_unsigned() && v->get<std::uint64_t>() > INT64_MAX)
                 ? std::optional(v->get<std::int64_t>())
                 : std::nullopt;
    };
    if (m_options.requireDistributedInfo) {
      const json* dist = find(meta, "distributedInfo");
      const json* rank = dist ? find(*dist, "rank") : nullptr;
      if (const auto value = integer(rank); !value || *value < 0) {
        add("distributed-info", !dist   ? "no distributedInfo: HTA refuses the file"
                                : !rank ? "distributedInfo has no rank: HTA refuses the file"
                                        : "distributedInfo.rank is not an integer >= 0: HTA refuses the file");
      }
    }
    if (const json* unit = find(meta, "displayTimeUnit")) {
      if (!unit->is_string() || (*unit != "ms" && *unit != "ns")) {
        add("display-time-unit",
            "displayTimeUnit " + unit->dump() + ": Perfetto and chrome://tracing accept only \"ms\" or \"ns\"");
      }
    }
    const json* base = find(meta, "baseTimeNanoseconds");
    if (objectForm && !integer(base)) {
      add("base-time", base ? "baseTimeNanoseconds is not an integer" : "no baseTimeNanoseconds");
    }
  }

  void finish(const TraceReader& reader) {
    std::unordered_set<std::uint32_t> crossing;  // found with rounding: not reported again for truncation
    for (const auto conversion : {detail::NsConversion::Rounded, detail::NsConversion::Truncated}) {
      m_timeline.forEachOverlap(conversion, [&](const auto& row, const auto& s, const auto& other) {
        const bool rounded = conversion == detail::NsConversion::Rounded;
        if (!rounded && crossing.contains(s.event)) {
          return;
        }
        crossing.insert(s.event);
        add(rounded ? "nesting" : "nesting-truncation",
            "X event #" + std::to_string(s.event) + " [" + std::to_string(s.startIn(conversion)) + ", " +
                std::to_string(s.endIn(conversion)) + "] ns crosses event #" + std::to_string(other.event) + " [" +
                std::to_string(other.startIn(conversion)) + ", " + std::to_string(other.endIn(conversion)) +
                "] ns on pid " + std::to_string(row.first) + " tid " + std::to_string(row.second) +
                (rounded ? " without nesting (Perfetto moves it off the row)"
                         : " once older Perfetto truncates the microseconds (it nests when they are rounded)"),
            static_cast<std::int64_t>(s.event));
      });
    }
    m_timeline.forEachUnboundPoint([&](const auto& row, const auto& point) {
      add("flow-binding",
          "flow event #" + std::to_string(point.event) + " at " + std::to_string(point.ts) +
              " ns lies in no slice of pid " + std::to_string(row.first) + " tid " + std::to_string(row.second) +
              " (the arrow is dropped)",
          static_cast<std::int64_t>(point.event));
    });
    for (const auto& [key, flow] : m_flows) {
      const bool startLeft = flow.starts > 0;
      add("flow-unmatched",
          std::string(startLeft ? "flow start without an end" : "flow end without a start") +
              " (id, cat, name) = " + key,
          static_cast<std::int64_t>(startLeft ? flow.firstStart : flow.firstEnd));
    }
    for (const auto& [correlation, event] : m_gpuCorrelations) {
      if (!m_launchCorrelations.contains(correlation)) {
        add("gpu-launch",
            "GPU event #" + std::to_string(event) + " has correlation " + std::to_string(correlation) +
                " but no cuda_runtime/cuda_driver event has it",
            static_cast<std::int64_t>(event));
      }
    }
    if (reader.bytesScanned() > m_options.chromeMaxBytes) {
      add("size", std::to_string(reader.bytesScanned() >> 20) +
                      " MiB of JSON: chrome://tracing fails on large files (~256 MiB); use Perfetto (ui.perfetto.dev)");
    }
    if (m_report.events > m_options.chromeMaxEvents) {
      add("size",
          std::to_string(m_report.events) + " events: chrome://tracing struggles with ~1M and more; use Perfetto");
    }
  }

  TraceValidationReport take() { return std::move(m_report); }

private:
  /// The current event's args as a view (empty when it has none, or they are not an object).
  const TraceEventView& args() {
    if (!m_args.parse(m_event.raw("args"))) {
      m_args.parse("{}");
    }
    return m_args;
  }

  void checkComplete(std::optional<PerfettoTime> ts, std::int64_t index, std::string_view text) {
    const std::optional<PerfettoTime> dur = timeOf(m_event.raw("dur"));
    if (!dur || dur->ns < 0) {
      add("x-dur", detail::describe({"dur", detail::kExpectedDuration, m_event.raw("dur")}), index, text);
    }
    if (!isString(m_event.raw("name"))) {
      add("x-name", "no string name", index, text);
    }
    const std::optional<std::string_view> cat = m_event.string("cat");
    if (!cat) {
      add("x-cat", "no string cat (HTA drops the row)", index, text);
    }
    const auto row = rowOf(index, text);
    if (row && ts && ts->ns >= 0 && dur && dur->ns >= 0 && dur->ns > INT64_MAX - ts->ns) {
      add("x-dur", "ts + dur is beyond 2^63 ns (about 292 years): the slice cannot be placed", index, text);
    } else if (row && ts && ts->ns >= 0 && dur && dur->ns >= 0) {
      const auto cut = [](std::int64_t ns) { return static_cast<std::uint8_t>(std::clamp<std::int64_t>(ns, 0, 4)); };
      m_timeline.addSlice(row->first, row->second,
                          {ts->ns, ts->ns + dur->ns, static_cast<std::uint32_t>(index), cut(ts->truncationCut),
                           cut(ts->truncationCut + dur->truncationCut)});
    }
    const std::string_view category = cat.value_or("");
    if (category == "kernel" || category == "gpu_memcpy" || category == "gpu_memset") {
      const std::optional<std::int64_t> stream = parseInteger(args().raw("stream"));
      const std::optional<std::int64_t> correlation = parseInteger(m_args.raw("correlation"));
      if (!stream || !correlation) {
        add("gpu-args", "a " + std::string(category) + " event without integer args.stream and args.correlation", index,
            text);
      } else {
        m_gpuCorrelations.emplace_back(*correlation, static_cast<std::uint64_t>(index));
      }
    } else if (category == "cuda_runtime" || category == "cuda_driver") {
      if (const std::optional<std::int64_t> correlation = parseInteger(args().raw("correlation"))) {
        m_launchCorrelations.insert(*correlation);
      }
    }
  }

  std::optional<std::pair<std::int64_t, std::int64_t>> rowOf(std::int64_t index, std::string_view text) {
    const std::optional<std::int64_t> pid = parseInteger(m_event.raw("pid"));
    const std::optional<std::int64_t> tid = parseInteger(m_event.raw("tid"));
    if (!pid || !tid || *pid < 0 || *tid < 0) {
      add("pid-tid",
          "pid and tid must be integers >= 0 (got " + shown(m_event.raw("pid")) + ", " + shown(m_event.raw("tid")) +
              ")",
          index, text);
      return std::nullopt;
    }
    return std::pair(*pid, *tid);
  }

  void checkFlow(char p, std::optional<PerfettoTime> ts, std::int64_t index, std::string_view text) {
    std::string_view id = m_event.raw("id");
    if (id.empty()) {
      id = m_event.raw("id2");
    }
    if (id.empty()) {
      add("flow-id", "a flow event without id", index, text);
      return;
    }
    const auto row = rowOf(index, text);
    const bool bindsEnclosing = p != 'f' || m_event.string("bp") == "e";
    if (!bindsEnclosing) {
      add("flow-bp", "a flow end without \"bp\":\"e\" binds to the next slice, not the enclosing one", index, text);
    }
    if (row && ts && ts->ns >= 0 && bindsEnclosing) {
      m_timeline.addBindingPoint(row->first, row->second, ts->ns, static_cast<std::uint64_t>(index));
    }
    if (p == 't') {
      return;
    }
    // Flows match on (id, cat, name) (Perfetto's GetFlowIdForV1Event); matched pairs are dropped at once.
    const std::string key = std::string(id) + ", " + shown(m_event.raw("cat")) + ", " + shown(m_event.raw("name"));
    Flow& flow = m_flows[key];
    (p == 's' ? flow.starts : flow.ends) += 1;
    if (flow.starts == 1 && p == 's') {
      flow.firstStart = static_cast<std::uint64_t>(index);
    }
    if (flow.ends == 1 && p == 'f') {
      flow.firstEnd = static_cast<std::uint64_t>(index);
    }
    const std::uint64_t matched = std::min(flow.starts, flow.ends);
    flow.starts -= matched;
    flow.ends -= matched;
    if (flow.starts == 0 && flow.ends == 0) {
      m_flows.erase(key);
    }
  }

  void checkCounter(std::int64_t index, std::string_view text) {
    const TraceEventView& a = args();
    const bool numeric = !a.members().empty() && std::all_of(a.members().begin(), a.members().end(),
                                                             [](const auto& m) { return isNumber(m.value); });
    if (!numeric) {
      add("counter-args", "a counter whose args are not an object of numbers", index, text);
    }
  }

  void checkMetadataEvent(std::int64_t index, std::string_view text) {
    const std::string name(m_event.string("name").value_or(""));
    const TraceEventView& a = args();
    bool ok = false;
    if (name == "process_name" || name == "thread_name") {
      ok = isString(a.raw("name"));
    } else if (name == "process_labels") {
      ok = isString(a.raw("labels"));
    } else if (name == "process_sort_index" || name == "thread_sort_index") {
      ok = parseInteger(a.raw("sort_index")).has_value();
    } else {
      add("metadata", "unknown metadata event \"" + name + "\"", index, text);
      return;
    }
    if (!ok) {
      add("metadata", "metadata event \"" + name + "\" without its argument", index, text);
    }
  }

  struct Flow {
    std::uint64_t starts = 0;
    std::uint64_t ends = 0;
    std::uint64_t firstStart = 0;
    std::uint64_t firstEnd = 0;
  };

  const TraceValidatorOptions& m_options;
  TraceValidationReport m_report;
  std::uint64_t m_eventOffset = 0;  ///< the current event's byte offset, for its findings
  TraceEventView m_event;           ///< the current event's members
  TraceEventView m_args;            ///< its args' members, parsed on demand
  detail::SliceTimeline m_timeline;
  std::unordered_map<std::string, Flow> m_flows;
  std::unordered_set<std::int64_t> m_launchCorrelations;
  std::vector<std::pair<std::int64_t, std::uint64_t>> m_gpuCorrelations;
};

}  // namespace

TraceValidator::TraceValidator(TraceValidatorOptions options) : m_options(std::move(options)) {
  FATHOM_CHECK(m_options.progressEvery >= 1, ConfigError, "TraceValidatorOptions::progressEvery must be >= 1");
}

std::span<const TraceRule> TraceValidator::rules() {
  return kRules;
}

TraceValidationReport TraceValidator::validate(const std::filesystem::path& path) const {
  Validation v(m_options, path.string());
  TraceInput input = TraceInput::openFile(path);  // an unopenable file is an error of the call, not a finding
  std::optional<TraceReader> reader;
  try {
    reader.emplace(std::move(input));
    while (reader->next()) {
      v.checkEvent(*reader);
      if (m_options.onProgress && reader->eventCount() % m_options.progressEvery == 0) {
        m_options.onProgress(reader->eventCount());
      }
    }
  } catch (const StorageError& e) {
    v.add("json", e.what());  // truncated or malformed: the other rules would only see part of the file
    return v.take();
  }
  v.checkMetadata(reader->metadata(), reader->objectForm());
  if (reader->trailingComma()) {
    v.add("trailing-comma", "a ',' before the ']' that closes traceEvents: chrome://tracing's JSON.parse refuses it");
  }
  if (reader->unclosedArray()) {
    v.add("unclosed-array", "the array form without its closing ']' (allowed for crashed writers)");
  }
  v.finish(*reader);
  return v.take();
}

}  // namespace fathom::trace
