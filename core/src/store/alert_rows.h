// SPDX-License-Identifier: Apache-2.0
// The run monitor's rows in the workspace (schema 7): the collective wavefront columns of `heartbeats`, and the
// tables `alerts` and `alert_ranks`. A collective position is five typed columns <prefix>_sequence, _kind, _group,
// _group_size, _bytes, all NULL when there is none. Every function runs inside the caller's transaction, if any.
#pragma once

#include "sqlite_db.h"

#include <fathom/store/records.h>
#include <fathom/store/run_alert.h>

#include <optional>
#include <string>
#include <vector>

namespace fathom::store {

/// "<prefix>_sequence, <prefix>_kind, <prefix>_group, <prefix>_group_size, <prefix>_bytes".
std::string positionColumns(std::string_view prefix);
/// Binds a position (or five NULLs) to parameters first .. first + 4.
void bindPosition(sql::Statement& s, int first, const std::optional<parallel::CollectivePosition>& position);
/// Reads the five columns from `first`; empty when the sequence is NULL or the kind is not one this build knows.
std::optional<parallel::CollectivePosition> readPosition(const sql::Statement& s, int first);

/// INSERT OR REPLACE of each heartbeat of `run` (the newest per rank wins).
void upsertHeartbeats(sql::Db& db, std::int64_t run, const std::vector<Heartbeat>& heartbeats);
std::vector<Heartbeat> readHeartbeats(sql::Db& db, std::int64_t run);

/// Stores `alert` and its ranks; returns its id.
AlertId insertAlert(sql::Db& db, std::int64_t run, const RunAlert& alert);
/// Sets resolved_at of `alert` (once: a resolved alert keeps its first resolution).
void resolveAlert(sql::Db& db, AlertId alert, double time, AlertEnd how);
/// The alerts of `run` with id > `after`, in id order, with their ranks.
std::vector<AlertRow> readAlerts(sql::Db& db, std::int64_t run, AlertId after);

}  // namespace fathom::store
