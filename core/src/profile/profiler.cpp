// SPDX-License-Identifier: Apache-2.0
#include <fathom/profile/profiler.h>

#include "profile/aten_observer.h"
#include "profile/capture_session.h"
#include "profile/gpu_capture.h"
#include "profile/memory_reporter.h"
#include "profile/window_data.h"
#include "profile/window_file.h"

#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/common/log.h>
#include <fathom/profile/clock.h>
#include <fathom/trace/trace_file_names.h>

#include <nlohmann/json.hpp>

#include <sys/syscall.h>
#include <unistd.h>

#include <fstream>

namespace fathom::profile {

// ---- TraceWindow ---------------------------------------------------------------------------------------------------

int TraceWindow::index() const {
  return m_data->index;
}
std::int64_t TraceWindow::firstStep() const {
  return m_data->firstStep;
}
std::int64_t TraceWindow::lastStep() const {
  return m_data->lastStep;
}
const std::filesystem::path& TraceWindow::traceFile() const {
  return m_data->traceFile;
}
const WindowStats& TraceWindow::stats() const {
  return m_data->stats;
}
const MemoryTimeline* TraceWindow::memory() const {
  return m_data->memory ? &*m_data->memory : nullptr;
}
const std::string& TraceWindow::gpuStatus() const {
  return m_data->gpuStatus;
}
void TraceWindow::exportChromeTrace(const std::filesystem::path& path) const {
  detail::writeWindowFile(*m_data, path, {});
}

// ---- Profiler ------------------------------------------------------------------------------------------------------

namespace {

std::string processName(int rank) {
  std::string name;
  std::ifstream comm("/proc/self/comm");
  std::getline(comm, name);
  if (name.empty())
    name = "process";
  return name + " (rank " + std::to_string(rank) + ")";
}

std::vector<StorageClassification> toClassifications(const std::vector<StorageRef>& refs, std::int64_t ns) {
  std::vector<StorageClassification> out;
  out.reserve(refs.size());
  for (const StorageRef& r : refs) {
    if (r.ptr != nullptr && r.bytes > 0)
      out.push_back({ns, reinterpret_cast<std::uintptr_t>(r.ptr), r.bytes, r.category, r.device});
  }
  return out;
}

}  // namespace

struct Profiler::Impl {
  enum class State { Idle, Warming, Recording };

  ProfilerOptions options;
  ProfilerContext context;
  std::unique_ptr<detail::CaptureSession> session;
  std::unique_ptr<detail::MemoryReporter> memoryReporter;
  std::unique_ptr<detail::AtenObserver> observer;
  std::unique_ptr<detail::GpuCapture> gpu;
  std::string gpuStatus;
  std::uint64_t mainTid = 0;

  State state = State::Idle;
  ProfilerAction action = ProfilerAction::None;
  std::int64_t stepNum = 0;
  std::int64_t stepStartNs = 0;
  std::int64_t windowFirstStep = 0;
  int windowIndex = 0;
  bool stopped = false;
  std::vector<std::filesystem::path> traceFiles;
  std::vector<std::filesystem::path> mergedFiles;
  std::vector<int> windowsWritten;

  ProfilerAction actionFor(std::int64_t step) const {
    return options.schedule ? options.schedule->action(step) : ProfilerAction::Record;
  }
  bool oneWindow() const { return !options.schedule || options.schedule->repeat == 1; }

  void classifyModelStates() {
    if (!options.profileMemory || !context.modelStates)
      return;
    session->classify(toClassifications(context.modelStates(), nowNs()));
  }

  void startCollectors() {
    session->startCollecting(nowNs());
    if (options.cpu)
      observer = std::make_unique<detail::AtenObserver>(session->settings());
    if (gpu)
      gpu->start();
  }

  void stopCollectors() {
    observer.reset();
    if (gpu)
      gpu->stop();
  }

