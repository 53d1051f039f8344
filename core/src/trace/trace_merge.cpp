// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/trace_merge.h"

#include "event_fields.h"
#include "fathom/common/error.h"
#include "fathom/trace/chrome_trace_writer.h"
#include "fathom/trace/trace_event_view.h"
#include "fathom/trace/trace_reader.h"
#include "trace/trace_json.h"
#include "trace_summarizer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>

namespace fathom::trace {
namespace {

using nlohmann::json;

/// args keys that hold CUPTI correlation ids or profiler op ids: remapped like flow ids.
constexpr std::array<std::string_view, 3> kCorrelationKeys = {"correlation", "External id",
                                                              "wait_on_cuda_event_record_corr_id"};
/// Top-level keys every trace has; the rest of an input's keys are carried into fathomMerge.inputs[].metadata.
constexpr std::array<std::string_view, 6> kStandardKeys = {"schemaVersion",   "deviceProperties",    "distributedInfo",
                                                           "displayTimeUnit", "baseTimeNanoseconds", "traceName"};

/// Where an input's bytes come from: a file, or memory (mergeTraceBytes).
struct MergeSource {
  std::filesystem::path path;          ///< the file, or the in-memory input's name
  const std::string* bytes = nullptr;  ///< set for an in-memory input
};

std::unique_ptr<TraceReader> openSource(const MergeSource& source, const TraceReaderOptions& options) {
  return source.bytes != nullptr
             ? std::make_unique<TraceReader>(TraceInput::fromBytes(source.path.string(), *source.bytes), options)
             : std::make_unique<TraceReader>(source.path, options);
}

/// An input's header facts, read before anything is written.
struct InputHeader {
  MergeSource source;
  int rank = 0;
  std::optional<std::int64_t> baseTimeNs;
  int worldSize = 1;
  std::string backend;
  json metadata;
};

/// The input's header; nullopt for a prefix (options.acceptTruncatedTail) that ends before its rank is known.
/// `rank`: the one TraceMergeOptions::ranks gives it, which the file's own need not exist for.
std::optional<InputHeader> readHeader(const MergeSource& source, const TraceReaderOptions& options,
                                      std::optional<int> rank) {
  const std::filesystem::path& path = source.path;
  json meta;
  bool truncated = false;
  {
    const auto reader = openSource(source, options);
    meta = reader->metadata();
    if (!meta.contains("distributedInfo") || !meta.contains("baseTimeNanoseconds")) {
      while (reader->next()) {  // the keys may follow traceEvents (Kineto writes some there)
      }
      meta = reader->metadata();
    }
    truncated = reader->truncatedTail();
  }
  const json* dist = meta.contains("distributedInfo") ? &meta["distributedInfo"] : nullptr;
  if (truncated && dist == nullptr && !rank) {
    return std::nullopt;  // a trace still being written, whose header has not arrived yet
  }
  if (dist != nullptr && !dist->is_object()) {
    dist = nullptr;
  }
  FATHOM_CHECK(rank ||
                   (dist && dist->contains("rank") && (*dist)["rank"].is_number_integer() &&
                    (*dist)["rank"].get<std::int64_t>() >= 0 && (*dist)["rank"].get<std::int64_t>() < kMaxMergeRank),
               ConfigError, path.string(),
               ": distributedInfo.rank is missing or not an integer >= 0, so its rank is unknown (merge needs one "
               "trace per rank, each with its rank; for traces that record none, such as PyTorch's legacy "
               "export_chrome_trace, give one rank per input in order: --ranks, TraceMergeOptions::ranks)");
  InputHeader h;
  h.source = source;
  h.rank = rank ? *rank : (*dist)["rank"].get<int>();
  if (dist && dist->contains("world_size") && (*dist)["world_size"].is_number_integer()) {
    h.worldSize = std::max(1, (*dist)["world_size"].get<int>());
  }
  if (dist && dist->contains("backend") && (*dist)["backend"].is_string()) {
    h.backend = (*dist)["backend"].get<std::string>();
  }
  if (meta.contains("baseTimeNanoseconds")) {
    FATHOM_CHECK(meta["baseTimeNanoseconds"].is_number_integer(), ConfigError, path.string(),
                 ": baseTimeNanoseconds is not an integer");
    h.baseTimeNs = meta["baseTimeNanoseconds"].get<std::int64_t>();
  }
  h.metadata = std::move(meta);
  return h;
}

/// Starts member `m` of an object being rewritten: a ',' unless it is the first, then its raw key and ':'.
void beginMember(std::string& out, const TraceEventView::Member& m, bool& first) {
  if (!first) {
    out += ',';
  }
  first = false;
  out += '"';
  out += m.key;
  out += "\":";
}

/// A flow or correlation id as an unsigned number: a JSON integer, or a hex string (Perfetto reads string ids as
/// base 16). nullopt for anything else.
std::optional<std::uint64_t> parseId(std::string_view raw) {
  int base = 10;
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"') {
    raw = raw.substr(1, raw.size() - 2);
    if (raw.size() > 2 && raw[0] == '0' && (raw[1] == 'x' || raw[1] == 'X')) {
      raw.remove_prefix(2);
    }
    base = 16;
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(raw.data(), raw.data() + raw.size(), value, base);
  if (raw.empty() || error != std::errc() || end != raw.data() + raw.size()) {
    return std::nullopt;
  }
  return value;
}

/// The two metadata events the merge rewrites.
enum class RowMetadata : std::uint8_t { Name, SortIndex };

/// Rewrites the events of one rank's file into the merged numbering. Holds only the rank's pid map.
class RankRewriter {
public:
  RankRewriter(TraceMergeInput& input, std::uint64_t idStride) : m_input(input), m_idStride(idStride) {}

