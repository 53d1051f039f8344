// SPDX-License-Identifier: Apache-2.0
// Accelerator::logMemory, logCollectives, logLine and recordDeviceMap: what every process sends to the workspace
// besides its metrics (memory samples, collective totals, log lines, device maps), through the always-on `sqlite`
// tracker. docs/trackers.md.
#include <fathom/train/accelerator.h>

#include <fathom/bigmodel/dispatch_record.h>
#include <fathom/common/clock.h>
#include <fathom/common/memory_metric_keys.h>
#include <fathom/plan/collective_metric_keys.h>
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

void Accelerator::logCollectives(std::int64_t step) {
  telemetry::SqliteTracker* workspace = workspaceTracker();
  const std::optional<parallel::StepTotals> totals = commStepTotals(step);
  if (workspace == nullptr || !totals)
    return;
  track::LogValues values;
  for (std::size_t i = 0; i < parallel::kCommKindCount; ++i) {
    const auto kind = static_cast<parallel::CommKind>(i);
    const parallel::KindTotals& t = totals->requested(kind);
    const std::optional<plan::CollectiveKind> planned = parallel::toPlanKind(kind);  // none for barriers
    if (t.count == 0 || !planned)
      continue;
    values[plan::collectiveMetricKey(*planned, plan::CollectiveMetric::Count)] = t.count;
    values[plan::collectiveMetricKey(*planned, plan::CollectiveMetric::Bytes)] = t.bytes;
  }
  if (!values.empty())
    workspace->log(values, step);
}

void Accelerator::logLine(std::string_view text, LogLevel level) {
  telemetry::SqliteTracker* workspace = workspaceTracker();
  if (workspace == nullptr)
    return;
  workspace->logLine(level, text, unixNowSeconds());
}

void Accelerator::recordDeviceMap(const bigmodel::DispatchRecord& record) {
  telemetry::SqliteTracker* workspace = workspaceTracker();
  if (workspace == nullptr)
    return;
  workspace->deviceMap(bigmodel::toJson(record).dump(), unixNowSeconds());
}

}  // namespace fathom::train
