// SPDX-License-Identifier: Apache-2.0
// Accelerator::logMemory and logLine: what every process sends to the workspace besides its metrics (memory samples
// and log lines), through the always-on `sqlite` tracker. docs/trackers.md.
#include <fathom/train/accelerator.h>

#include <fathom/common/clock.h>
#include <fathom/telemetry/process_memory.h>
#include <fathom/telemetry/sqlite_tracker.h>

namespace fathom::train {
namespace {

void addCategories(track::LogValues& values, const std::string& prefix, const parallel::StateCategoryBytes& bytes) {
  values[prefix + "parameters_bytes"] = bytes.parameters;
  values[prefix + "gradients_bytes"] = bytes.gradients;
  values[prefix + "optimizer_states_bytes"] = bytes.optimizerStates;
  values[prefix + "master_weights_bytes"] = bytes.masterWeights;
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
  track::LogValues values{{"memory/rss_bytes", rss.residentBytes},
                          {"memory/peak_rss_bytes", rss.peakResidentBytes},
                          {"memory/peak_gathered_parameters_bytes", state.peakGatheredParameters}};
  addCategories(values, "memory/device/", state.device);
  addCategories(values, "memory/host/", state.host);
  workspace->log(values, step);
}

void Accelerator::logLine(std::string_view text, LogLevel level) {
  telemetry::SqliteTracker* workspace = workspaceTracker();
  if (workspace == nullptr)
    return;
  workspace->logLine(level, text, unixNowSeconds());
}

}  // namespace fathom::train
