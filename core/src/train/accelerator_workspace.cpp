// SPDX-License-Identifier: Apache-2.0
// Accelerator::logMemory and logLine: what every process sends to the workspace besides its metrics (memory samples
// and log lines), through the always-on `sqlite` tracker. docs/trackers.md.
#include <fathom/train/accelerator.h>

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

void Accelerator::logMemory(std::int64_t step) {
  track::Tracker* workspace = getTracker("sqlite");
  if (workspace == nullptr || workspace->finished())
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
  auto* workspace = dynamic_cast<telemetry::SqliteTracker*>(getTracker("sqlite"));
  if (workspace == nullptr || workspace->finished())
    return;
  workspace->logLine(level, text, track::unixTimeSeconds());
}

}  // namespace fathom::train
