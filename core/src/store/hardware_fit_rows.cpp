// SPDX-License-Identifier: Apache-2.0
#include "hardware_fit_rows.h"

#include <sqlite3.h>

namespace fathom::store {
namespace {

constexpr std::string_view kColumns = "id, run_id, created_at, host, device, base_measured_at, profile_yaml";

HardwareFitRow rowOf(sql::Statement& s) {
  return {HardwareFitId{s.int64(0)}, {RunId{s.int64(1)}, s.real(2), s.text(3), s.text(4), s.text(5), s.text(6)}};
}

}  // namespace

HardwareFitId insertHardwareFit(sql::Db& db, const HardwareFit& fit) {
  sql::Statement s(db, "INSERT INTO hardware_fits (run_id, created_at, host, device, base_measured_at, profile_yaml) "
                       "VALUES (?, ?, ?, ?, ?, ?)");
  s.bind(1, fit.run.value)
      .bind(2, fit.createdAt)
      .bind(3, std::string_view(fit.host))
      .bind(4, std::string_view(fit.device))
      .bind(5, std::string_view(fit.baseMeasuredAt))
      .bind(6, std::string_view(fit.profileYaml));
  s.run();
  return HardwareFitId{sqlite3_last_insert_rowid(db.handle())};
}

std::vector<HardwareFitRow> readHardwareFitsOf(sql::Db& db, std::string_view host, std::string_view device,
                                               std::string_view baseMeasuredAt) {
  sql::Statement s(db, "SELECT " + std::string(kColumns) +
                           " FROM hardware_fits WHERE host = ? AND device = ? AND base_measured_at = ? "
                           "ORDER BY id DESC");
  s.bind(1, host).bind(2, device).bind(3, baseMeasuredAt);
  std::vector<HardwareFitRow> rows;
  while (s.step()) {
    rows.push_back(rowOf(s));
  }
  return rows;
}

std::vector<HardwareFitRow> readHardwareFits(sql::Db& db, std::int64_t run) {
  sql::Statement s(db, "SELECT " + std::string(kColumns) + " FROM hardware_fits WHERE run_id = ? ORDER BY id");
  s.bind(1, run);
  std::vector<HardwareFitRow> rows;
  while (s.step()) {
    rows.push_back(rowOf(s));
  }
  return rows;
}

}  // namespace fathom::store
