// SPDX-License-Identifier: Apache-2.0
#include "fathom/profile/cupti/gpu_trace_builder.h"

#include <fathom/common/error.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <unordered_map>
#include <utility>

namespace fathom::profile {

namespace {

// cudaGetLastError, cudaSetDevice, cudaGetDevice, cudaEventCreate, cudaEventCreateWithFlags, cudaEventRecord,
// cudaEventDestroy (CUpti_runtime_api_trace_cbid; tst_cupti_records checks the values against the header).
constexpr std::array<std::uint32_t, 7> kNoisyRuntimeCbids = {10, 16, 17, 133, 134, 135, 136};

constexpr std::int64_t kOverheadSortOffset = 65535;
constexpr std::string_view kExternalId = "External id";

bool validTimes(const GpuActivity& a) {
  return a.startNs > 0 && a.endNs >= a.startNs;
}

bool isGpuOp(const GpuActivity& a) {
  return a.kind == GpuActivityKind::Kernel || a.kind == GpuActivityKind::Memcpy || a.kind == GpuActivityKind::Memset;
}

bool isApi(const GpuActivity& a) {
  return a.kind == GpuActivityKind::Runtime || a.kind == GpuActivityKind::Driver;
}

std::pair<std::int64_t, std::int64_t> inOutElements(const CollectiveInfo& c) {
  // CommRecord::elements counts the whole buffer: the gathered output of all_gather, the full input of
  // reduce_scatter. PyTorch's "In/Out msg nelems" count this rank's input and output.
  const std::int64_t group = std::max(c.groupSize, 1);
  if (c.kind == "all_gather") {
    return {c.elements / group, c.elements};
  }
  if (c.kind == "reduce_scatter") {
    return {c.elements, c.elements / group};
  }
  return {c.elements, c.elements};
}

// One event's args and the JSON texts they view; reused from event to event.
class ArgList {
public:
  void clear() {
    m_count = 0;
    m_texts = 0;
  }
  void integer(std::string_view key, std::int64_t value) { push(trace::TraceArg::integer(key, value)); }
  void real(std::string_view key, double value) { push(trace::TraceArg::real(key, value)); }
  void string(std::string_view key, std::string_view value) { push(trace::TraceArg::string(key, value)); }
  void triple(std::string_view key, const std::array<std::int32_t, 3>& v) {
    FATHOM_ASSERT(m_texts < m_text.size(), "too many JSON args");
    std::string& text = m_text[m_texts++];
    text = detail::concat('[', v[0], ',', v[1], ',', v[2], ']');
    push(trace::TraceArg::json(key, text));
  }
  std::span<const trace::TraceArg> view() const { return {m_items.data(), m_count}; }

private:
  void push(const trace::TraceArg& arg) {
    FATHOM_ASSERT(m_count < m_items.size(), "too many args for one event");
    m_items[m_count++] = arg;
  }
  std::array<trace::TraceArg, 24> m_items{};
  std::size_t m_count = 0;
  std::array<std::string, 2> m_text;
  std::size_t m_texts = 0;
};

// Where one record goes.
struct Row {
  std::uint32_t pid = 0;
  std::uint64_t tid = 0;
  bool emit = false;
  std::int64_t startNs = 0;  // after clamping (syncs nest inside their call)
  std::int64_t endNs = 0;
  std::int64_t trimmedNs = 0;  // how much of a GPU record's end trimStreamOverlaps() cut
};

using CorrelationMap = std::unordered_map<CorrelationId, std::size_t, GpuIdHash>;

// One build(): index the records, place them on rows, then write metadata and records. Indices are positions in
// the activities, in the order they were added (which is how "out of order" is judged).
class BuildPass {
public:
  BuildPass(const std::vector<GpuActivity>& activities, const GpuTraceBuilderOptions& options,
            const GpuTraceBuilder::LaunchLookup& lookup, const CuptiThreadMap& threadMap,
            const std::vector<trace::DeviceProperties>& devices, const GpuTraceBuilder::Sink& sink)
      : m_acts(activities), m_options(options), m_lookup(lookup), m_threadMap(threadMap), m_devices(devices),
        m_sink(sink), m_rows(activities.size()) {}

