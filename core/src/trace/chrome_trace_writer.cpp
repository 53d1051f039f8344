// SPDX-License-Identifier: Apache-2.0
#include "fathom/trace/chrome_trace_writer.h"

#include "fathom/common/error.h"
#include "trace/trace_json.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>

namespace fathom::trace {
namespace {

/// The top-level keys the writer owns; TraceHeader::metadataJson must not redefine them.
constexpr std::array<std::string_view, 7> kOwnedKeys = {"schemaVersion",   "deviceProperties",    "distributedInfo",
                                                        "displayTimeUnit", "baseTimeNanoseconds", "traceEvents",
                                                        "traceName"};

void appendDouble(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";  // JSON has no NaN or infinity
    return;
  }
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);  // shortest text that round-trips
  out.append(text, result.ptr);
}

/// `"key":` for keys the writer spells itself (plain ASCII, nothing to escape).
void appendKey(std::string& out, std::string_view key) {
  out += '"';
  out += key;
  out += "\":";
}

void appendDevice(std::string& out, const DeviceProperties& d) {
  out += "{\"id\":";
  appendInteger(out, d.id);
  out += ",\"name\":";
  appendJsonString(out, d.name);
  // Kineto's order (CudaDeviceProperties.cpp).
  const std::pair<std::string_view, std::uint64_t> fields[] = {
      {"totalGlobalMem", d.totalGlobalMem},
      {"computeMajor", static_cast<std::uint64_t>(d.computeMajor)},
      {"computeMinor", static_cast<std::uint64_t>(d.computeMinor)},
      {"maxThreadsPerBlock", static_cast<std::uint64_t>(d.maxThreadsPerBlock)},
      {"maxThreadsPerMultiprocessor", static_cast<std::uint64_t>(d.maxThreadsPerMultiprocessor)},
      {"regsPerBlock", static_cast<std::uint64_t>(d.regsPerBlock)},
      {"regsPerMultiprocessor", static_cast<std::uint64_t>(d.regsPerMultiprocessor)},
      {"warpSize", static_cast<std::uint64_t>(d.warpSize)},
      {"sharedMemPerBlock", d.sharedMemPerBlock},
      {"sharedMemPerMultiprocessor", d.sharedMemPerMultiprocessor},
      {"numSms", static_cast<std::uint64_t>(d.numSms)},
      {"sharedMemPerBlockOptin", d.sharedMemPerBlockOptin},
  };
  for (const auto& [key, value] : fields) {
    out += ',';
    appendKey(out, key);
    appendInteger(out, value);
  }
  out += '}';
}

std::string headerText(const TraceHeader& header) {
  const DistributedInfo& dist = header.distributed;
  FATHOM_CHECK(dist.rank >= 0, ConfigError, "trace header: distributedInfo.rank must be >= 0, got ", dist.rank);
  FATHOM_CHECK(dist.worldSize >= 1, ConfigError, "trace header: distributedInfo.world_size must be >= 1, got ",
               dist.worldSize);
  std::string out = "{\"schemaVersion\":1,\"deviceProperties\":[";
  for (std::size_t i = 0; i < header.devices.size(); ++i) {
    if (i > 0) {
      out += ',';
    }
    appendDevice(out, header.devices[i]);
  }
  out += "],";
  if (const std::string extra = objectMembersText(header.metadataJson, kOwnedKeys, "TraceHeader::metadataJson");
      !extra.empty()) {
    out += extra;
    out += ',';
  }
  out += "\"distributedInfo\":{\"backend\":";
  appendJsonString(out, dist.backend);
  out += ",\"rank\":";
  appendInteger(out, dist.rank);
  out += ",\"world_size\":";
  appendInteger(out, dist.worldSize);
  if (!dist.ranks.empty()) {
    out += ",\"ranks\":[";
    for (std::size_t i = 0; i < dist.ranks.size(); ++i) {
      if (i > 0) {
        out += ',';
      }
      appendInteger(out, dist.ranks[i]);
    }
    out += ']';
  }
  out += "},\"displayTimeUnit\":\"ms\",\"baseTimeNanoseconds\":";
  appendInteger(out, header.baseTimeUnixNs);
  out += ",\"traceEvents\":[";
  return out;
}

}  // namespace

std::string objectMembersText(std::string_view objectJson, std::span<const std::string_view> reserved,
                              std::string_view what) {
  if (objectJson.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return {};
  }
  nlohmann::json parsed;
  try {
    parsed = nlohmann::json::parse(objectJson);
  } catch (const nlohmann::json::exception& e) {  // parse_error, or out_of_range for a number such as 1e400
    throw ConfigError(std::string(what) + " is not valid JSON: " + e.what());
  }
  FATHOM_CHECK(parsed.is_object(), ConfigError, what, " must be a JSON object, got ", parsed.type_name());
  for (const std::string_view key : reserved) {
    FATHOM_CHECK(!parsed.contains(key), ConfigError, what, " must not define \"", key,
                 "\": the trace writer owns that key");
  }
  // Verbatim between the braces (the text is a valid object, so its first '{' and last '}' are the braces).
  const std::size_t open = objectJson.find('{');
  const std::size_t close = objectJson.rfind('}');
  std::string_view inner = objectJson.substr(open + 1, close - open - 1);
  const std::size_t first = inner.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    return {};
  }
  inner = inner.substr(first, inner.find_last_not_of(" \t\r\n") - first + 1);
  return std::string(inner);
}