  /// A later window of the same rank (TraceMergeOptions::windowsOfOneRank): its rows continue `earlier`'s, so a
  /// pid keeps its merged pid, and rows already named or sorted get no second synthesized name or index.
  void continueFrom(const RankRewriter& earlier) {
    m_input.pids = earlier.m_input.pids;
    m_pidIndex = earlier.m_pidIndex;
    m_named = earlier.m_named;
    m_sorted = earlier.m_sorted;
    m_stringTids = earlier.m_stringTids;
  }

  /// The merged text of one event into `out` (cleared first). `reader` is for error messages.
  void rewrite(const TraceEventView& event, const TraceReader& reader, std::string& out) {
    const std::optional<std::string_view> name = event.string("name");
    const bool metadata = event.phase() == 'M';
    out.clear();
    out += '{';
    bool first = true;
    for (const TraceEventView::Member& m : event.members()) {
      beginMember(out, m, first);
      if (m.key == "pid") {
        appendInteger(out, mapPid(m.value));
      } else if (m.key == "tid" && !m.value.empty() && m.value.front() == '"') {
        appendInteger(out, mapStringTid(event.raw("pid"), m.value));
      } else if (m.key == "ts") {
        const std::optional<std::int64_t> ns = parseMicros(m.value);
        if (!ns) {
          throw StorageError(
              reader.describeInEvent(static_cast<std::size_t>(m.value.data() - reader.event().data()),
                                     "event #" + std::to_string(reader.eventIndex()) + ": ts is not a number"));
        }
        appendMicros(out, *ns + m_input.shiftNs);
      } else if (m.key == "id") {
        appendId(out, m.value, reader);
      } else if (m.key == "args" && metadata && (name == "process_name" || name == "process_sort_index")) {
        rewriteRowMetadata(m.value, event, name == "process_name" ? RowMetadata::Name : RowMetadata::SortIndex, out);
      } else if (m.key == "args") {
        rewriteCorrelations(m.value, reader, out);
      } else {
        out += m.value;
      }
    }
    // A legacy PyTorch event is recognised by its process's name, which the merge replaces: write down the
    // category it is read with (detail::summaryCategory) so the merged event reads the same.
    if (!metadata && !event.string("cat")) {
      if (const std::string_view cat = detail::summaryCategory(event, name.value_or("")); !cat.empty()) {
        out += first ? "\"cat\":" : ",\"cat\":";
        appendJsonString(out, cat);
      }
    }
    out += '}';
  }