  GpuTraceStats run() {
    index();
    placeRows();
    trimStreamOverlaps();
    placeSyncs();
    writeMetadata();
    writeRecords();
    return m_stats;
  }

private:
  const CpuLaunchContext* opOf(std::optional<ExternalId> id) const { return id && m_lookup ? m_lookup(*id) : nullptr; }
  std::optional<ExternalId> externalOf(CorrelationId correlation) const {
    const auto it = m_external.find(correlation);
    return it == m_external.end() ? std::nullopt : std::optional(it->second);
  }
  // The call that launched a GPU record: by correlation id, else (copies) by the runtime call's id.
  std::optional<std::size_t> launchOf(const GpuActivity& a) const {
    if (const auto it = m_launch.find(a.correlation); it != m_launch.end()) {
      return it->second;
    }
    if (const MemcpyInfo* copy = a.memcpy(); copy != nullptr && copy->runtimeCorrelation.value != 0) {
      if (const auto it = m_launch.find(copy->runtimeCorrelation); it != m_launch.end()) {
        return it->second;
      }
    }
    return std::nullopt;
  }
  const trace::DeviceProperties* device(DeviceIndex index) const {
    const auto it = std::find_if(m_devices.begin(), m_devices.end(), [&](const trace::DeviceProperties& d) {
      return d.id == static_cast<int>(index.value);
    });
    return it == m_devices.end() ? nullptr : &*it;
  }

  void index();
  void placeRows();
  void placeApi(const GpuActivity& a, const ApiInfo& api, Row& row);
  void trimStreamOverlaps();
  void placeSyncs();
  void writeMetadata();
  void writeRecords();
  void writeGpuOp(std::size_t i, trace::TraceEvent& event);
  void writeKernelArgs(const GpuActivity& a, const KernelInfo& kernel, const CpuLaunchContext* op);
  void writeFlow(std::size_t launch, std::size_t i, CorrelationId correlation);
  void emit(const trace::TraceEvent& event) {
    m_sink(event);
    ++m_stats.eventsEmitted;
  }
  void metadata(std::string_view name, std::uint32_t pid, std::uint64_t tid);

  const std::vector<GpuActivity>& m_acts;
  const GpuTraceBuilderOptions& m_options;
  const GpuTraceBuilder::LaunchLookup& m_lookup;
  const CuptiThreadMap& m_threadMap;
  const std::vector<trace::DeviceProperties>& m_devices;
  const GpuTraceBuilder::Sink& m_sink;

