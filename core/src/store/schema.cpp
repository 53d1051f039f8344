// SPDX-License-Identifier: Apache-2.0
#include "schema.h"

#include "metric_key_migration.h"
#include "run_layout_migration.h"
#include "run_monitor_migration.h"
#include "sqlite_db.h"

#include <array>

namespace fathom::store::schema {
namespace {

// Version 1: runs and everything a run owns. Ids are AUTOINCREMENT so they are never reused after a delete: the
// Studio reads "everything with id > N" and must not miss a row that took a deleted id.
constexpr std::string_view kVersion1 = R"sql(
CREATE TABLE runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('running', 'succeeded', 'failed', 'lost')),
  created_at REAL NOT NULL,
  started_at REAL,
  ended_at REAL,
  exit_code INTEGER,
  command_line TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  launcher_pid INTEGER NOT NULL DEFAULT 0,
  launcher_start_time INTEGER NOT NULL DEFAULT 0,
  config_format TEXT NOT NULL DEFAULT '',
  config_text TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_by_status ON runs (status);
CREATE INDEX runs_by_name ON runs (name);

CREATE TABLE ranks (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  host TEXT NOT NULL DEFAULT '',
  pid INTEGER NOT NULL DEFAULT 0,
  device TEXT NOT NULL DEFAULT '',
  exit_code INTEGER,
  PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;

CREATE TABLE metric_keys (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  UNIQUE (run_id, key)
);

CREATE TABLE metrics (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  step INTEGER NOT NULL,
  wall_time REAL NOT NULL,
  key_id INTEGER NOT NULL,
  value REAL
);

CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  time REAL NOT NULL,
  level TEXT NOT NULL CHECK (level IN ('debug', 'info', 'warning', 'error')),
  text TEXT NOT NULL
);
CREATE INDEX events_by_run ON events (run_id, id);

CREATE TABLE artifacts (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  kind TEXT NOT NULL CHECK (kind IN ('checkpoint', 'trace', 'export')),
  path TEXT NOT NULL,
  bytes INTEGER NOT NULL DEFAULT 0,
  created_at REAL NOT NULL
);
CREATE INDEX artifacts_by_run ON artifacts (run_id);
)sql";

// Version 2: the metric-series index (a run's series by key, rank and step; it also serves the cascade from runs)
// and the planner's saved plans.
constexpr std::string_view kVersion2 = R"sql(
CREATE INDEX metrics_by_run_key ON metrics (run_id, key_id, rank, step);

CREATE TABLE plans (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  created_at REAL NOT NULL,
  input_json TEXT NOT NULL,
  prediction_json TEXT NOT NULL
);
)sql";

// Version 3: what live telemetry adds (docs/workspace.md, "Telemetry"): each rank's latest heartbeat, and trace
// chunks (opaque bytes under a name, appended in arrival order; a trace is the concatenation of its chunks by id).
constexpr std::string_view kVersion3 = R"sql(
CREATE TABLE heartbeats (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  time REAL NOT NULL,
  step INTEGER NOT NULL,
  PRIMARY KEY (run_id, rank)
) WITHOUT ROWID;

CREATE TABLE trace_chunks (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  name TEXT NOT NULL,
  time REAL NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX trace_chunks_by_run ON trace_chunks (run_id, name, rank, id);
)sql";

// Version 4: a run's shape as typed columns (docs/workspace.md, "Run layout"), recorded when the run is created, so
// no reader parses configuration text or a command line to learn it. Strategy and sharding are the planner's names
// (plan::toString); '' and 0 mean unknown. Rows of older versions get them derived once, by upgrade().
constexpr std::string_view kVersion4 = R"sql(
ALTER TABLE runs ADD COLUMN world_size INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN num_machines INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN strategy TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN fsdp_sharding TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN mixed_precision TEXT NOT NULL DEFAULT '';

CREATE TABLE run_hosts (
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  machine_rank INTEGER NOT NULL,
  host TEXT NOT NULL,
  PRIMARY KEY (run_id, machine_rank)
) WITHOUT ROWID;
)sql";
// Version 5: memory metric keys as the one memory-category vocabulary spells them (docs/workspace.md, "Memory metric
// keys"). No table changes; renameLegacyMemoryMetricKeys() renames the keys older versions stored.
constexpr std::string_view kVersion5 = "";