  /// Row names and sort indices for the pids the file never named or sorted, and names for string tids.
  void writeMissingRowMetadata(ChromeTraceWriter& writer) {
    for (const auto& [key, tid] : m_stringTids) {
      const auto& [pid, name] = key;
      std::optional<std::string_view> text = m_args.unquote(name);
      writer.writeThreadName(pid, tid, text.value_or(name));
    }
    for (std::size_t i = 0; i < m_input.pids.size(); ++i) {
      const auto& [original, pid] = m_input.pids[i];
      if (!m_named[i]) {
        // A string pid (Kineto's "Spans") was its own name in Perfetto; a number gets "pid N".
        std::string label = original.front() == '"' ? original.substr(1, original.size() - 2) : "pid " + original;
        writer.writeProcessName(pid, "rank " + std::to_string(m_input.rank) + " \xC2\xB7 " + label);
      }
      if (!m_sorted[i]) {
        writer.writeProcessSortIndex(pid, sortIndex(static_cast<std::int64_t>(i)));
      }
    }
  }

private:
  std::int64_t sortIndex(std::int64_t withinRank) const {
    return m_input.rank * kMergedSortStride + std::clamp<std::int64_t>(withinRank, 0, kMergedSortStride - 1);
  }

  std::size_t pidIndex(std::string_view raw) {
    const auto [it, added] = m_pidIndex.try_emplace(std::string(raw), m_input.pids.size());
    if (added) {
      FATHOM_CHECK(m_input.pids.size() < kMergedPidStride, ConfigError, m_input.path.string(), ": more than ",
                   kMergedPidStride, " distinct pids in one rank's trace; the merge numbers rows rank * ",
                   kMergedPidStride, " + index");
      m_input.pids.emplace_back(std::string(raw), static_cast<std::uint32_t>(m_input.rank) * kMergedPidStride +
                                                      static_cast<std::uint32_t>(m_input.pids.size()));
      m_named.push_back(false);
      m_sorted.push_back(false);
    }
    return it->second;
  }

  std::uint32_t mapPid(std::string_view raw) { return m_input.pids[pidIndex(raw)].second; }

  /// A string tid (Kineto's "Spans") becomes kStringTidBase + its first-seen index, far above any OS thread id,
  /// and gets a thread_name with the string, so every merged row has integer pid and tid.
  std::uint64_t mapStringTid(std::string_view rawPid, std::string_view rawTid) {
    constexpr std::uint64_t kStringTidBase = std::uint64_t{1} << 31;
    const std::uint32_t pid = rawPid.empty() ? 0 : mapPid(rawPid);
    const auto [it, added] = m_stringTids.try_emplace({pid, std::string(rawTid)}, kStringTidBase + m_stringTids.size());
    return it->second;
  }

  std::uint64_t mapId(std::uint64_t id, const TraceReader& reader) const {
    const auto rank = static_cast<std::uint64_t>(m_input.rank);
    if (id > (std::numeric_limits<std::uint64_t>::max() - rank) / m_idStride) {
      throw StorageError(reader.describeInEvent(0, "event #" + std::to_string(reader.eventIndex()) + ": id " +
                                                       std::to_string(id) + " too large to renumber for " +
                                                       std::to_string(m_idStride) + " ranks"));
    }
    return id * m_idStride + rank;
  }

  void appendId(std::string& out, std::string_view raw, const TraceReader& reader) const {
    if (const std::optional<std::uint64_t> id = parseId(raw)) {
      char text[24];
      out.append(text, std::to_chars(text, text + sizeof text, mapId(*id, reader)).ptr);
    } else {
      out += raw;  // not an id Perfetto can read as a number: left as it is
    }
  }

  /// The pid of a metadata event (for the named/sorted marks); nullopt without one.
  std::optional<std::size_t> metadataPid(const TraceEventView& event) {
    const std::string_view raw = event.raw("pid");
    return raw.empty() ? std::nullopt : std::optional(pidIndex(raw));
  }

