// SPDX-License-Identifier: Apache-2.0
// The process-wide capture state behind fathom::profile::Profiler: what the hot paths (ATen operator callbacks,
// RecordFunction spans, the Comm layer, the allocator) append to while a window records. Private to core/profile.
#pragma once

#include "profile/interned_names.h"

#include <fathom/common/memory_category.h>
#include <fathom/profile/annotations.h>
#include <fathom/profile/memory_timeline.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace fathom::profile::detail {

class LiveMemory;

/// What a CPU event is.
enum class CpuEventKind : std::uint8_t {
  Op,          ///< an ATen operator (cpu_op)
  Annotation,  ///< a RecordFunction span or a Fathom span (user_annotation)
  Step,        ///< ProfilerStep#N (user_annotation)
  Collective,  ///< a collective of the Comm layer (user_annotation, on its own lane rows)
};

/// One finished CPU span. Compact on purpose (48 bytes): a window holds millions.
struct CpuEvent {
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
  std::uint64_t externalId = 0;  ///< correlation with GPU work ("External id"); 0 = none
  std::int64_t sequenceNr = -1;  ///< autograd's sequence number (forward op <-> backward node); -1 = none
  std::uint32_t nameId = 0;      ///< InternedNames id
  std::uint32_t extra = 0;       ///< 1-based index into ThreadCapture::extras (or ::collectives); 0 = none
  CpuEventKind kind = CpuEventKind::Op;
};

/// What an operator carries only when asked for (record_shapes, with_stack, with_modules, with_flops).
struct OpExtras {
  std::string inputDims;   ///< JSON: [[2, 3], [3], []]
  std::string inputTypes;  ///< JSON: ["float", "float", "Scalar"]
  std::string callStack;   ///< "ProfilerStep#3;fathom::forward"
  std::string moduleHierarchy;
  double flops = -1;  ///< < 0: not estimated
};

/// A finished collective (the Comm layer's record, strings owned).
struct CollectiveRecord {
  std::string kind, requested, op, dtype, backend, label;
  std::int64_t bytes = 0, elements = 0, step = 0;
  int groupSize = 1, rank = 0;
  std::uint64_t sequence = 0;
};

/// One thread's buffers. The owning thread appends under `mutex` (uncontended: only the collector takes it too).
struct ThreadCapture {
  std::mutex mutex;
  std::uint64_t osTid = 0;  ///< gettid()
  std::string threadName;
  std::vector<CpuEvent> events;
  std::vector<OpExtras> extras;
  std::vector<CollectiveRecord> collectives;
  std::vector<AllocatorEvent> memory;
  /// Names of the spans open on this thread (with_stack / with_modules).
  std::vector<std::uint32_t> openSpans;
  std::vector<std::string> openModules;
};

/// The settings the hot paths read (copied from ProfilerOptions when the session starts).
struct CaptureSettings {
  bool cpu = true;
  bool recordShapes = false;
  bool profileMemory = false;
  bool withStack = false;
  bool withFlops = false;
  bool withModules = false;
  bool cuda = false;  ///< push external correlation ids to CUPTI
};

/// The window data collected from every thread (CaptureSession::collect).
struct CollectedCapture {
  std::vector<std::shared_ptr<ThreadCapture>> threads;            ///< their vectors moved out of the live buffers
  std::vector<PhaseInterval> phases;                              ///< every interval that overlaps the window, by start
  std::vector<StorageClassification> classifications;             ///< by time
  std::vector<LiveBlock> baseline;                                ///< alive when the window started (memory profiling)
  std::unordered_map<std::uint64_t, std::uint64_t> issueThreads;  ///< collective external id -> issuing OS thread
  std::int64_t startNs = 0;
  std::int64_t endNs = 0;
};

/// The one capture session of the process (at most one Profiler at a time). Hot-path entry points are free
/// functions below that read the active session through one atomic pointer.
class CaptureSession {
public:
  explicit CaptureSession(const CaptureSettings& settings);
  ~CaptureSession();

