// SPDX-License-Identifier: Apache-2.0
#include "run_monitor_migration.h"

#include "sqlite_db.h"

#include <string>

namespace fathom::store {
namespace {

/// ", <prefix>_sequence INTEGER, <prefix>_kind TEXT, ...": a collective position as typed columns (alert_rows.h).
std::string positionColumnDefinitions(const std::string& prefix) {
  return ", " + prefix + "_sequence INTEGER, " + prefix + "_kind TEXT, " + prefix + "_group TEXT, " + prefix +
         "_group_size INTEGER, " + prefix + "_bytes INTEGER";
}

}  // namespace

void addRunMonitorTables(sql::Db& db) {
  std::string script;
  for (const char* prefix : {"entered", "finished"}) {
    for (const char* column :
         {"_sequence INTEGER", "_kind TEXT", "_group TEXT", "_group_size INTEGER", "_bytes INTEGER"}) {
      script += std::string("ALTER TABLE heartbeats ADD COLUMN ") + prefix + column + ";\n";
    }
  }
  // One row per alert; `kind` is store::toString(AlertKind); time and resolved_at are seconds since the Unix epoch
  // (the launcher's clock); waiting_* is the collective the ranks ahead wait in (hang only).
  script += "CREATE TABLE alerts (\n"
            "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
            "  run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,\n"
            "  kind TEXT NOT NULL CHECK (kind IN ('hang', 'straggler')),\n"
            "  time REAL NOT NULL,\n"
            "  stalled_seconds REAL NOT NULL DEFAULT 0,\n"
            "  median_step_seconds REAL,\n"
            "  resolved_at REAL" +
            positionColumnDefinitions("waiting") +
            "\n);\n"
            "CREATE INDEX alerts_by_run ON alerts (run_id, id);\n";
  // Every rank the alert compared: behind (1 = the rank behind, or the straggler), its step, its wavefront and its
  // own seconds per step.
  script += "CREATE TABLE alert_ranks (\n"
            "  alert_id INTEGER NOT NULL REFERENCES alerts (id) ON DELETE CASCADE,\n"
            "  rank INTEGER NOT NULL,\n"
            "  behind INTEGER NOT NULL CHECK (behind IN (0, 1)),\n"
            "  step INTEGER NOT NULL,\n"
            "  step_seconds REAL" +
            positionColumnDefinitions("entered") + positionColumnDefinitions("finished") +
            ",\n  PRIMARY KEY (alert_id, rank)\n) WITHOUT ROWID;\n";
  db.exec(script, "adding the run monitor's tables");
}

}  // namespace fathom::store