  GpuTraceStats m_stats;
  CorrelationMap m_launch;      // correlation -> its runtime record (else driver record)
  CorrelationMap m_firstGpuOp;  // launch correlation -> the earliest GPU record it launched
  std::unordered_map<CorrelationId, ExternalId, GpuIdHash> m_external;
  std::unordered_map<ContextId, DeviceIndex, GpuIdHash> m_deviceOfContext;
  CuptiThreadMap m_learnedThreads;
  std::vector<Row> m_rows;
  std::set<std::pair<std::uint32_t, std::uint32_t>> m_gpuRows;       // (device, stream)
  std::set<std::pair<std::uint32_t, std::uint64_t>> m_unmappedRows;  // (pid, CUPTI thread id)
  std::set<std::size_t> m_overheadRows;                              // OverheadKind
  std::int64_t m_firstNs = 0;
  ArgList m_args;
  std::string m_text;
  std::set<std::string_view> m_unlinkedNames;
};

void BuildPass::index() {
  for (std::size_t i = 0; i < m_acts.size(); ++i) {
    const GpuActivity& a = m_acts[i];
    if (isApi(a)) {
      // The runtime call wins over the driver call it makes when both carry the same correlation id.
      const auto [it, inserted] = m_launch.emplace(a.correlation, i);
      if (!inserted && a.kind == GpuActivityKind::Runtime && m_acts[it->second].kind == GpuActivityKind::Driver) {
        it->second = i;
      }
    } else if (const ExternalCorrelationInfo* ext = a.external()) {
      if (ext->externalKind == ExternalKind::Custom0) {
        m_external[a.correlation] = ext->externalId;
        ++m_stats.externalCorrelations;
      } else {
        ++m_stats.externalCorrelationsIgnored;
      }
    } else if (isGpuOp(a)) {
      m_deviceOfContext.emplace(a.context, a.device);
    }
  }
  for (std::size_t i = 0; i < m_acts.size(); ++i) {
    const GpuActivity& a = m_acts[i];
    if (!isGpuOp(a) || !validTimes(a)) {
      continue;
    }
    if (const auto launch = launchOf(a)) {
      const auto [it, inserted] = m_firstGpuOp.emplace(m_acts[*launch].correlation, i);
      if (!inserted && a.startNs < m_acts[it->second].startNs) {
        it->second = i;
      }
    }
  }
  // A call linked to a CPU op ran on that op's thread; unlinked calls of the same CUPTI thread (outside any op) go
  // to the same row.
  for (const GpuActivity& a : m_acts) {
    if (const ApiInfo* api = a.api()) {
      if (const CpuLaunchContext* op = opOf(externalOf(a.correlation))) {
        m_learnedThreads.emplace(api->threadId, op->tid);
      }
    }
  }
}

void BuildPass::placeRows() {
  for (std::size_t i = 0; i < m_acts.size(); ++i) {
    const GpuActivity& a = m_acts[i];
    Row& row = m_rows[i];
    row.startNs = a.startNs;
    row.endNs = a.endNs;
    if (a.kind == GpuActivityKind::ExternalCorrelation) {
      continue;
    }
    if (!validTimes(a)) {
      ++m_stats.invalidTimestamps;
      continue;
    }
    row.emit = true;
    if (isGpuOp(a)) {
      row.pid = a.device.value;
      row.tid = a.stream.value;
      m_gpuRows.emplace(a.device.value, a.stream.value);
    } else if (const ApiInfo* api = a.api()) {
      placeApi(a, *api, row);
    } else if (const OverheadInfo* overhead = a.overhead()) {
      row.pid = m_options.overheadPid;
      row.tid = static_cast<std::uint64_t>(overhead->overheadKind);
      m_overheadRows.insert(static_cast<std::size_t>(overhead->overheadKind));
    }
  }
}

void BuildPass::placeApi(const GpuActivity& a, const ApiInfo& api, Row& row) {
  const CpuLaunchContext* op = opOf(externalOf(a.correlation));
  const auto mapped = m_threadMap.find(api.threadId);
  row.pid = op != nullptr ? op->pid : api.processId;
  if (op != nullptr) {
    row.tid = op->tid;  // the CPU profiler saw the op on this thread: authoritative
    m_stats.threadMapConflicts += mapped != m_threadMap.end() && mapped->second != op->tid ? 1 : 0;
  } else if (mapped != m_threadMap.end()) {
    row.tid = mapped->second;
  } else if (const auto learned = m_learnedThreads.find(api.threadId); learned != m_learnedThreads.end()) {
    row.tid = learned->second;
  } else {
    row.tid = api.threadId.value;
    m_unmappedRows.emplace(row.pid, row.tid);
  }
  if (a.kind == GpuActivityKind::Runtime && m_options.skipNoisyRuntimeCalls &&
      std::find(kNoisyRuntimeCbids.begin(), kNoisyRuntimeCbids.end(), api.cbid) != kNoisyRuntimeCbids.end()) {
    row.emit = false;
    ++m_stats.runtimeCallsSkipped;
  }
}

// A stream runs its work in order, but with programmatic dependent launch (Hopper) a kernel may start a few hundred
// ns before its predecessor's end: two events that cross on one row, which Perfetto moves off the row and the
// validator refuses. The earlier one's end is cut to the later start (kept as overlap_trimmed_ns); records nested
// in another (none expected on one stream) are left alone.
void BuildPass::trimStreamOverlaps() {
  std::map<std::pair<std::uint32_t, std::uint64_t>, std::vector<std::size_t>> streams;
  for (std::size_t i = 0; i < m_acts.size(); ++i) {
    if (m_rows[i].emit && isGpuOp(m_acts[i])) {
      streams[{m_rows[i].pid, m_rows[i].tid}].push_back(i);
    }
  }
  for (auto& [stream, records] : streams) {
    std::stable_sort(records.begin(), records.end(),
                     [&](std::size_t l, std::size_t r) { return m_rows[l].startNs < m_rows[r].startNs; });
    for (std::size_t k = 1; k < records.size(); ++k) {
      Row& before = m_rows[records[k - 1]];
      const Row& after = m_rows[records[k]];
      if (after.startNs < before.endNs && after.endNs > before.endNs && after.startNs >= before.startNs) {
        before.trimmedNs += before.endNs - after.startNs;
        before.endNs = after.startNs;
        ++m_stats.overlapsTrimmed;
      }
    }
  }
}

void BuildPass::placeSyncs() {
  // After placeRows(): a sync takes the row of the call that waited.
  for (std::size_t i = 0; i < m_acts.size(); ++i) {
    const GpuActivity& a = m_acts[i];
    Row& row = m_rows[i];
    if (a.kind != GpuActivityKind::Synchronization || !row.emit) {
      continue;
    }
    if (const auto it = m_launch.find(a.correlation); it != m_launch.end() && validTimes(m_acts[it->second])) {
      const Row& call = m_rows[it->second];
      row.pid = call.pid;
      row.tid = call.tid;
      // Nest strictly inside the call (viewers drop or re-row events that overlap their parent).
      row.startNs = std::clamp(a.startNs, call.startNs, call.endNs);
      row.endNs = std::clamp(a.endNs, row.startNs, call.endNs);
    } else if (const auto ctx = m_deviceOfContext.find(a.context); ctx != m_deviceOfContext.end()) {
      row.pid = ctx->second.value;
      row.tid = a.stream.value;
      m_gpuRows.emplace(ctx->second.value, a.stream.value);
    } else {
      row.emit = false;
      ++m_stats.syncsWithoutRow;
    }
  }
}

void BuildPass::metadata(std::string_view name, std::uint32_t pid, std::uint64_t tid) {
  trace::TraceEvent event;
  event.phase = trace::TracePhase::Metadata;
  event.category = trace::TraceCategory::Trace;
  event.name = name;
  event.startNs = m_firstNs;
  event.pid = pid;
  event.tid = tid;
  event.args = m_args.view();
  emit(event);
}

void BuildPass::writeMetadata() {
  for (const Row& row : m_rows) {
    if (row.emit && (m_firstNs == 0 || row.startNs < m_firstNs)) {
      m_firstNs = row.startNs;  // metadata is stamped at the earliest record
    }
  }
  std::uint32_t lastDevice = 0xFFFFFFFFu;
  for (const auto& [dev, stream] : m_gpuRows) {
    if (dev != lastDevice) {
      lastDevice = dev;
      m_text = detail::concat("GPU ", dev);
      m_args.clear();
      m_args.string("name", m_text);
      metadata("process_name", dev, 0);
      if (const trace::DeviceProperties* props = device(DeviceIndex{dev}); props != nullptr && !props->name.empty()) {
        m_args.clear();
        m_args.string("labels", props->name);
        metadata("process_labels", dev, 0);
      }
      m_args.clear();
      m_args.integer("sort_index", m_options.gpuSortIndexBase + dev);
      metadata("process_sort_index", dev, 0);
    }
    m_text = stream == kNoStream.value ? std::string("no stream") : detail::concat("stream ", stream);
    m_args.clear();
    m_args.string("name", m_text);
    metadata("thread_name", dev, stream);
    m_args.clear();
    m_args.integer("sort_index", stream);
    metadata("thread_sort_index", dev, stream);
  }
  if (!m_overheadRows.empty()) {
    m_args.clear();
    m_args.string("name", "CUPTI overhead");
    metadata("process_name", m_options.overheadPid, 0);
    m_args.clear();
    m_args.integer("sort_index", m_options.gpuSortIndexBase + kOverheadSortOffset);
    metadata("process_sort_index", m_options.overheadPid, 0);
    for (const std::size_t kind : m_overheadRows) {
      m_args.clear();
      m_args.string("name", toString(static_cast<OverheadKind>(kind)));
      metadata("thread_name", m_options.overheadPid, kind);
    }
  }
  for (const auto& [pid, tid] : m_unmappedRows) {
    m_text = detail::concat("CUDA API thread (CUPTI thread id ", tid, ")");
    m_args.clear();
    m_args.string("name", m_text);
    metadata("thread_name", pid, tid);
  }
  m_stats.unmappedThreads = m_unmappedRows.size();
}

void BuildPass::writeRecords() {
  std::vector<std::size_t> order(m_acts.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t l, std::size_t r) { return m_rows[l].startNs < m_rows[r].startNs; });
  for (const std::size_t i : order) {
    const GpuActivity& a = m_acts[i];
    const Row& row = m_rows[i];
    m_args.clear();
    trace::TraceEvent event;
    event.name = a.name;
    event.startNs = row.startNs;
    event.durationNs = row.endNs - row.startNs;
    event.pid = row.pid;
    event.tid = row.tid;
    if (isGpuOp(a)) {
      writeGpuOp(i, event);  // counts, and writes the event and its flow when the row is written
      continue;
    }
    if (const ApiInfo* api = a.api()) {
      const bool runtime = a.kind == GpuActivityKind::Runtime;
      ++(runtime ? m_stats.runtimeCalls : m_stats.driverCalls);
      event.category = runtime ? trace::TraceCategory::CudaRuntime : trace::TraceCategory::CudaDriver;
      if (const auto external = externalOf(a.correlation)) {
        m_args.integer(kExternalId, static_cast<std::int64_t>(external->value));
      }
      m_args.integer("cbid", api->cbid);
      m_args.integer("correlation", a.correlation.value);
      if (api->returnValue != 0) {
        m_args.integer("return value", api->returnValue);
      }
    } else if (const SyncInfo* sync = a.sync()) {
      ++m_stats.syncs;
      event.category = trace::TraceCategory::CudaSync;
      const auto ctx = m_deviceOfContext.find(a.context);
      m_args.string("cuda_sync_kind", toString(sync->syncKind));
      m_args.integer("stream", a.stream == kNoStream ? -1 : std::int64_t{a.stream.value});
      m_args.integer("correlation", a.correlation.value);
      m_args.integer("device", ctx == m_deviceOfContext.end() ? -1 : std::int64_t{ctx->second.value});
      m_args.integer("context", a.context.value);
      if (sync->syncKind == SyncKind::EventSynchronize || sync->syncKind == SyncKind::StreamWaitEvent) {
        m_args.integer("wait_on_cuda_event_id", sync->cudaEventId);
      }
    } else if (const OverheadInfo* overhead = a.overhead()) {
      ++m_stats.overheadRecords;
      m_stats.overheadNs += validTimes(a) ? a.endNs - a.startNs : 0;
      event.category = trace::TraceCategory::Overhead;
      m_args.string("object", toString(overhead->object));
      if (overhead->object == OverheadObject::Process || overhead->object == OverheadObject::Thread) {
        m_args.integer("process id", overhead->processId);
        m_args.integer("thread id", overhead->threadId.value);
      } else if (overhead->object != OverheadObject::Unknown) {
        m_args.integer("device", a.device.value);
        m_args.integer("context", a.context.value);
        m_args.integer("stream", a.stream.value);
      }
    } else {
      continue;  // external correlation: no event of its own
    }
    if (row.emit) {
      event.args = m_args.view();
      emit(event);
    }
  }
}

void BuildPass::writeGpuOp(std::size_t i, trace::TraceEvent& event) {
  const GpuActivity& a = m_acts[i];
  const auto launch = launchOf(a);
  const CorrelationId launchCorrelation = launch ? m_acts[*launch].correlation : a.correlation;
  const auto external = externalOf(launchCorrelation);
  const CpuLaunchContext* op = opOf(external);
  if (launch) {
    m_stats.recordsOutOfOrder += *launch > i ? 1 : 0;
    const GpuActivity& call = m_acts[*launch];
    m_stats.gpuBeforeLaunch += validTimes(a) && validTimes(call) && a.startNs < call.startNs ? 1 : 0;
  }
  if (external) {
    m_args.integer(kExternalId, static_cast<std::int64_t>(external->value));
  }
  m_args.integer("device", a.device.value);
  m_args.integer("context", a.context.value);
  m_args.integer("stream", a.stream.value);
  m_args.integer("correlation", a.correlation.value);
  if (m_rows[i].trimmedNs > 0) {
    m_args.integer("overlap_trimmed_ns", m_rows[i].trimmedNs);
  }
  if (const KernelInfo* kernel = a.kernel()) {
    ++m_stats.kernels;
    m_stats.kernelsLinkedToLaunch += launch ? 1 : 0;
    m_stats.kernelsLinkedToCpuOp += op != nullptr ? 1 : 0;
    if (!launch && m_unlinkedNames.size() < m_options.maxListedUnlinked && m_unlinkedNames.insert(a.name).second) {
      m_stats.unlinkedKernelNames.emplace_back(a.name);
    }
    event.category = trace::TraceCategory::Kernel;
    writeKernelArgs(a, *kernel, op);
  } else {
    const bool copy = a.kind == GpuActivityKind::Memcpy;
    ++(copy ? m_stats.memcpys : m_stats.memsets);
    m_stats.memoryOpsLinkedToLaunch += launch ? 1 : 0;
    event.category = copy ? trace::TraceCategory::GpuMemcpy : trace::TraceCategory::GpuMemset;
    const std::uint64_t bytes = copy ? a.memcpy()->bytes : a.memset()->bytes;
    m_args.integer("bytes", static_cast<std::int64_t>(bytes));
    if (event.durationNs > 0) {
      m_args.real("memory bandwidth (GB/s)", double(bytes) / double(event.durationNs));  // bytes/ns = GB/s
    }
  }
  if (!m_rows[i].emit) {
    return;
  }
  event.args = m_args.view();
  emit(event);
  if (launch && m_rows[*launch].emit && m_firstGpuOp.at(launchCorrelation) == i) {
    writeFlow(*launch, i, launchCorrelation);
  }
}

void BuildPass::writeKernelArgs(const GpuActivity& a, const KernelInfo& kernel, const CpuLaunchContext* op) {
  m_args.integer("registers per thread", kernel.registersPerThread);
  m_args.integer("shared memory", static_cast<std::int64_t>(kernel.staticSharedMemory) + kernel.dynamicSharedMemory);
  if (const trace::DeviceProperties* props = device(a.device);
      props != nullptr && props->numSms > 0 && props->warpSize > 0) {
    const double blocks = double(kernel.grid[0]) * kernel.grid[1] * kernel.grid[2];
    const double threads = double(kernel.block[0]) * kernel.block[1] * kernel.block[2];
    const double blocksPerSm = blocks / props->numSms;
    m_args.real("blocks per SM", blocksPerSm);
    m_args.real("warps per SM", blocksPerSm * std::ceil(threads / props->warpSize));
  }
  m_args.triple("grid", kernel.grid);
  m_args.triple("block", kernel.block);
  if (!isNcclKernelName(a.name)) {
    return;
  }
  ++m_stats.ncclKernels;
  if (op == nullptr || !op->collective) {
    return;
  }
  ++m_stats.ncclKernelsTagged;
  const CollectiveInfo& c = *op->collective;
  const auto [in, out] = inOutElements(c);
  m_args.string("Collective name", c.kind);
  m_args.integer("In msg nelems", in);
  m_args.integer("Out msg nelems", out);
  m_args.integer("Group size", c.groupSize);
  m_args.string("dtype", c.dtype);
  m_args.integer("bytes", c.bytes);
  m_args.integer("sequence", static_cast<std::int64_t>(c.sequence));
  if (!c.label.empty()) {
    m_args.string("label", c.label);
  }
}

void BuildPass::writeFlow(std::size_t launch, std::size_t i, CorrelationId correlation) {
  trace::TraceEvent flow;
  flow.category = trace::TraceCategory::Ac2g;
  flow.name = "ac2g";
  flow.id = correlation.value;
  flow.phase = trace::TracePhase::FlowStart;  // at the call's start, on its CPU row
  flow.startNs = m_rows[launch].startNs;
  flow.pid = m_rows[launch].pid;
  flow.tid = m_rows[launch].tid;
  emit(flow);
  flow.phase = trace::TracePhase::FlowEnd;  // at the GPU record's start, on its row
  flow.startNs = m_rows[i].startNs;
  flow.pid = m_rows[i].pid;
  flow.tid = m_rows[i].tid;
  emit(flow);
  ++m_stats.flows;
}

}  // namespace

