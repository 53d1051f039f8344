// SPDX-License-Identifier: Apache-2.0
#include "metric_key_migration.h"

#include "sqlite_db.h"

#include <fathom/common/memory_metric_keys.h>

#include <cstdint>
#include <string>
#include <vector>

namespace fathom::store {

void renameLegacyMemoryMetricKeys(sql::Db& db) {
  struct Rename {
    std::int64_t id = 0;
    std::int64_t run = 0;
    std::string key;
  };
  std::vector<Rename> renames;
  {
    // metric_keys holds one row per (run, key): a few dozen per run, so reading them all is cheap.
    sql::Statement keys(db, "SELECT id, run_id, key FROM metric_keys");
    while (keys.step()) {
      if (std::optional<std::string> current = currentMetricKey(keys.text(2))) {
        renames.push_back({keys.int64(0), keys.int64(1), std::move(*current)});
      }
    }
  }
  sql::Statement existing(db, "SELECT id FROM metric_keys WHERE run_id = ? AND key = ?");
  sql::Statement rename(db, "UPDATE metric_keys SET key = ? WHERE id = ?");
  sql::Statement movePoints(db, "UPDATE metrics SET key_id = ? WHERE key_id = ?");
  sql::Statement drop(db, "DELETE FROM metric_keys WHERE id = ?");
  for (const Rename& r : renames) {
    existing.bind(1, r.run).bind(2, r.key);
    const bool taken = existing.step();
    const std::int64_t takenId = taken ? existing.int64(0) : 0;
    existing.reset();
    if (taken) {
      // (run, key) is unique: the points join the key already there.
      movePoints.bind(1, takenId).bind(2, r.id).run();
      drop.bind(1, r.id).run();
    } else {
      rename.bind(1, r.key).bind(2, r.id).run();
    }
  }
}

}  // namespace fathom::store