  /// Records the ProfilerStep#N span of the step that ends now (when recording).
  void endStepSpan(std::int64_t now) {
    if (state != State::Recording)
      return;
    detail::ThreadCapture& thread = session->thread();
    const std::uint32_t name = detail::InternedNames::instance().id("ProfilerStep#" + std::to_string(stepNum));
    // The next step's span starts at `now`: end this one 2 ns earlier, so a reader that truncates µs to ns
    // (Perfetto) never sees the two overlap.
    const std::int64_t end = std::max(stepStartNs, now - 2);
    std::lock_guard lock(thread.mutex);
    thread.events.push_back({stepStartNs, end, 0, -1, name, 0, detail::CpuEventKind::Step});
  }

  void transit(ProfilerAction previous, ProfilerAction current) {
    const bool continues = previous == ProfilerAction::Record &&
                           (current == ProfilerAction::Record || current == ProfilerAction::RecordAndSave);
    if (state == State::Recording && !continues) {
      finishWindow(stepNum - 1);  // called after the step number advanced: the window ended with the previous step
    }
    switch (current) {
    case ProfilerAction::None:
      if (state == State::Warming) {
        stopCollectors();
        session->collect(nowNs());  // discard the warm-up
        state = State::Idle;
      }
      break;
    case ProfilerAction::Warmup:
      if (state == State::Idle) {
        startCollectors();
        state = State::Warming;
      }
      break;
    case ProfilerAction::Record:
    case ProfilerAction::RecordAndSave:
      if (state == State::Idle)
        startCollectors();
      if (state != State::Recording) {
        session->discard(nowNs());  // the window starts now; warm-up events are dropped
        windowFirstStep = stepNum;
        state = State::Recording;
      }
      break;
    }
  }

  /// Where this run's traces go: outputTraceDir/run_<id> with a workspace run, else outputTraceDir.
  std::filesystem::path runDirectory() const {
    return context.runId ? options.outputTraceDir / trace::runTraceDirectoryName(*context.runId)
                         : options.outputTraceDir;
  }
  std::filesystem::path windowDirectory(int window) const {
    return oneWindow() ? runDirectory() : runDirectory() / ("window_" + std::to_string(window));
  }
  /// Traces never replace one another: a run that would write over a trace that exists (another run's, without a
  /// workspace to tell them apart) is refused before it records anything.
  void refuseExistingTraces() const {
    if (options.outputTraceDir.empty()) {
      return;
    }
    const std::filesystem::path first = windowDirectory(0) / trace::rankTraceFileName(context.rank, options.gzip);
    std::error_code error;
    FATHOM_CHECK(!std::filesystem::exists(first, error), ConfigError, "profiler: ", first.string(),
                 " exists (a trace of an earlier run); traces are never overwritten: choose another profile "
                 "directory, remove it, or record the run in a workspace (its traces then go to run_<id>/)");
  }
  /// The workspace's name of a file of `window`: its path relative to runDirectory().
  std::string storedName(int window, const std::string& fileName) const {
    return (oneWindow() ? std::string() : "window_" + std::to_string(window) + "/") + fileName;
  }
  /// Streams a file's bytes to the workspace as they are written (nothing without a workspace).
  std::function<void(std::string_view)> streamTo(const std::string& storedName) const {
    if (!context.traceChunk)
      return {};
    return [this, storedName](std::string_view bytes) { context.traceChunk(storedName, bytes); };
  }

