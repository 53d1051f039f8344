// SPDX-License-Identifier: Apache-2.0
#pragma once

#include "fathom/trace/trace_input.h"
#include "fathom/trace/trace_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::trace {

/// An interned string: an index into TimelineIndex::names().
using NameId = std::uint32_t;
inline constexpr NameId kNoName = 0xFFFFFFFFu;

/// What a lane shows.
enum class LaneKind : std::uint8_t {
  Thread,       ///< a CPU thread: ATen ops, Fathom's spans, ProfilerStep#N
  GpuStream,    ///< a CUDA stream (Kineto: pid = device, tid = stream): kernels, copies, sets
  Collectives,  ///< Fathom's collectives row (fathom::all_reduce, ...; "collectives (gloo) #0")
};

/// One slice: its lane and its index in the lane's arrays.
struct SliceRef {
  std::uint32_t lane = 0;
  std::uint32_t index = 0;
  friend bool operator==(const SliceRef&, const SliceRef&) = default;
  friend auto operator<=>(const SliceRef&, const SliceRef&) = default;
};

/// A level-of-detail summary answering "the best element of [i, j)" (the longest slice, the largest or smallest
/// counter sample) in O(1): a sparse table over blocks of kBlock elements (levels[k][b] is the best of blocks b ..
/// b + 2^k - 1, full blocks only) plus, per element, the best from its block's start to it (prefix) and from it to its
/// block's end (suffix), as offsets in the block. A query spanning two blocks or more reads four entries; only one
/// inside a single block scans it. About 2 + 4 log2(n / kBlock) / kBlock bytes per element. Perfetto's slice mipmap
/// aggregates max(dur) per bucket the same way; built at load (block_sparse_table.h).
struct BlockTable {
  static constexpr std::uint32_t kBlock = 64;
  std::vector<std::vector<std::uint32_t>> levels;
  std::vector<std::uint8_t> prefix;
  std::vector<std::uint8_t> suffix;
};
/// The LOD summary of one depth of a lane: the longest slice (largest duration, ties to the earlier) of any run.
using SliceLod = BlockTable;

/// What the summary reads from a slice's args (correlation, bytes, collective name), kept for the few slices whose
/// args it reads (launches, GPU activity, Fathom's collectives): aggregateArea feeds them to the summary's code.
struct SliceFacts {
  std::uint32_t index = 0;  ///< the slice
  bool hasCorrelation = false;
  bool hasBytes = false;
  std::int64_t correlation = 0;
  std::int64_t bytes = 0;
  NameId collectiveName = kNoName;
};

/// One row of slices (a CPU thread or a GPU stream) and its instant events.
///
/// Invariants, established at load and never changed:
/// - Slices are stored grouped by depth: depth d holds indices [depthBegin[d], depthBegin[d + 1]).
/// - Within a depth, slices are sorted by start and disjoint (touching allowed), so their ends are sorted too: the
///   visible window of a depth is two binary searches. With perfectly nested events, depth is the nesting depth;
///   a slice that crosses the end of an enclosing one is put one level below it all the same (never beside a slice
///   it overlaps), so the invariant holds for any input.
/// - All per-slice arrays have the same length (struct of arrays): start, end, name, category, offset.
/// - `facts` is sorted by slice index; instants are sorted by time.
struct TimelineLane {
  LaneKind kind = LaneKind::Thread;
  std::uint32_t process = 0;        ///< index in TimelineIndex::processes()
  std::string key;                  ///< "<pid>/<tid>" as raw JSON texts: the row key `fathom trace summary` uses
  std::optional<std::int64_t> tid;  ///< the tid when it is an integer
  std::string title;                ///< thread_name's name, else "thread <tid>"
  std::int64_t sortIndex = 0;       ///< thread_sort_index, else the tid

  std::vector<std::int64_t> start;      ///< ns, relative to the trace's base time (ts * 1000, exact)
  std::vector<std::int64_t> end;        ///< ns, >= start
  std::vector<NameId> name;             ///< the event's name
  std::vector<std::uint16_t> category;  ///< index in TimelineIndex::categories()
  std::vector<std::uint64_t> offset;    ///< the event's byte offset in the uncompressed text (its args are read lazily)
  std::vector<std::uint32_t> depthBegin;  ///< depthCount() + 1 entries
  std::vector<SliceLod> lod;              ///< one per depth
  std::vector<SliceFacts> facts;

