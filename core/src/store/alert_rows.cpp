// SPDX-License-Identifier: Apache-2.0
#include "alert_rows.h"

#include <map>

namespace fathom::store {

std::string positionColumns(std::string_view prefix) {
  const std::string p(prefix);
  return p + "_sequence, " + p + "_kind, " + p + "_group, " + p + "_group_size, " + p + "_bytes";
}

void bindPosition(sql::Statement& s, int first, const std::optional<parallel::CollectivePosition>& position) {
  if (!position) {
    for (int i = 0; i < 5; ++i) {
      s.bindNull(first + i);
    }
    return;
  }
  // Sequences are call counts of one process: far below 2^63.
  s.bind(first, static_cast<std::int64_t>(position->sequence))
      .bind(first + 1, std::string_view(parallel::toString(position->kind)))
      .bind(first + 2, std::string_view(position->group))
      .bind(first + 3, position->groupSize)
      .bind(first + 4, position->bytes);
}

std::optional<parallel::CollectivePosition> readPosition(const sql::Statement& s, int first) {
  if (s.isNull(first)) {
    return std::nullopt;
  }
  const auto kind = parallel::parseCommKind(s.text(first + 1));
  if (!kind) {
    return std::nullopt;
  }
  return parallel::CollectivePosition{static_cast<std::uint64_t>(s.int64(first)), *kind, s.text(first + 2),
                                      static_cast<int>(s.int64(first + 3)), s.int64(first + 4)};
}

void upsertHeartbeats(sql::Db& db, std::int64_t run, const std::vector<Heartbeat>& heartbeats) {
  if (heartbeats.empty()) {
    return;
  }
  sql::Statement s(db, "INSERT OR REPLACE INTO heartbeats (run_id, rank, time, step, " + positionColumns("entered") +
                           ", " + positionColumns("finished") + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const Heartbeat& h : heartbeats) {
    s.bind(1, run).bind(2, h.rank).bind(3, h.time).bind(4, h.step);
    bindPosition(s, 5, h.entered);
    bindPosition(s, 10, h.finished);
    s.run();
  }
}

std::vector<Heartbeat> readHeartbeats(sql::Db& db, std::int64_t run) {
  sql::Statement s(db, "SELECT rank, time, step, " + positionColumns("entered") + ", " + positionColumns("finished") +
                           " FROM heartbeats WHERE run_id = ? ORDER BY rank");
  s.bind(1, run);
  std::vector<Heartbeat> out;
  while (s.step()) {
    out.push_back({static_cast<int>(s.int64(0)), s.real(1), s.int64(2), readPosition(s, 3), readPosition(s, 8)});
  }
  return out;
}

AlertId insertAlert(sql::Db& db, std::int64_t run, const RunAlert& alert) {
  sql::Statement a(db, "INSERT INTO alerts (run_id, kind, time, stalled_seconds, median_step_seconds, resolved_at, "
                       "ended, " +
                           positionColumns("waiting") + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  a.bind(1, run)
      .bind(2, toString(alert.kind))
      .bind(3, alert.time)
      .bind(4, alert.stalledSeconds)
      .bind(5, alert.medianStepSeconds)
      .bind(6, alert.resolvedAt);
  if (alert.resolvedAt) {
    a.bind(7, toString(alert.end));
  } else {
    a.bindNull(7);
  }
  bindPosition(a, 8, alert.waitingIn);
  a.run();
  const AlertId id{sqlite3_last_insert_rowid(db.handle())};
  sql::Statement r(db, "INSERT INTO alert_ranks (alert_id, rank, behind, step, step_seconds, " +
                           positionColumns("entered") + ", " + positionColumns("finished") +
                           ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (const AlertRank& rank : alert.ranks) {
    r.bind(1, id.value).bind(2, rank.rank).bind(3, rank.behind ? 1 : 0).bind(4, rank.step).bind(5, rank.stepSeconds);
    bindPosition(r, 6, rank.entered);
    bindPosition(r, 11, rank.finished);
    r.run();
  }
  return id;
}

void resolveAlert(sql::Db& db, AlertId alert, double time, AlertEnd how) {
  sql::Statement s(db, "UPDATE alerts SET resolved_at = ?, ended = ? WHERE id = ? AND resolved_at IS NULL");
  s.bind(1, time).bind(2, toString(how)).bind(3, alert.value);
  s.run();
}

std::vector<AlertRow> readAlerts(sql::Db& db, std::int64_t run, AlertId after) {
  std::vector<AlertRow> out;
  std::map<std::int64_t, std::size_t> index;
  {
    sql::Statement s(db, "SELECT id, kind, time, stalled_seconds, median_step_seconds, resolved_at, ended, " +
                             positionColumns("waiting") + " FROM alerts WHERE run_id = ? AND id > ? ORDER BY id");
    s.bind(1, run).bind(2, after.value);
    while (s.step()) {
      AlertRow row{AlertId{s.int64(0)}, RunId{run}, {}};
      row.alert.kind = parseAlertKind(s.text(1)).value_or(AlertKind::Hang);
      row.alert.time = s.real(2);
      row.alert.stalledSeconds = s.real(3);
      row.alert.medianStepSeconds = s.optReal(4);
      row.alert.resolvedAt = s.optReal(5);
      if (!s.isNull(6)) {
        row.alert.end = parseAlertEnd(s.text(6)).value_or(AlertEnd::Resolved);
      }
      row.alert.waitingIn = readPosition(s, 7);
      index[row.id.value] = out.size();
      out.push_back(std::move(row));
    }
  }
  if (out.empty()) {
    return out;
  }
  sql::Statement r(db, "SELECT r.alert_id, r.rank, r.behind, r.step, r.step_seconds, " + positionColumns("r.entered") +
                           ", " + positionColumns("r.finished") +
                           " FROM alert_ranks r JOIN alerts a ON a.id = r.alert_id WHERE a.run_id = ? AND a.id > ? "
                           "ORDER BY r.alert_id, r.rank");
  r.bind(1, run).bind(2, after.value);
  while (r.step()) {
    const auto found = index.find(r.int64(0));
    if (found == index.end()) {
      continue;  // an alert committed between the two reads (a reader outside the writer's transaction)
    }
    out[found->second].alert.ranks.push_back({static_cast<int>(r.int64(1)), r.int64(2) != 0, r.int64(3),
                                              readPosition(r, 5), readPosition(r, 10), r.optReal(4)});
  }
  return out;
}

}  // namespace fathom::store
