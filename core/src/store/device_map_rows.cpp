// SPDX-License-Identifier: Apache-2.0
#include "device_map_rows.h"

#include <sqlite3.h>

namespace fathom::store {

DeviceMapId insertDeviceMaps(sql::Db& db, std::int64_t run, std::span<const RunDeviceMap> maps) {
  DeviceMapId last;
  if (maps.empty()) {
    return last;
  }
  sql::Statement s(db, "INSERT INTO run_device_maps (run_id, rank, created_at, record_json) VALUES (?, ?, ?, ?)");
  for (const RunDeviceMap& map : maps) {
    s.bind(1, run).bind(2, map.rank).bind(3, map.createdAt).bind(4, std::string_view(map.recordJson));
    s.run();
    last = DeviceMapId{sqlite3_last_insert_rowid(db.handle())};
  }
  return last;
}

std::vector<RunDeviceMapRow> readDeviceMaps(sql::Db& db, std::int64_t run, DeviceMapId after) {
  sql::Statement s(db, "SELECT id, rank, created_at, record_json FROM run_device_maps WHERE run_id = ? AND id > ? "
                       "ORDER BY id");
  s.bind(1, run).bind(2, after.value);
  std::vector<RunDeviceMapRow> rows;
  while (s.step()) {
    rows.push_back({DeviceMapId{s.int64(0)}, {static_cast<int>(s.int64(1)), s.real(2), s.text(3)}});
  }
  return rows;
}

}  // namespace fathom::store