  std::vector<std::int64_t> instantTs;
  std::vector<NameId> instantName;
  std::vector<std::uint64_t> instantOffset;

  std::uint32_t depthCount() const {
    return depthBegin.empty() ? 0 : static_cast<std::uint32_t>(depthBegin.size() - 1);
  }
  std::uint32_t sliceCount() const { return static_cast<std::uint32_t>(start.size()); }
  /// The depth of slice `index` (a binary search over depthBegin).
  std::uint32_t depthOf(std::uint32_t index) const;
  std::int64_t duration(std::uint32_t index) const { return end[index] - start[index]; }
  /// The facts kept for slice `index`, or nullptr.
  const SliceFacts* factsOf(std::uint32_t index) const;
};

/// One process: a rank's CPU process or a GPU device, with its lanes.
struct TimelineProcess {
  std::string key;                  ///< the raw JSON text of its pid
  std::optional<std::int64_t> pid;  ///< the pid when it is an integer
  /// The rank it belongs to: pid / kMergedPidStride in a merged trace, distributedInfo.rank in a one-rank trace;
  /// nullopt when the trace does not say. The same rule as `fathom trace summary --rank`.
  std::optional<int> rank;
  std::string title;                    ///< process_name's name, else "process <pid>"
  std::string labels;                   ///< process_labels (Kineto: "CPU", the GPU's name)
  std::int64_t sortIndex = 0;           ///< process_sort_index, else the pid
  std::vector<std::uint32_t> lanes;     ///< display order: sort index, then tid
  std::vector<std::uint32_t> counters;  ///< its counter tracks, by name then series
};

/// One counter series (ph C: each arg of a counter is a series; `Memory` has one per memory category).
struct TimelineCounter {
  std::uint32_t process = 0;
  NameId name = kNoName;         ///< the counter's name ("Memory")
  std::string series;            ///< the arg's key ("parameters", ...)
  std::vector<std::int64_t> ts;  ///< sorted
  std::vector<double> value;
  /// Level-of-detail summaries for per-pixel drawing: the sample with the largest / smallest value of any run (ties:
  /// the earlier sample).
  BlockTable maxLod;
  BlockTable minLod;
};

/// A flow arrow between two slices (v1 flow events s/t/f, matched by id, cat and name as Perfetto does; `ac2g` links
/// a CPU launch to its GPU activity). s and t bind to the deepest slice enclosing their ts on their row, f to the
/// enclosing slice with "bp":"e" (what Kineto writes) and otherwise to the next slice starting at or after its ts.
struct TimelineFlow {
  SliceRef from;
  SliceRef to;
  NameId name = kNoName;  ///< "ac2g", "fwdbwd", ...
};

/// A ProfilerStep#N span.
struct TimelineStep {
  std::int64_t number = 0;
  std::optional<int> rank;
  SliceRef slice;
};

/// Load progress: raw (possibly compressed) bytes read against the input's size.
struct TimelineLoadProgress {
  std::uint64_t rawBytesRead = 0;
  std::uint64_t totalRawBytes = 0;  ///< 0 when unknown
  std::uint64_t events = 0;         ///< events read so far
  double fraction() const {
    return totalRawBytes > 0 ? std::min(1.0, static_cast<double>(rawBytesRead) / static_cast<double>(totalRawBytes))
                             : 0.0;
  }
};

struct TimelineLoadOptions {
  /// Called as loading goes (every `progressEveryBytes` raw bytes, and once at the end with everything read), on the
  /// loading thread; return false to cancel. Fractions never decrease.
  std::function<bool(const TimelineLoadProgress&)> onProgress;
  std::uint64_t progressEveryBytes = std::uint64_t{1} << 20;  ///< >= 1
  /// Set (from any thread) to cancel; checked between events.
  const std::atomic<bool>* cancel = nullptr;
  /// The reader's chunk and event limits; `reader.acceptTruncatedTail` indexes a prefix of a trace still being
  /// written (every complete event; TimelineData::truncatedTail and completeBytes tell what was used).
  TraceReaderOptions reader;
};

