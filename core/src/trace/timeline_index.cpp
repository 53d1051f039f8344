// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/timeline_index.h"

#include "event_fields.h"
#include "fathom/common/error.h"
#include "json_scan.h"
#include "timeline_builder.h"

#include <algorithm>
#include <fstream>

namespace fathom::trace {

/// Where the events can be read again for eventText().
struct TimelineIndex::Source {
  enum class Kind : std::uint8_t { None, File, Bytes };
  Kind kind = Kind::None;
  std::filesystem::path path;
  bool compressed = false;
  std::string bytes;  ///< Bytes: the trace as given to loadBytes()
  std::string name;
  TraceReaderOptions reader;
};

namespace {

std::optional<TimelineData> build(TraceReader& reader, std::uint64_t totalRawBytes,
                                  const TimelineLoadOptions& options) {
  FATHOM_CHECK(options.progressEveryBytes >= 1, ConfigError, "TimelineLoadOptions::progressEveryBytes must be >= 1");
  detail::TimelineBuilder builder;
  TraceEventView event;
  std::uint64_t nextReport = options.progressEveryBytes;
  auto report = [&]() {
    return !options.onProgress || options.onProgress({reader.rawBytesRead(), totalRawBytes, reader.eventCount()});
  };
  while (reader.next()) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
      return std::nullopt;
    }
    builder.add(event, detail::readCheckedEvent(reader, event), reader.eventOffset());
    if (reader.rawBytesRead() >= nextReport) {
      nextReport = reader.rawBytesRead() + options.progressEveryBytes;
      if (!report()) {
        return std::nullopt;
      }
    }
  }
  if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
    return std::nullopt;
  }
  TimelineData data = builder.finish(reader.name(), reader.metadata(), reader.eventCount());
  data.truncatedTail = reader.truncatedTail();
  data.completeBytes = reader.completeBytes();
  if (!report()) {
    return std::nullopt;
  }
  return data;
}

template <typename T> std::size_t bytesOf(const std::vector<T>& v) {
  return v.capacity() * sizeof(T);
}

std::size_t bytesOf(const std::string& s) {
  return sizeof(std::string) + (s.capacity() > 15 ? s.capacity() : 0);
}

std::size_t bytesOf(const BlockTable& t) {
  std::size_t total = bytesOf(t.levels) + bytesOf(t.prefix) + bytesOf(t.suffix);
  for (const auto& level : t.levels) {
    total += bytesOf(level);
  }
  return total;
}

}  // namespace

std::optional<TimelineIndex> TimelineIndex::load(const std::filesystem::path& path,
                                                 const TimelineLoadOptions& options) {
  std::error_code error;
  const std::uint64_t size = std::filesystem::file_size(path, error);
  TraceReader reader(path, options.reader);
  auto source = std::make_shared<Source>();
  source->kind = Source::Kind::File;
  source->path = path;
  source->name = reader.name();
  source->reader = options.reader;
  {
    TraceInput probe = TraceInput::openFile(path);
    char first[2];
    const std::size_t n = probe.read(first, sizeof first);
    (void)n;
    source->compressed = probe.compressed();
  }
  std::optional<TimelineData> data = build(reader, error ? 0 : size, options);
  if (!data) {
    return std::nullopt;
  }
  return TimelineIndex(std::move(*data), std::move(source));
}

std::optional<TimelineIndex> TimelineIndex::loadBytes(std::string name, std::string bytes,
                                                      const TimelineLoadOptions& options) {
  auto source = std::make_shared<Source>();
  source->kind = Source::Kind::Bytes;
  source->name = name;
  source->bytes = std::move(bytes);
  source->reader = options.reader;
  TraceReader reader(TraceInput::fromBytes(std::move(name), source->bytes), options.reader);
  std::optional<TimelineData> data = build(reader, source->bytes.size(), options);
  if (!data) {
    return std::nullopt;
  }
  return TimelineIndex(std::move(*data), std::move(source));
}

std::optional<TimelineIndex> TimelineIndex::load(TraceInput input, std::uint64_t totalRawBytes,
                                                 const TimelineLoadOptions& options) {
  TraceReader reader(std::move(input), options.reader);
  std::optional<TimelineData> data = build(reader, totalRawBytes, options);
  if (!data) {
    return std::nullopt;
  }
  return TimelineIndex(std::move(*data), std::make_shared<Source>());
}

TimelineIndex::TimelineIndex(TimelineData data, std::shared_ptr<const Source> source)
    : m_data(std::move(data)), m_source(std::move(source)) {}
TimelineIndex::TimelineIndex(TimelineIndex&&) noexcept = default;
TimelineIndex& TimelineIndex::operator=(TimelineIndex&&) noexcept = default;
TimelineIndex::~TimelineIndex() = default;

std::uint32_t TimelineLane::depthOf(std::uint32_t index) const {
  const auto it = std::upper_bound(depthBegin.begin(), depthBegin.end(), index);
  return static_cast<std::uint32_t>(it - depthBegin.begin()) - 1;
}

