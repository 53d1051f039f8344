// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace fathom::store::sql {
class Db;
}

namespace fathom::store {

/// The migration that adds the run monitor's rows (docs/workspace.md, "Heartbeats" and "Alerts"), self-contained so
/// it can take any place in schema.cpp's list: the collective wavefront columns of `heartbeats` (the last collective
/// entered and finished, NULL for rows written before), and the tables `alerts` and `alert_ranks`. Runs inside the
/// migration's transaction.
void addRunMonitorTables(sql::Db& db);

}  // namespace fathom::store