bool isNcclKernelName(std::string_view name) {
  if (name.starts_with("nccl")) {
    return true;
  }
  // Mangled: _Z<length><identifier>... (a kernel in a namespace starts _ZN, whose identifier does not start nccl).
  if (!name.starts_with("_Z")) {
    return false;
  }
  std::size_t i = 2;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') {
    ++i;
  }
  return i > 2 && name.substr(i).starts_with("nccl");
}

std::span<const std::uint32_t> noisyRuntimeCallbackIds() {
  return kNoisyRuntimeCbids;
}

GpuTraceBuilder::GpuTraceBuilder(GpuTraceBuilderOptions options) : m_options(std::move(options)) {}

void GpuTraceBuilder::setLaunchLookup(LaunchLookup lookup) {
  m_lookup = std::move(lookup);
}

void GpuTraceBuilder::setThreadMap(CuptiThreadMap map) {
  m_threadMap = std::move(map);
}

void GpuTraceBuilder::setDevices(std::vector<trace::DeviceProperties> devices) {
  m_devices = std::move(devices);
}

void GpuTraceBuilder::add(std::span<const GpuActivity> activities) {
  m_activities.insert(m_activities.end(), activities.begin(), activities.end());
}

GpuTraceStats GpuTraceBuilder::build(const Sink& sink) const {
  FATHOM_ASSERT(static_cast<bool>(sink), "GpuTraceBuilder::build needs a sink");
  BuildPass pass(m_activities, m_options, m_lookup, m_threadMap, m_devices, sink);
  return pass.run();
}

}  // namespace fathom::profile
