// SPDX-License-Identifier: Apache-2.0
// SQL on a workspace file directly, bypassing fathom::store::Workspace: to build old, foreign or damaged files, and to
// check one with SQLite's own eyes (PRAGMA integrity_check).
#pragma once

#include <QTest>

#include <sqlite3.h>

#include <cstdint>
#include <string>

namespace fathom::test {

/// Runs `sql` (statements without rows) on `path`; a QVERIFY failure with SQLite's message otherwise.
inline void rawExec(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  QCOMPARE_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* error = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
  const std::string message = error ? error : "";
  sqlite3_free(error);
  sqlite3_close(db);
  QVERIFY2(rc == SQLITE_OK, message.c_str());
}

/// The first column of the first row of `sql` as an integer; -1 when there is none.
inline std::int64_t rawInt(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* s = nullptr;
  std::int64_t value = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    value = sqlite3_column_int64(s, 0);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return value;
}

/// `PRAGMA integrity_check`'s first row ("ok" for a sound file), or SQLite's error message.
inline std::string integrityCheck(const std::string& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
  sqlite3_stmt* s = nullptr;
  std::string result;
  if (sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &s, nullptr) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
    result = reinterpret_cast<const char*>(sqlite3_column_text(s, 0));
  } else {
    result = sqlite3_errmsg(db);
  }
  sqlite3_finalize(s);
  sqlite3_close(db);
  return result;
}

}  // namespace fathom::test