  /// A process_name ("rank R · <name>") or process_sort_index (R * kMergedSortStride + index) argument, and the
  /// mark that the file gave its pid one, so writeMissingRowMetadata() adds none. Unusual shapes are kept as they are.
  void rewriteRowMetadata(std::string_view args, const TraceEventView& event, RowMetadata kind, std::string& out) {
    const bool isName = kind == RowMetadata::Name;
    const std::optional<std::size_t> pid = metadataPid(event);
    TraceEventView parsed;
    std::string replacement;  // the new args object; empty: keep the original
    if (pid && parsed.parse(args) && isName) {
      if (const std::optional<std::string_view> name = parsed.string("name")) {
        replacement = "{\"name\":";
        appendJsonString(replacement, "rank " + std::to_string(m_input.rank) + " \xC2\xB7 " + std::string(*name));
      }
    } else if (pid && parsed.parse(args)) {
      if (const std::optional<std::int64_t> index = parsed.integer("sort_index")) {
        replacement = "{\"sort_index\":";
        appendInteger(replacement, sortIndex(*index));
      }
    }
    if (replacement.empty()) {
      out += args;
      return;
    }
    (isName ? m_named : m_sorted)[*pid] = true;
    out += replacement;
    out += '}';
  }

  void rewriteCorrelations(std::string_view args, const TraceReader& reader, std::string& out) {
    // Fast path: most args hold none of the keys; copy them byte for byte.
    const bool any = std::any_of(kCorrelationKeys.begin(), kCorrelationKeys.end(),
                                 [&](std::string_view key) { return args.find(key) != std::string_view::npos; });
    if (!any || !m_args.parse(args)) {
      out += args;
      return;
    }
    out += '{';
    bool first = true;
    for (const TraceEventView::Member& m : m_args.members()) {
      beginMember(out, m, first);
      const bool correlation =
          std::find(kCorrelationKeys.begin(), kCorrelationKeys.end(), m.key) != kCorrelationKeys.end();
      // Only plain JSON integers: a string arg keeps its meaning, and -1 ("none") stays -1.
      const bool number = !m.value.empty() && m.value.front() >= '0' && m.value.front() <= '9';
      if (correlation && number) {
        appendId(out, m.value, reader);
      } else {
        out += m.value;
      }
    }
    out += '}';
  }