  void finishWindow(std::int64_t lastStep) {
    stopCollectors();
    const std::int64_t end = nowNs();
    auto data = std::make_shared<WindowData>();
    data->capture = session->collect(end);
    state = State::Idle;
    data->index = windowIndex++;
    data->firstStep = windowFirstStep;
    data->lastStep = lastStep;
    data->pid = static_cast<std::uint32_t>(::getpid());
    data->mainTid = mainTid;
    data->processName = processName(context.rank);
    data->header.baseTimeNs = data->capture.startNs;
    data->header.baseTimeUnixNs = data->capture.startNs + (unixNowNs() - nowNs());
    data->header.distributed = {context.backend, context.rank, context.worldSize};
    data->header.metadataJson = metadataJson(*data);
    data->gpuStatus = gpuStatus;
    countEvents(*data);
    if (options.profileMemory)
      detail::buildWindowMemory(*data);
    if (gpu)
      gpu->finishWindow(*data);
    if (!options.outputTraceDir.empty()) {
      const std::filesystem::path dir = windowDirectory(data->index);
      const std::string name = trace::rankTraceFileName(context.rank, options.gzip);
      data->traceFile = dir / name;
      const std::int64_t bytes =
          detail::writeWindowFile(*data, data->traceFile, streamTo(storedName(data->index, name)), false);
      traceFiles.push_back(data->traceFile);
      windowsWritten.push_back(data->index);
      if (context.traceWritten)
        context.traceWritten(data->traceFile, bytes);
      log(LogLevel::Info,
          fathom::detail::concat("profiler: window ", data->index, " (steps ", data->firstStep, "-", data->lastStep,
                                 ") written to ", data->traceFile.string(), " (", data->stats.cpuOps, " ops, ",
                                 data->stats.collectives, " collectives, ", data->stats.memoryEvents,
                                 " memory events, ", bytes, " bytes)"));
    }
    if (options.onTraceReady)
      options.onTraceReady(TraceWindow(data));
  }

  std::string metadataJson(const WindowData& data) const {
    nlohmann::json meta = nlohmann::json::object();
    if (!context.metadataJson.empty())
      meta = nlohmann::json::parse(context.metadataJson);
    meta["fathom_profile"] = {{"window", data.index},
                              {"first_step", data.firstStep},
                              {"last_step", data.lastStep},
                              {"record_shapes", options.recordShapes},
                              {"profile_memory", options.profileMemory},
                              {"gpu", gpuStatus}};
    return meta.dump();
  }

  static void countEvents(WindowData& data) {
    WindowStats& s = data.stats;
    s.threads = static_cast<std::int64_t>(data.capture.threads.size());
    for (const auto& thread : data.capture.threads) {
      for (const detail::CpuEvent& e : thread->events) {
        switch (e.kind) {
        case detail::CpuEventKind::Op: ++s.cpuOps; break;
        case detail::CpuEventKind::Step:
          ++s.steps;
          ++s.annotations;
          break;
        case detail::CpuEventKind::Annotation: ++s.annotations; break;
        case detail::CpuEventKind::Collective: ++s.collectives; break;
        }
      }
    }
  }

