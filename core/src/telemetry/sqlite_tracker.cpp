// SPDX-License-Identifier: Apache-2.0
#include <fathom/telemetry/sqlite_tracker.h>

#include <fathom/common/clock.h>
#include <fathom/common/error.h>
#include <fathom/store/process_identity.h>
#include <fathom/store/workspace.h>
#include <fathom/telemetry/telemetry_sender.h>
#include <fathom/track/tracker_registry.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <vector>

namespace fathom::telemetry {
namespace {

int rankFromEnvironment() {
  const char* rank = std::getenv("RANK");
  if (rank == nullptr || *rank == '\0') {
    return 0;
  }
  char* end = nullptr;
  const long value = std::strtol(rank, &end, 10);
  FATHOM_CHECK(*end == '\0' && value >= 0 && value < (1L << 30), ConfigError, "RANK='", rank,
               "' is not a rank (a non-negative integer)");
  return static_cast<int>(value);
}

}  // namespace

SqliteTracker::SqliteTracker(const track::TrackerOptions& options) : m_options(options) {
  if (auto endpoint = TelemetryEndpoint::fromEnvironment()) {
    m_rank = endpoint->rank;
    m_sender = std::make_unique<TelemetrySender>(*endpoint);
    m_run = store::RunId{m_sender->runId()};
    return;
  }
  m_rank = rankFromEnvironment();
  FATHOM_CHECK(!m_options.workspace.empty(), ConfigError, "the sqlite tracker needs a workspace path");
  m_workspace = std::make_unique<store::Workspace>(m_options.workspace);
}

SqliteTracker::~SqliteTracker() = default;

void SqliteTracker::ensureRun(const std::string& configText) {
  if (m_sender || m_run.value != 0) {
    return;
  }
  store::NewRun run;
  run.name = m_options.runName.empty() ? m_options.projectName : m_options.runName;
  run.commandLine = store::shellCommandLine(store::currentArguments());
  run.layout = m_layout;
  if (!configText.empty()) {
    run.configFormat = "json";
    run.configText = configText;
  }
  m_run = m_workspace->createRun(run);
  m_workspace->upsertRank(m_run, {m_rank, store::currentHostName(), store::ProcessIdentity::current().pid, "", {}});
}

void SqliteTracker::watchCollectives(std::shared_ptr<const parallel::CollectiveWavefront> wavefront) {
  if (m_sender) {
    m_sender->watchCollectives(std::move(wavefront));
  }
}

void SqliteTracker::doStoreInitConfiguration(const nlohmann::json& config) {
  if (m_sender) {
    if (m_rank == 0) {
      m_sender->sendLog(LogLevel::Info, "hparams " + config.dump(), unixNowSeconds());
    }
    return;
  }
  ensureRun(config.dump(2));
}

void SqliteTracker::doLog(const track::LogValues& values, std::int64_t step, double wallTime) {
  ensureRun({});
  std::vector<store::MetricPoint> points;
  std::vector<store::EventRecord> events;
  for (const auto& [key, value] : values) {
    if (const auto* text = std::get_if<std::string>(&value)) {
      events.push_back({m_rank, wallTime, LogLevel::Info, key + " = " + *text});
      continue;
    }
    const double number = std::holds_alternative<double>(value) ? std::get<double>(value)
                                                                : static_cast<double>(std::get<std::int64_t>(value));
    points.push_back({m_rank, step, wallTime, key, number});
  }
  if (m_sender) {
    m_sender->setStep(step);
    for (const auto& p : points) {
      m_sender->addMetric(p.step, p.wallTime, p.key, p.value);
    }
    for (const auto& e : events) {
      m_sender->sendLog(e.level, e.text, e.time);
    }
    return;
  }
  store::IngestBatch batch;
  batch.metrics = std::move(points);
  batch.events = std::move(events);
  m_workspace->append(m_run, batch);
}

void SqliteTracker::logLine(LogLevel level, std::string_view text, double time) {
  FATHOM_CHECK(!finished(), ConfigError, "SqliteTracker::logLine() after finish()");
  if (m_sender) {
    m_sender->sendLog(level, text, time);
    return;
  }
  ensureRun({});
  const store::EventRecord event{m_rank, time, level, std::string(text)};
  m_workspace->appendEvents(m_run, {&event, 1});
}

void SqliteTracker::traceChunk(std::string_view name, std::string_view bytes, double time) {
  FATHOM_CHECK(!finished(), ConfigError, "SqliteTracker::traceChunk() after finish()");
  if (m_sender) {
    m_sender->sendTrace(name, bytes, time);
    return;
  }
  ensureRun({});
  store::IngestBatch batch;
  batch.traces.push_back({m_rank, std::string(name), time, std::string(bytes)});
  m_workspace->append(m_run, batch);
}

void SqliteTracker::artifact(const store::Artifact& artifact, double time) {
  FATHOM_CHECK(!finished(), ConfigError, "SqliteTracker::artifact() after finish()");
  if (m_sender) {
    m_sender->sendArtifact(artifact, time);
    return;
  }
  ensureRun({});
  m_workspace->addArtifact(m_run, artifact);
}

void SqliteTracker::deviceMap(std::string_view recordJson, double time) {
  FATHOM_CHECK(!finished(), ConfigError, "SqliteTracker::deviceMap() after finish()");
  if (m_sender) {
    m_sender->sendDeviceMap(recordJson, time);
    return;
  }
  ensureRun({});
  m_workspace->addDeviceMap(m_run, {m_rank, time, std::string(recordJson)});
}

void SqliteTracker::recordSetup(const store::RunSetup& setup, int worldSize) {
  FATHOM_CHECK(!finished(), ConfigError, "SqliteTracker::recordSetup() after finish()");
  if (m_sender) {
    if (m_rank == 0) {
      m_sender->sendSetup(setup);
    }
    return;
  }
  m_layout.worldSize = worldSize;
  m_layout.strategy = setup.strategy;
  m_layout.mixedPrecision = setup.mixedPrecision;
  if (worldSize == 1) {
    m_layout.numMachines = 1;  // a process of its own: this machine is the run's only one
    m_layout.hosts = {store::currentHostName()};
  }
  if (m_run.value != 0) {
    store::IngestBatch batch;
    batch.setup = setup;
    m_workspace->append(m_run, batch);
  }
}

void SqliteTracker::doFinish() {
  if (m_sender) {
    m_sender->close();  // waits until the collector has committed every point
    return;
  }
  if (m_run.value != 0) {
    m_workspace->finishRun(m_run, store::RunStatus::Succeeded, 0);
  }
}

std::string registerSqliteTracker() {
  static std::once_flag once;
  std::call_once(once, [] {
    track::registerBuiltinTracker("sqlite",
                                  [](const track::TrackerOptions& o) { return std::make_unique<SqliteTracker>(o); });
  });
  return "sqlite";
}

}  // namespace fathom::telemetry