  TraceMergeInput& m_input;
  std::uint64_t m_idStride;
  std::unordered_map<std::string, std::size_t> m_pidIndex;
  std::vector<bool> m_named;   ///< per pid index: the file has a process_name for it
  std::vector<bool> m_sorted;  ///< per pid index: the file has a process_sort_index for it
  std::map<std::pair<std::uint32_t, std::string>, std::uint64_t> m_stringTids;  ///< (merged pid, raw tid) -> tid
  TraceEventView m_args;
};

/// fathomMerge: {"pidStride":..,"idStride":..,"inputs":[{"rank","file","baseTimeNanoseconds","shiftNs","events",
/// "pids":{original: merged},"deviceProperties","metadata"}]}, written with appendJsonString (no \u escapes).
std::string mergeRecord(const TraceMergeResult& result, const std::vector<InputHeader>& headers) {
  std::string out = "{\"fathomMerge\":{\"pidStride\":";
  appendInteger(out, kMergedPidStride);
  out += ",\"idStride\":";
  appendInteger(out, result.worldSize);
  out += ",\"inputs\":[";
  for (std::size_t i = 0; i < result.inputs.size(); ++i) {
    const TraceMergeInput& in = result.inputs[i];
    const json& meta = headers[i].metadata;
    out += i > 0 ? ",{\"rank\":" : "{\"rank\":";
    appendInteger(out, in.rank);
    out += ",\"file\":";
    appendJsonString(out, in.path.string());
    out += ",\"baseTimeNanoseconds\":";
    appendInteger(out, in.baseTimeNs);
    out += ",\"shiftNs\":";
    appendInteger(out, in.shiftNs);
    out += ",\"events\":";
    appendInteger(out, static_cast<std::int64_t>(in.events));
    out += ",\"pids\":{";
    for (std::size_t p = 0; p < in.pids.size(); ++p) {
      out += p > 0 ? "," : "";
      const std::string& original = in.pids[p].first;
      appendJsonString(out, original.front() == '"' ? original.substr(1, original.size() - 2) : original);
      out += ':';
      appendInteger(out, in.pids[p].second);
    }
    out += "},\"deviceProperties\":";
    out += meta.contains("deviceProperties") ? meta["deviceProperties"].dump() : "[]";
    json extra = json::object();
    for (const auto& [key, value] : meta.items()) {
      if (std::find(kStandardKeys.begin(), kStandardKeys.end(), key) == kStandardKeys.end()) {
        extra[key] = value;
      }
    }
    out += ",\"metadata\":";
    out += extra.dump();
    out += '}';
  }
  out += "]}}";
  return out;
}

/// TraceMergeOptions::ranks: none, or one in [0, kMaxMergeRank) per source.
void checkRanks(const std::vector<int>& ranks, const std::vector<MergeSource>& sources) {
  if (ranks.empty()) {
    return;
  }
  std::string names;
  for (const MergeSource& source : sources) {
    names += (names.empty() ? "" : ", ") + source.path.string();
  }
  FATHOM_CHECK(ranks.size() == sources.size(), ConfigError, "trace merge: ", ranks.size(), " rank(s) given for ",
               sources.size(), " input(s) (", names, "); give one rank per input, in the order of the inputs");
  for (const int rank : ranks) {
    FATHOM_CHECK(rank >= 0 && rank < kMaxMergeRank, ConfigError, "trace merge: rank ", rank,
                 " is out of range; a rank is a whole number from 0 to ", kMaxMergeRank - 1);
  }
}

/// The merge of mergeTraces and mergeTraceBytes: reads the sources' headers, then copies their events into a
/// ChromeTraceWriter on `output` (a file, or no file with options.file.noFile).
TraceMergeResult mergeSources(const std::vector<MergeSource>& sources, const std::filesystem::path& output,
                              const TraceMergeOptions& options, const TraceFileOptions& fileOptions) {
  FATHOM_CHECK(!sources.empty(), ConfigError, "trace merge: no input traces");
  FATHOM_CHECK(options.progressEvery >= 1, ConfigError, "TraceMergeOptions::progressEvery must be >= 1");
  checkRanks(options.ranks, sources);
  TraceMergeResult result;
  std::vector<InputHeader> headers;
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const MergeSource& source = sources[i];
    std::optional<int> rank;
    if (!options.ranks.empty()) {
      rank.emplace(options.ranks[i]);
    }
    if (std::optional<InputHeader> header = readHeader(source, options.reader, rank)) {
      headers.push_back(std::move(*header));
    } else {
      result.skipped.push_back(source.path.string());
    }
  }
  FATHOM_CHECK(!headers.empty(), ConfigError, "trace merge: no input trace has a complete header yet");
  // By rank, then (windows of one rank) by base time; stable, so inputs without a base keep their order.
  std::stable_sort(headers.begin(), headers.end(), [](const auto& a, const auto& b) {
    return a.rank != b.rank ? a.rank < b.rank : a.baseTimeNs.value_or(0) < b.baseTimeNs.value_or(0);
  });
  const std::size_t withBase = static_cast<std::size_t>(
      std::count_if(headers.begin(), headers.end(), [](const auto& h) { return h.baseTimeNs.has_value(); }));
  FATHOM_CHECK(withBase == 0 || withBase == headers.size(), ConfigError,
               "trace merge: some inputs have baseTimeNanoseconds and some do not, so their clocks cannot be "
               "aligned (",
               withBase, " of ", headers.size(), " have it)");
  std::int64_t base = std::numeric_limits<std::int64_t>::max();
  for (std::size_t i = 0; i < headers.size(); ++i) {
    FATHOM_CHECK(i == 0 || headers[i].rank != headers[i - 1].rank || options.windowsOfOneRank, ConfigError,
                 "trace merge: rank ", headers[i].rank, " appears twice: ", headers[i - 1].source.path.string(),
                 " and ", headers[i].source.path.string());
    base = std::min(base, headers[i].baseTimeNs.value_or(0));
    result.worldSize = std::max({result.worldSize, headers[i].worldSize, headers[i].rank + 1});
  }
  result.baseTimeNs = base;