  void mergeRanks() {
    if (!options.mergeRanks || options.outputTraceDir.empty() || context.worldSize <= 1 || windowsWritten.empty())
      return;
    if (context.barrier)
      context.barrier();  // every rank's file of every window is complete
    if (context.rank != 0)
      return;
    for (int window : windowsWritten) {
      const std::filesystem::path dir = windowDirectory(window);
      std::vector<std::filesystem::path> inputs;
      for (int r = 0; r < context.worldSize; ++r)
        inputs.push_back(dir / trace::rankTraceFileName(r, options.gzip));
      // Stored in the workspace too, so `fathom trace export --run` finds every rank in one file.
      const std::string name = trace::mergedTraceFileName(options.gzip);
      const std::filesystem::path out = dir / name;
      detail::mergeWindowFiles(inputs, out, streamTo(storedName(window, name)));
      mergedFiles.push_back(out);
      log(LogLevel::Info, fathom::detail::concat("profiler: merged ", inputs.size(), " ranks into ", out.string()));
    }
  }
};

Profiler::Profiler(ProfilerOptions options, ProfilerContext context) : m_impl(std::make_unique<Impl>()) {
  options.validate();
  FATHOM_CHECK(context.worldSize >= 1 && context.rank >= 0 && context.rank < context.worldSize, ConfigError,
               "profiler: rank ", context.rank, " is not in a world of ", context.worldSize);
  Impl& d = *m_impl;
  d.options = std::move(options);
  d.context = std::move(context);
  d.mainTid = static_cast<std::uint64_t>(::syscall(SYS_gettid));
  d.refuseExistingTraces();  // before anything is recorded

  // GPU tracing: on where asked for or (by default) where the device is CUDA and CUPTI can trace. Probing loads
  // libcupti and initializes the driver, so it happens only when GPU tracing is in question.
  const bool considerCuda = d.options.cuda.value_or(d.context.cudaDevice);
  const std::string unavailable = considerCuda ? detail::GpuCapture::unavailableReason() : std::string();
  const bool wantCuda = considerCuda && d.options.cuda.value_or(unavailable.empty());
  FATHOM_CHECK(!wantCuda || unavailable.empty(), ProfilerError, "profiler: CUDA activity was requested but ",
               unavailable);
  if (wantCuda) {
    d.gpuStatus = "CUPTI";
  } else if (!considerCuda) {
    d.gpuStatus = d.options.cuda.has_value() ? "not requested" : "not requested (the device is not CUDA)";
  } else {
    d.gpuStatus = unavailable;
  }

  detail::CaptureSettings settings;
  settings.cpu = d.options.cpu;
  settings.recordShapes = d.options.recordShapes;
  settings.profileMemory = d.options.profileMemory;
  settings.withStack = d.options.withStack;
  settings.withFlops = d.options.withFlops;
  settings.withModules = d.options.withModules;
  settings.cuda = wantCuda;
  d.session = std::make_unique<detail::CaptureSession>(settings);
  if (wantCuda)
    d.gpu = std::make_unique<detail::GpuCapture>(d.gpuStatus);
  if (d.options.profileMemory) {
    d.memoryReporter = std::make_unique<detail::MemoryReporter>(*d.session);
    d.classifyModelStates();
  }
  d.action = d.actionFor(0);
  d.stepStartNs = nowNs();
  d.transit(ProfilerAction::None, d.action);
}

Profiler::~Profiler() {
  if (!m_impl)
    return;
  try {
    stop();
  } catch (const std::exception& e) {
    log(LogLevel::Error, std::string("profiler: stopping failed: ") + e.what());
  }
}

Profiler::Profiler(Profiler&&) noexcept = default;
Profiler& Profiler::operator=(Profiler&&) noexcept = default;

void Profiler::step() {
  Impl& d = *m_impl;
  FATHOM_CHECK(!d.stopped, ConfigError, "profiler: step() after stop()");
  const std::int64_t now = nowNs();
  d.endStepSpan(now);
  d.classifyModelStates();
  const ProfilerAction previous = d.action;
  ++d.stepNum;
  d.action = d.actionFor(d.stepNum);
  d.transit(previous, d.action);
  d.stepStartNs = nowNs();
}

void Profiler::stop() {
  Impl& d = *m_impl;
  if (d.stopped)
    return;
  d.stopped = true;
  if (d.state == Impl::State::Recording) {
    d.endStepSpan(nowNs());
    d.finishWindow(d.stepNum);
  } else if (d.state == Impl::State::Warming) {
    d.stopCollectors();
    d.session->collect(nowNs());
    d.state = Impl::State::Idle;
  }
  d.memoryReporter.reset();
  d.gpu.reset();
  d.session.reset();
  d.mergeRanks();
}

std::int64_t Profiler::stepNum() const {
  return m_impl->stepNum;
}
ProfilerAction Profiler::currentAction() const {
  return m_impl->action;
}
const std::vector<std::filesystem::path>& Profiler::traceFiles() const {
  return m_impl->traceFiles;
}
const std::vector<std::filesystem::path>& Profiler::mergedTraceFiles() const {
  return m_impl->mergedFiles;
}
const std::string& Profiler::gpuStatus() const {
  return m_impl->gpuStatus;
}

}  // namespace fathom::profile