// Version 6: the run specification a launch was made from (config::RunSpec as Accelerate YAML), written by
// `fathom launch` when it creates the run; older runs have ''.
constexpr std::string_view kVersion6 = R"sql(
ALTER TABLE runs ADD COLUMN run_spec TEXT NOT NULL DEFAULT '';
)sql";

// Version 7: the run monitor (docs/launch.md, "Hang and straggler detection"): each heartbeat's collective wavefront
// and the typed alerts, all added by addRunMonitorTables().

// Version 8: the plan a run was launched with (docs/workspace.md, "Run plans"), in one self-contained step so that it
// can be renumbered: a table of its own, one row per run, holding the `fathom plan --json` object
// (plan::PredictionReport, prediction_json.h) and where it came from ("launch": `fathom launch` computed it when it
// created the run; "computed": `fathom runs plan-vs-actual --compute` or the Studio did later). Older runs have none.
void createRunPlans(sql::Db& db) {
  db.exec(R"sql(
CREATE TABLE run_plans (
  run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  created_at REAL NOT NULL,
  source TEXT NOT NULL,
  prediction_json TEXT NOT NULL
);
)sql",
          "creating run_plans");
}

// Version 9: how an alert ended (store::AlertEnd): 'resolved' (the condition cleared while the run went on) or
// 'run_ended' (still open when the run ended; the collector closes such alerts as it stops). NULL while open; alerts
// of older versions that ended get 'resolved', the only way they could end.
constexpr std::string_view kVersion9 = R"sql(
ALTER TABLE alerts ADD COLUMN ended TEXT;
UPDATE alerts SET ended = 'resolved' WHERE resolved_at IS NOT NULL;
)sql";

// Version 10: the SLURM job a run ran in (SLURM_JOB_ID of `fathom launch --slurm`, docs/launch.md), so the Studio
// and `fathom runs` can name it and ask squeue for its state; '' for a run outside SLURM and for older runs.
constexpr std::string_view kVersion10 = R"sql(
ALTER TABLE runs ADD COLUMN slurm_job_id TEXT NOT NULL DEFAULT '';
)sql";

// Version 11: the device maps the run's processes dispatched models with (docs/bigmodel.md, "In the workspace"): one
// row per recording, the rank that made it and bigmodel::DispatchRecord's JSON, kept whole. Older runs have none.
constexpr std::string_view kVersion11 = R"sql(
CREATE TABLE run_device_maps (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  rank INTEGER NOT NULL,
  created_at REAL NOT NULL,
  record_json TEXT NOT NULL
);
CREATE INDEX run_device_maps_by_run ON run_device_maps (run_id, id);
)sql";

// Version 12: hardware profiles fitted to profiled runs (docs/workspace.md, "Hardware fits"): `fathom plan
// --calibrate_from RUN` stores the calibrated profile with its run_fit section whole; plans of the same host and
// calibration use the newest.
constexpr std::string_view kVersion12 = R"sql(
CREATE TABLE hardware_fits (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  created_at REAL NOT NULL,
  host TEXT NOT NULL,
  device TEXT NOT NULL,
  base_measured_at TEXT NOT NULL,
  profile_yaml TEXT NOT NULL
);
CREATE INDEX hardware_fits_by_host ON hardware_fits (host, device, base_measured_at, id);
CREATE INDEX hardware_fits_by_run ON hardware_fits (run_id, id);
)sql";

constexpr std::array<Migration, 12> kMigrations{{
    {1, "runs, ranks, metrics, events, artifacts", kVersion1},
    {2, "metric-series index, plans", kVersion2},
    {3, "heartbeats, trace chunks", kVersion3},
    {4, "typed run layout: world size, machines, strategy, precision, hosts", kVersion4, &deriveRunLayouts},
    {5, "memory metric keys named by the memory-category table", kVersion5, &renameLegacyMemoryMetricKeys},
    {6, "the run specification of a launch", kVersion6},
    {7, "run monitor: heartbeat wavefronts, alerts", "", &addRunMonitorTables},
    {8, "the plan of a run", "", &createRunPlans},
    {9, "how an alert ended", kVersion9},
    {10, "the SLURM job of a run", kVersion10},
    {11, "the device maps of a run", kVersion11},
    {12, "hardware profiles fitted to runs", kVersion12},
}};

}  // namespace

std::span<const Migration> migrations() {
  return kMigrations;
}

}  // namespace fathom::store::schema
