// SPDX-License-Identifier: Apache-2.0
#include "profile/gpu_capture.h"

#include "profile/capture_session.h"
#include "profile/gpu_correlation.h"
#include "profile/window_data.h"

#include <fathom/common/error.h>
#include <fathom/profile/cupti/cupti_tracer.h>
#include <fathom/profile/cupti/gpu_trace_builder.h>

#include <unordered_map>

namespace fathom::profile::detail {

namespace {

std::string versionText(std::uint32_t cuptiVersion) {
  return cuptiVersion == 0 ? std::string("CUPTI") : "CUPTI API " + std::to_string(cuptiVersion);
}

/// What the builder needs of the window's CPU side: every external id the operators and collectives pushed.
struct LaunchIndex {
  std::unordered_map<std::uint64_t, CpuLaunchContext> contexts;

  LaunchIndex(const WindowData& window, const std::unordered_map<std::uint64_t, std::uint64_t>& issueThreads) {
    InternedNames& names = InternedNames::instance();
    for (const auto& thread : window.capture.threads) {
      for (const CpuEvent& e : thread->events) {
        if (e.externalId == 0)
          continue;
        CpuLaunchContext context;
        context.pid = window.pid;
        context.tid = thread->osTid;
        context.opName = names.name(e.nameId);
        if (e.kind == CpuEventKind::Collective && e.extra > 0 && e.extra <= thread->collectives.size()) {
          const CollectiveRecord& c = thread->collectives[e.extra - 1];
          // The collective's span is on its lane; its launches were made on the thread that issued it.
          if (auto it = issueThreads.find(e.externalId); it != issueThreads.end())
            context.tid = it->second;
          context.collective =
              CollectiveInfo{c.requested, c.bytes, c.elements, c.dtype, c.groupSize, c.sequence, c.label};
        }
        contexts.emplace(e.externalId, context);
      }
    }
  }
};

}  // namespace

struct GpuCapture::Impl {
  CuptiAvailability availability;
  CuptiTracer tracer;
};

std::string GpuCapture::unavailableReason() {
  const CuptiAvailability availability = CuptiTracer::probe();
  return availability.available ? std::string() : availability.reason;
}

GpuCapture::GpuCapture(std::string& status) : m_impl(std::make_unique<Impl>()) {
  m_impl->availability = CuptiTracer::probe();
  FATHOM_CHECK(m_impl->availability.available, ProfilerError, "profiler: ", m_impl->availability.reason);
  status = versionText(m_impl->availability.cuptiVersion) + " (" + m_impl->availability.cuptiLibrary + ")";
  for (const trace::DeviceProperties& d : m_impl->availability.devices)
    status += ", GPU " + std::to_string(d.id) + ": " + d.name;
  setGpuCorrelationHooks(&CuptiTracer::pushExternalId, &CuptiTracer::popExternalId);
}

GpuCapture::~GpuCapture() {
  setGpuCorrelationHooks(nullptr, nullptr);
  try {
    if (m_impl->tracer.running())
      m_impl->tracer.stop();
  } catch (...) {  // NOLINT(bugprone-empty-catch): destruction; the profiler logged the error when it happened
  }
}

void GpuCapture::start() {
  if (!m_impl->tracer.running())
    m_impl->tracer.start();
}

void GpuCapture::stop() {
  if (m_impl->tracer.running())
    m_impl->tracer.stop();  // forced flush: every record of the window is in a completed buffer now
}

void GpuCapture::finishWindow(WindowData& window) {
  auto activities = std::make_shared<std::vector<GpuActivity>>(m_impl->tracer.drain());
  auto index = std::make_shared<LaunchIndex>(window, window.capture.issueThreads);
  auto builder = std::make_shared<GpuTraceBuilder>();
  builder->setDevices(m_impl->availability.devices);
  builder->setThreadMap(CuptiTracer::threadMap());
  builder->setLaunchLookup([index](ExternalId id) -> const CpuLaunchContext* {
    const auto it = index->contexts.find(id.value);
    return it == index->contexts.end() ? nullptr : &it->second;
  });
  builder->add(*activities);
  window.header.devices = m_impl->availability.devices;

  // One pass for the counts (the window's stats and status line), then the file's pass when it is written.
  const GpuTraceStats stats = builder->build([](const trace::TraceEvent&) {});
  const CuptiTracerStats tracerStats = m_impl->tracer.stats();
  window.stats.gpuActivities = static_cast<std::int64_t>(activities->size());
  window.stats.kernels = static_cast<std::int64_t>(stats.kernels);
  window.stats.kernelsLinkedToLaunch = static_cast<std::int64_t>(stats.kernelsLinkedToLaunch);
  window.stats.kernelsLinkedToCpuOp = static_cast<std::int64_t>(stats.kernelsLinkedToCpuOp);
  window.gpuStatus += fathom::detail::concat(
      "; window ", window.index, ": ", stats.kernels, " kernels (", stats.kernelsLinkedToLaunch,
      " linked to a launch, ", stats.kernelsLinkedToCpuOp, " to a CPU op), ", stats.ncclKernels, " NCCL kernels (",
      stats.ncclKernelsTagged, " tagged with a collective), CUPTI overhead ", stats.overheadNs / 1000, " us, ",
      tracerStats.recordsDropped, " records dropped, timestamps ",
      tracerStats.timestampCallback ? "from the profiler clock" : "calibrated to the profiler clock");
  window.emitGpu = [builder, activities, index](const std::function<void(const trace::TraceEvent&)>& emit) {
    builder->build(emit);
  };
}

}  // namespace fathom::profile::detail