const SliceFacts* TimelineLane::factsOf(std::uint32_t index) const {
  const auto it = std::lower_bound(facts.begin(), facts.end(), index,
                                   [](const SliceFacts& f, std::uint32_t i) { return f.index < i; });
  return it != facts.end() && it->index == index ? &*it : nullptr;
}

std::span<const TimelineFlow> TimelineIndex::flowsFrom(SliceRef slice) const {
  const auto lo = std::lower_bound(m_data.flows.begin(), m_data.flows.end(), slice,
                                   [](const TimelineFlow& f, const SliceRef& s) { return f.from < s; });
  const auto hi = std::upper_bound(lo, m_data.flows.end(), slice,
                                   [](const SliceRef& s, const TimelineFlow& f) { return s < f.from; });
  return {lo, hi};
}

std::vector<TimelineFlow> TimelineIndex::flowsTo(SliceRef slice) const {
  auto lo = std::lower_bound(m_data.flowsByTarget.begin(), m_data.flowsByTarget.end(), slice,
                             [&](std::uint32_t f, const SliceRef& s) { return m_data.flows[f].to < s; });
  std::vector<TimelineFlow> out;
  for (; lo != m_data.flowsByTarget.end() && m_data.flows[*lo].to == slice; ++lo) {
    out.push_back(m_data.flows[*lo]);
  }
  return out;
}

std::uint64_t TimelineIndex::sliceCount() const {
  std::uint64_t n = 0;
  for (const TimelineLane& lane : m_data.lanes) {
    n += lane.sliceCount();
  }
  return n;
}

std::size_t TimelineIndex::memoryBytes() const {
  std::size_t total = sizeof(*this);
  for (const std::string& s : m_data.names) {
    total += bytesOf(s);
  }
  total += bytesOf(m_data.names) + bytesOf(m_data.categories) + bytesOf(m_data.processes) + bytesOf(m_data.lanes) +
           bytesOf(m_data.counters) + bytesOf(m_data.flows) + bytesOf(m_data.flowsByTarget) + bytesOf(m_data.steps);
  for (const TimelineLane& lane : m_data.lanes) {
    total += bytesOf(lane.start) + bytesOf(lane.end) + bytesOf(lane.name) + bytesOf(lane.category) +
             bytesOf(lane.offset) + bytesOf(lane.depthBegin) + bytesOf(lane.lod) + bytesOf(lane.facts) +
             bytesOf(lane.instantTs) + bytesOf(lane.instantName) + bytesOf(lane.instantOffset) + bytesOf(lane.key) +
             bytesOf(lane.title);
    for (const SliceLod& lod : lane.lod) {
      total += bytesOf(lod);
    }
  }
  for (const TimelineCounter& c : m_data.counters) {
    total += bytesOf(c.ts) + bytesOf(c.value) + bytesOf(c.series) + bytesOf(c.maxLod) + bytesOf(c.minLod);
  }
  for (const TimelineProcess& p : m_data.processes) {
    total += bytesOf(p.lanes) + bytesOf(p.counters) + bytesOf(p.title) + bytesOf(p.labels) + bytesOf(p.key);
  }
  return total;
}

std::optional<std::string> TimelineIndex::eventText(std::uint64_t offset) const {
  const Source& source = *m_source;
  if (source.kind == Source::Kind::None) {
    return std::nullopt;
  }
  if (source.kind == Source::Kind::File && !source.compressed) {
    // Uncompressed: the offset is the file's. Read from there until the event's closing brace.
    std::ifstream in(source.path, std::ios::binary);
    FATHOM_CHECK(in.good(), StorageError, source.path.string(), ": cannot be opened again to read an event");
    in.seekg(static_cast<std::streamoff>(offset));
    std::string text;
    std::size_t want = 4096;
    while (true) {
      text.resize(want);
      in.read(text.data(), static_cast<std::streamsize>(want));
      text.resize(static_cast<std::size_t>(in.gcount()));
      const detail::ScanResult r = detail::scanValue(text.data(), text.data() + text.size());
      if (r.status == detail::ScanStatus::Complete && !text.empty() && text.front() == '{') {
        text.resize(static_cast<std::size_t>(r.end - text.data()));
        return text;
      }
      FATHOM_CHECK(r.status == detail::ScanStatus::Incomplete && in.good() && want < source.reader.maxValueBytes,
                   StorageError, source.path.string(), ": no event at byte ", offset, " (has the file changed?)");
      in.clear();
      in.seekg(static_cast<std::streamoff>(offset));
      want *= 4;
    }
  }
  // gzip or in-memory: scan from the start (no random access into a gzip stream).
  const auto reader =
      source.kind == Source::Kind::File
          ? std::make_unique<TraceReader>(source.path, source.reader)
          : std::make_unique<TraceReader>(TraceInput::fromBytes(source.name, source.bytes), source.reader);
  while (reader->next()) {
    if (reader->eventOffset() == offset) {
      return std::string(reader->event());
    }
    if (reader->eventOffset() > offset) {
      break;
    }
  }
  throw StorageError(source.name + ": no event at byte " + std::to_string(offset) + " (has the file changed?)");
}

}  // namespace fathom::trace