ChromeTraceWriter::ChromeTraceWriter(std::filesystem::path path, const TraceHeader& header, TraceFileOptions options)
    : m_sink(std::move(path), std::move(options)), m_baseNs(header.baseTimeNs), m_traceName(header.traceName) {
  m_line.reserve(4096);
  try {
    m_sink.write(headerText(header));
  } catch (...) {
    m_sink.abandon();
    throw;
  }
}

ChromeTraceWriter::~ChromeTraceWriter() = default;

void ChromeTraceWriter::beginEvent() {
  m_line.clear();
  m_line += m_events == 0 ? "\n" : ",\n";
}

void ChromeTraceWriter::write(const TraceEvent& e) {
  beginEvent();
  std::string& o = m_line;
  o += "{\"ph\":\"";
  o += static_cast<char>(e.phase);
  o += '"';
  if (e.phase != TracePhase::Metadata) {
    o += ",\"cat\":\"";
    o += toString(e.category);  // fixed ASCII names
    o += '"';
  }
  o += ",\"name\":";
  appendJsonString(o, e.name);
  o += ",\"pid\":";
  appendInteger(o, e.pid);
  o += ",\"tid\":";
  appendInteger(o, e.tid);
  // Relative to the base; a start before it clamps to 0 and keeps its end, so clamped spans still nest.
  const std::int64_t start = e.startNs - m_baseNs;
  o += ",\"ts\":";
  appendMicros(o, std::max<std::int64_t>(start, 0));
  switch (e.phase) {
  case TracePhase::Complete: {
    const std::int64_t duration = std::max<std::int64_t>(e.durationNs, 0);
    o += ",\"dur\":";
    appendMicros(o, start >= 0 ? duration : std::max<std::int64_t>(start + duration, 0));
    break;
  }
  case TracePhase::FlowStart:
  case TracePhase::FlowEnd:
    o += ",\"id\":";
    appendInteger(o, e.id);
    if (e.phase == TracePhase::FlowEnd) {
      o += ",\"bp\":\"e\"";  // bind to the enclosing slice, as Kineto writes every flow end
    }
    break;
  case TracePhase::Instant:
    o += ",\"s\":\"";
    o += e.scope == 'g' || e.scope == 'p' ? e.scope : 't';
    o += '"';
    break;
  default: break;
  }
  if (!e.args.empty()) {
    appendArgs(e.args);
  }
  o += '}';
  m_sink.write(o);
  ++m_events;
}

void ChromeTraceWriter::appendArgs(std::span<const TraceArg> args) {
  std::string& o = m_line;
  o += ",\"args\":{";
  bool first = true;
  for (const TraceArg& arg : args) {
    if (!first) {
      o += ',';
    }
    first = false;
    appendJsonString(o, arg.key);
    o += ':';
    switch (arg.type) {
    case TraceArg::Type::Int: appendInteger(o, arg.i); break;
    case TraceArg::Type::Double: appendDouble(o, arg.d); break;
    case TraceArg::Type::String: appendJsonString(o, arg.s); break;
    case TraceArg::Type::Json: o += arg.s.empty() ? std::string_view("null") : arg.s; break;
    case TraceArg::Type::Bool: o += arg.i != 0 ? "true" : "false"; break;
    }
  }
  o += '}';
}

void ChromeTraceWriter::writeRaw(std::string_view eventJson) {
  beginEvent();
  m_line += eventJson;
  m_sink.write(m_line);
  ++m_events;
}

void ChromeTraceWriter::writeMetadataEvent(std::string_view name, std::uint32_t pid, std::uint64_t tid,
                                           const TraceArg& arg) {
  write(TraceEvent{.phase = TracePhase::Metadata,
                   .category = TraceCategory::Trace,
                   .name = name,
                   .startNs = m_baseNs,
                   .pid = pid,
                   .tid = tid,
                   .args = std::span<const TraceArg>(&arg, 1)});
}

void ChromeTraceWriter::writeProcessName(std::uint32_t pid, std::string_view name) {
  writeMetadataEvent("process_name", pid, 0, TraceArg::string("name", name));
}

void ChromeTraceWriter::writeProcessLabels(std::uint32_t pid, std::string_view labels) {
  writeMetadataEvent("process_labels", pid, 0, TraceArg::string("labels", labels));
}

void ChromeTraceWriter::writeProcessSortIndex(std::uint32_t pid, std::int64_t sortIndex) {
  writeMetadataEvent("process_sort_index", pid, 0, TraceArg::integer("sort_index", sortIndex));
}

void ChromeTraceWriter::writeThreadName(std::uint32_t pid, std::uint64_t tid, std::string_view name) {
  writeMetadataEvent("thread_name", pid, tid, TraceArg::string("name", name));
}

void ChromeTraceWriter::writeThreadSortIndex(std::uint32_t pid, std::uint64_t tid, std::int64_t sortIndex) {
  writeMetadataEvent("thread_sort_index", pid, tid, TraceArg::integer("sort_index", sortIndex));
}

void ChromeTraceWriter::finish(std::string_view trailingKeysJson) {
  m_line.clear();
  m_line += "\n]";
  if (const std::string extra = objectMembersText(trailingKeysJson, kOwnedKeys, "trailing trace keys");
      !extra.empty()) {
    m_line += ',';
    m_line += extra;
  }
  m_line += ",\"traceName\":";
  appendJsonString(m_line, m_traceName);
  m_line += "}\n";
  m_sink.write(m_line);
  m_sink.finish();
}

void ChromeTraceWriter::abandon() noexcept {
  m_sink.abandon();
}

}  // namespace fathom::trace