/// The data a TimelineIndex holds (filled by the loader; see TimelineIndex for the contract).
struct TimelineData {
  std::string source;                                  ///< the file's path or the input's name
  nlohmann::json metadata = nlohmann::json::object();  ///< the trace's top-level keys other than traceEvents
  std::vector<std::string> names;
  std::vector<std::string> categories;
  std::vector<TimelineProcess> processes;  ///< display order: sort index, then pid
  std::vector<TimelineLane> lanes;
  std::vector<TimelineCounter> counters;
  std::vector<TimelineFlow> flows;           ///< sorted by `from`
  std::vector<std::uint32_t> flowsByTarget;  ///< indices into flows, sorted by `to`
  std::vector<TimelineStep> steps;           ///< by rank, then start
  std::uint64_t events = 0;                  ///< elements of traceEvents
  std::uint64_t ignoredEvents = 0;           ///< events of phases the index does not show (B/E, async, samples, ...)
  std::int64_t startNs = 0;                  ///< the earliest slice start, instant or counter sample
  std::int64_t endNs = 0;                    ///< the latest slice end, instant or counter sample
  /// The input was a prefix (TimelineLoadOptions::reader.acceptTruncatedTail): it ended early, and the index holds
  /// its complete events only.
  bool truncatedTail = false;
  std::uint64_t completeBytes = 0;  ///< uncompressed bytes up to the end of the last complete event
};

/// A trace loaded for a timeline: lanes (process -> threads and GPU streams, collectives), slices with their depth,
/// instants, counters, flows and ProfilerStep spans, in sorted compact arrays, so that a frame's queries
/// (timeline_queries.h) cost O(visible pixels x log n), never O(events).
///
/// Loading streams the file once through TraceReader/TraceEventView (the readers `fathom trace` uses), keeping per
/// slice 8+8 bytes of time, 4 of name, 2 of category and 8 of file offset; args are not kept but re-read on demand
/// (eventText()), except the few the summary needs (SliceFacts). Immutable after load: every reference and index
/// stays valid for the index's life, and const queries may run on several threads at once.
class TimelineIndex {
public:
  /// Loads a `.json` or `.json.gz` trace. Returns nullopt when cancelled. Throws StorageError naming the file and the
  /// byte offset for malformed input, ConfigError for bad options.
  static std::optional<TimelineIndex> load(const std::filesystem::path& path, const TimelineLoadOptions& options = {});
  /// Loads a trace held in memory (e.g. stored in the workspace); `name` is what messages call it.
  static std::optional<TimelineIndex> loadBytes(std::string name, std::string bytes,
                                                const TimelineLoadOptions& options = {});
  /// Loads from an input the index cannot read again: eventText() then returns nullopt.
  static std::optional<TimelineIndex> load(TraceInput input, std::uint64_t totalRawBytes,
                                           const TimelineLoadOptions& options = {});

  TimelineIndex(TimelineIndex&&) noexcept;
  TimelineIndex& operator=(TimelineIndex&&) noexcept;
  ~TimelineIndex();

  const TimelineData& data() const { return m_data; }
  const std::string& source() const { return m_data.source; }
  const std::vector<TimelineProcess>& processes() const { return m_data.processes; }
  const std::vector<TimelineLane>& lanes() const { return m_data.lanes; }
  const TimelineLane& lane(std::uint32_t id) const { return m_data.lanes.at(id); }
  const std::vector<TimelineCounter>& counters() const { return m_data.counters; }
  const std::vector<TimelineFlow>& flows() const { return m_data.flows; }
  const std::vector<TimelineStep>& steps() const { return m_data.steps; }
  std::string_view name(NameId id) const { return id < m_data.names.size() ? m_data.names[id] : std::string_view{}; }
  std::string_view category(std::uint16_t id) const { return m_data.categories.at(id); }
  const std::vector<std::string>& names() const { return m_data.names; }

  /// Flows leaving `slice` (a launch: its kernel).
  std::span<const TimelineFlow> flowsFrom(SliceRef slice) const;
  /// Flows arriving at `slice` (a kernel: its launch).
  std::vector<TimelineFlow> flowsTo(SliceRef slice) const;
  /// Slices of all lanes.
  std::uint64_t sliceCount() const;
  /// Bytes the index holds (vector capacities and strings): its own accounting, for bytes per event.
  std::size_t memoryBytes() const;

  /// The JSON text of the event at `offset` (a slice's or an instant's), re-read from the source: a seek for an
  /// uncompressed file, a scan from the start for gzip and in-memory traces. nullopt when the source cannot be read
  /// again (load(TraceInput)). Throws StorageError when the file changed or is gone.
  std::optional<std::string> eventText(std::uint64_t offset) const;

private:
  struct Source;
  TimelineIndex(TimelineData data, std::shared_ptr<const Source> source);
  TimelineData m_data;
  std::shared_ptr<const Source> m_source;
};

}  // namespace fathom::trace