  TraceHeader header;
  header.baseTimeNs = 0;  // events are copied as text; the writer never converts their times
  header.baseTimeUnixNs = base;
  header.distributed.backend = headers.front().backend.empty() ? "gloo" : headers.front().backend;
  header.distributed.rank = headers.front().rank;
  header.distributed.worldSize = result.worldSize;
  for (const InputHeader& h : headers) {
    if (header.distributed.ranks.empty() || header.distributed.ranks.back() != h.rank) {
      header.distributed.ranks.push_back(h.rank);
    }
  }
  header.traceName = options.traceName.empty() ? output.filename().string() : options.traceName;
  ChromeTraceWriter writer(output, header, fileOptions);

  std::string line;
  TraceEventView event;
  result.inputs.reserve(headers.size());  // rewriters hold references to their inputs
  std::unique_ptr<RankRewriter> previous;
  for (const InputHeader& h : headers) {
    TraceMergeInput& in = result.inputs.emplace_back();
    in.path = h.source.path;
    in.rank = h.rank;
    in.baseTimeNs = h.baseTimeNs.value_or(0);
    in.shiftNs = in.baseTimeNs - base;
    auto rewriter = std::make_unique<RankRewriter>(in, static_cast<std::uint64_t>(result.worldSize));
    if (previous && result.inputs.size() >= 2 && result.inputs[result.inputs.size() - 2].rank == h.rank) {
      rewriter->continueFrom(*previous);
    }
    const auto reader = openSource(h.source, options.reader);
    while (reader->next()) {
      // The merge refuses what the other readers would refuse: its output must load where its inputs would.
      detail::readCheckedEvent(*reader, event);
      rewriter->rewrite(event, *reader, line);
      writer.writeRaw(line);
      ++in.events;
      if (options.onProgress && writer.eventCount() % options.progressEvery == 0) {
        options.onProgress(writer.eventCount());
      }
    }
    rewriter->writeMissingRowMetadata(writer);
    result.truncatedInputs += reader->truncatedTail() ? 1 : 0;
    previous = std::move(rewriter);
  }
  result.events = writer.eventCount();
  writer.finish(mergeRecord(result, headers));
  if (options.onProgress) {
    options.onProgress(result.events);
  }
  return result;
}

}  // namespace

TraceMergeResult mergeTraces(std::span<const std::filesystem::path> inputs, const std::filesystem::path& output,
                             const TraceMergeOptions& options) {
  std::vector<MergeSource> sources;
  for (const std::filesystem::path& path : inputs) {
    sources.push_back({path, nullptr});
  }
  return mergeSources(sources, output, options, options.file);
}

std::string mergeTraceBytes(std::span<const TraceBytes> inputs, const TraceMergeOptions& options,
                            TraceMergeResult* result) {
  std::vector<MergeSource> sources;
  for (const TraceBytes& input : inputs) {
    sources.push_back({input.name, &input.bytes});
  }
  std::string merged;
  TraceFileOptions file = options.file;
  file.noFile = true;
  file.gzip = options.file.gzip.value_or(false);
  file.onChunk = [&merged, user = options.file.onChunk](std::string_view block) {
    merged.append(block);
    if (user) {
      user(block);
    }
  };
  const std::string name = options.traceName.empty() ? std::string("merged") : options.traceName;
  TraceMergeResult r = mergeSources(sources, name, options, file);
  if (result != nullptr) {
    *result = std::move(r);
  }
  return merged;
}

}  // namespace fathom::trace
