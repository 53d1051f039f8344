// SPDX-License-Identifier: Apache-2.0
#pragma once

// The vocabulary of Chrome/Kineto trace files (docs/traces.md): what one event and a file's header say. Times are
// integer nanoseconds on one monotonic clock chosen by whoever records the events (the profiler's is
// profile::nowNs()); the header ties that clock to the wall clock once (TraceHeader::baseTimeNs/baseTimeUnixNs).

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fathom::trace {

/// Kineto's `cat` names (libkineto ActivityType.cpp), which Holistic Trace Analysis and Perfetto key on.
enum class TraceCategory : std::uint8_t {
  CpuOp,              ///< "cpu_op": an ATen operator
  UserAnnotation,     ///< "user_annotation": ProfilerStep#N and Fathom's spans (forward, backward, collectives, ...)
  GpuUserAnnotation,  ///< "gpu_user_annotation"
  Kernel,             ///< "kernel"
  GpuMemcpy,          ///< "gpu_memcpy"
  GpuMemset,          ///< "gpu_memset"
  CudaRuntime,        ///< "cuda_runtime"
  CudaDriver,         ///< "cuda_driver"
  CudaSync,           ///< "cuda_sync"
  Overhead,           ///< "overhead": CUPTI's own cost
  CpuInstantEvent,    ///< "cpu_instant_event": the `[memory]` instants
  Ac2g,               ///< "ac2g": the flow from a CPU launch to its GPU activity
  Memory,             ///< "memory": counters of memory by category (Perfetto draws them; HTA ignores counters)
  Trace,              ///< "Trace": metadata rows (process/thread names)
};
inline constexpr std::size_t kTraceCategoryCount = 14;

/// The category's `cat` string, e.g. "cpu_op".
std::string_view toString(TraceCategory category);

/// Chrome trace event phases Fathom writes (never B/E: every span is one complete event).
enum class TracePhase : char {
  Complete = 'X',   ///< ts + dur
  Instant = 'i',    ///< ts; TraceEvent::scope says g/p/t
  Counter = 'C',    ///< each arg is one series
  FlowStart = 's',  ///< binds to the enclosing slice on (pid, tid) at ts
  FlowEnd = 'f',    ///< written with "bp":"e": binds to the enclosing slice at ts
  Metadata = 'M',   ///< process_name, thread_name, *_sort_index, process_labels
};

/// One `args` entry. Keys and string values are views: they must outlive the TraceEvent that holds them (the
/// writer copies them into its output at once).
struct TraceArg {
  enum class Type : std::uint8_t {
    Int,     ///< `i`
    Double,  ///< `d`
    String,  ///< `s`, escaped by the writer
    Json,    ///< `s` is already valid JSON text (an array of shapes, a nested object) and is written verbatim
    Bool,    ///< `i != 0`
  };
  std::string_view key;
  Type type = Type::Int;
  std::int64_t i = 0;
  double d = 0;
  std::string_view s;

  static TraceArg integer(std::string_view key, std::int64_t value) { return {key, Type::Int, value, 0, {}}; }
  static TraceArg real(std::string_view key, double value) { return {key, Type::Double, 0, value, {}}; }
  static TraceArg string(std::string_view key, std::string_view value) { return {key, Type::String, 0, 0, value}; }
  static TraceArg json(std::string_view key, std::string_view text) { return {key, Type::Json, 0, 0, text}; }
  static TraceArg boolean(std::string_view key, bool value) { return {key, Type::Bool, value ? 1 : 0, 0, {}}; }
};

/// One event as the exporter writes it. Times are on the events' clock (see above); the writer turns them into
/// microseconds relative to the trace's base time with exactly three decimals, from the integer nanoseconds.
///
/// pid/tid are non-negative integers (never strings): CPU rows are the OS process id and thread id (gettid), GPU
/// rows are pid = CUDA device index and tid = stream id, as Kineto writes them. Names of rows come from Metadata
/// events.
struct TraceEvent {
  TracePhase phase = TracePhase::Complete;
  TraceCategory category = TraceCategory::CpuOp;
  char scope = 't';  ///< instants only: 'g' global, 'p' process, 't' thread
  std::string_view name;
  std::int64_t startNs = 0;     ///< the events' clock
  std::int64_t durationNs = 0;  ///< Complete events only; >= 0
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;
  std::uint64_t id = 0;  ///< flow id (FlowStart/FlowEnd): the CUPTI correlation id for ac2g
  std::span<const TraceArg> args;
};

/// One CUDA device as Kineto's `deviceProperties` lists it.
struct DeviceProperties {
  int id = 0;
  std::string name;
  std::uint64_t totalGlobalMem = 0;
  int computeMajor = 0;
  int computeMinor = 0;
  int numSms = 0;
  int maxThreadsPerBlock = 0;
  int maxThreadsPerMultiprocessor = 0;
  int regsPerBlock = 0;
  int regsPerMultiprocessor = 0;
  int warpSize = 0;
  std::uint64_t sharedMemPerBlock = 0;
  std::uint64_t sharedMemPerMultiprocessor = 0;
  std::uint64_t sharedMemPerBlockOptin = 0;
};

/// `distributedInfo`: Holistic Trace Analysis refuses a trace without an integer `rank`.
struct DistributedInfo {
  std::string backend = "gloo";  ///< "gloo" | "nccl"
  int rank = 0;
  int worldSize = 1;
  /// A merged multi-rank file (mergeTraces): the ranks it holds, written as "ranks"; empty in a per-rank file.
  std::vector<int> ranks;
};

/// Everything a trace file says before its events.
struct TraceHeader {
  std::int64_t baseTimeNs = 0;      ///< the events'-clock instant written as ts 0.000 (events before it clamp to 0)
  std::int64_t baseTimeUnixNs = 0;  ///< the same instant on the wall clock: `baseTimeNanoseconds`
  DistributedInfo distributed;
  std::vector<DeviceProperties> devices;  ///< `deviceProperties` (empty without CUDA)
  /// Extra top-level keys as one JSON object text (e.g. {"fathom":{"run_id":3,...}}); empty for none. Keys must
  /// not collide with the ones the writer owns (schemaVersion, deviceProperties, distributedInfo,
  /// displayTimeUnit, baseTimeNanoseconds, traceEvents, traceName).
  std::string metadataJson;
  std::string traceName;  ///< `traceName`, written last (Kineto writes the file's path)
};

}  // namespace fathom::trace