  const CaptureSettings& settings() const { return m_settings; }
  /// Whether events are kept now (Record / RecordAndSave, or a Warmup whose events are discarded later).
  bool collecting() const { return m_collecting.load(std::memory_order_relaxed); }
  /// Changes with every collect(): spans begun before it are dropped when they end.
  std::uint64_t generation() const { return m_generation.load(std::memory_order_relaxed); }

  /// Starts keeping events (discarding anything collected before).
  void startCollecting(std::int64_t ns);
  /// Stops keeping events and hands over everything kept since startCollecting.
  CollectedCapture collect(std::int64_t ns);
  /// Drops what was kept and keeps collecting (Warmup -> Record).
  void discard(std::int64_t ns);

  /// The calling thread's buffers (registered on first use).
  ThreadCapture& thread();
  std::uint64_t nextExternalId() { return m_nextExternalId.fetch_add(1, std::memory_order_relaxed); }
  /// Remembers which thread issued the collective `externalId` (its GPU launches happen there).
  void noteCollectiveIssue(std::uint64_t externalId, std::uint64_t osTid);

  // --- phases and memory ------------------------------------------------------------------------------------
  /// The phase stack of the process (the training thread drives it; allocations on any thread read it).
  void pushPhase(Phase phase);
  void popPhase();
  void setBasePhase(Phase phase);
  /// The current phase and its instance (for AllocatorEvent::phaseInstance), read together.
  struct PhaseState {
    Phase phase = Phase::None;
    std::uint32_t instance = 0;
  };
  PhaseState phaseState() const {
    const std::uint64_t packed = m_phaseState.load(std::memory_order_relaxed);
    return {static_cast<Phase>(packed & 0xff), static_cast<std::uint32_t>(packed >> 8)};
  }
  /// The innermost MemoryCategoryScope's category, or AllocatorEvent::kNoHint.
  std::atomic<std::uint8_t>& memoryHint() { return m_memoryHint; }
  /// Records what Fathom knows of live storages (the model-state provider's answer).
  void classify(const std::vector<StorageClassification>& storages);

  /// The allocator's live blocks (memory profiling only; see LiveMemory).
  LiveMemory& liveMemory() { return *m_live; }

  /// The session hot paths write to, or nullptr.
  static CaptureSession* active() { return s_active.load(std::memory_order_acquire); }

private:
  /// The effective phase (top of the stack) changed: a new instance starts now.
  void startInstanceLocked();

  CaptureSettings m_settings;
  std::atomic<bool> m_collecting{false};
  std::atomic<std::uint64_t> m_generation{1};
  std::atomic<std::uint64_t> m_nextExternalId{1};
  std::int64_t m_windowStartNs = 0;
  std::uint64_t m_serial = 0;         ///< this session's number (thread buffers are keyed by it)
  std::vector<LiveBlock> m_baseline;  ///< the live blocks when the window started

  std::mutex m_threadsMutex;
  std::vector<std::shared_ptr<ThreadCapture>> m_threads;

  std::mutex m_phaseMutex;
  std::vector<Phase> m_phaseStack{Phase::None};  ///< bottom = the base phase
  std::vector<PhaseInterval> m_phases;           ///< intervals since the window started (plus the current one)
  std::uint32_t m_nextInstance = 1;
  std::atomic<std::uint64_t> m_phaseState{0};  ///< instance << 8 | phase
  std::vector<StorageClassification> m_classifications;
  std::unordered_map<std::uint64_t, std::uint64_t> m_issueThreads;
  std::atomic<std::uint8_t> m_memoryHint{AllocatorEvent::kNoHint};
  std::unique_ptr<LiveMemory> m_live;

  static std::atomic<CaptureSession*> s_active;
};

/// Whether a session collects right now.
inline bool collectingNow() {
  CaptureSession* s = CaptureSession::active();
  return s != nullptr && s->collecting();
}

}  // namespace fathom::profile::detail
