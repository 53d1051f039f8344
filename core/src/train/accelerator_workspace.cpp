// SPDX-License-Identifier: Apache-2.0
// Accelerator::logMemory and logLine: what every process sends to the workspace besides its metrics (memory samples
// and log lines), through the always-on `sqlite` tracker. docs/trackers.md.
#include <fathom/train/accelerator.h>

#include <fathom/common/clock.h>
#include <fathom/common/memory_metric_keys.h>
#include <fathom/telemetry/process_memory.h>
#include <fathom/telemetry/sqlite_tracker.h>

namespace fathom::train {
namespace {

void addCategories(track::LogValues& values, MemoryPlace place, const parallel::StateCategoryBytes& bytes) {
  for (const auto& field : parallel::kStateCategoryFields)
    values[memoryMetricKey(place, field.category)] = bytes.*field.member;
}

}  // namespace

telemetry::SqliteTracker* Accelerator::workspaceTracker() const {
  return m_workspace != nullptr && !m_workspace->finished() ? m_workspace : nullptr;
}

void Accelerator::logMemory(std::int64_t step) {
  telemetry::SqliteTracker* workspace = workspaceTracker();
  if (workspace == nullptr)
    return;
  const telemetry::ProcessMemory rss = telemetry::readProcessMemory();
  const parallel::ModelStateBytes state = modelStateBytes();
  track::LogValues values{
      {std::string(kRssBytesKey), rss.residentBytes},
      {std::string(kPeakRssBytesKey), rss.peakResidentBytes},
      {peakMemoryMetricKey(MemoryPlace::Device, MemoryCategory::GatheredParameters), state.peakGatheredParameters}};
  addCategories(values, MemoryPlace::Device, state.device);
  addCategories(values, MemoryPlace::Host, state.host);
  workspace->log(values, step);
}

void Accelerator::logLine(std::string_view text, LogLevel level) {
  telemetry::SqliteTracker* workspace = workspaceTracker();
  if (workspace == nullptr)
    return;
  workspace->logLine(level, text, unixNowSeconds());
}

}  // namespace fathom::train
