// SPDX-License-Identifier: Apache-2.0
#include "sqlite_db.h"

#include <fathom/common/atomic_file.h>
#include <fathom/common/error.h>

#include <cerrno>
#include <system_error>

#include <sys/resource.h>

#include <limits>
#include <utility>

namespace fathom::store::sql {

Db::Db(const std::filesystem::path& path, int flags) : Db(path, flags, path.string()) {}

Db::Db(const std::filesystem::path& path, int flags, const std::string& uri) : m_path(path.string()) {
  const int rc = sqlite3_open_v2(uri.c_str(), &m_db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
    sqlite3_close_v2(m_db);
    m_db = nullptr;
    throw StorageError(m_path + ": cannot open the workspace: " + message);
  }
  sqlite3_extended_result_codes(m_db, 1);
}

Db::~Db() {
  sqlite3_close_v2(m_db);
}

std::string Db::writeHint(int rc) const {
  // SQLite reports a write cut short as SQLITE_FULL and a failed one as SQLITE_IOERR_WRITE, without always keeping
  // the errno: the file size limit is recognised by a file of the workspace that has reached it.
  const int error = m_db ? sqlite3_system_errno(m_db) : 0;
  if (error == EFBIG || error == ENOSPC || error == EDQUOT || error == EROFS || error == EACCES) {
    return " (" + writeFailureReason(error, m_path) + ")";
  }
  rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    for (const char* suffix : {"", "-wal", "-journal"}) {
      const std::filesystem::path file = m_path + suffix;
      std::error_code ec;
      const std::uintmax_t size = std::filesystem::file_size(file, ec);
      // Within a page (at most 64 KiB) of the limit: the next page did not fit.
      if (!ec && size + 65536 > limit.rlim_cur) {
        return " (" + writeFailureReason(EFBIG, file) + ": the limit is " + std::to_string(limit.rlim_cur) + " bytes)";
      }
    }
  }
  if ((rc & 0xff) == SQLITE_FULL) {
    return " (the disk is full)";
  }
  return error != 0 ? " (" + writeFailureReason(error, m_path) + ")" : std::string{};
}

void Db::fail(int rc, std::string_view what) const {
  std::string message = m_path + ": " + std::string(what) + ": " + (m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc));
  switch (rc & 0xff) {
  case SQLITE_NOTADB: message += " (the file is not an SQLite database, or its header is damaged)"; break;
  case SQLITE_CORRUPT: message += " (the file is damaged: truncated or overwritten; restore it from a copy)"; break;
  case SQLITE_BUSY: message += " (another process holds the workspace locked)"; break;
  case SQLITE_FULL:
  case SQLITE_IOERR: message += writeHint(rc); break;
  case SQLITE_READONLY:
    message += m_readOnlyReason.empty() ? std::string(" (the workspace is read-only)")
                                        : " (the workspace was " + m_readOnlyReason + ")";
    break;
  default: break;
  }
  throw StorageError(message);
}

void Db::exec(std::string_view sql, std::string_view what) {
  const std::string text(sql);
  const int rc = sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    fail(rc, what);
  }
}

std::int64_t Db::queryInt(std::string_view sql, std::string_view what) {
  Statement s(*this, sql);
  if (!s.step()) {
    fail(SQLITE_ERROR, std::string(what) + ": no row");
  }
  return s.int64(0);
}

Statement::Statement(Db& db, std::string_view sql) : m_db(db), m_what("preparing a statement") {
  const int rc = sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                    &m_stmt, nullptr);
  if (rc != SQLITE_OK) {
    db.fail(rc, std::string("preparing \"") + std::string(sql.substr(0, 60)) + "\"");
  }
  m_what = "running \"" + std::string(sql.substr(0, 60)) + "\"";
}

Statement::~Statement() {
  sqlite3_finalize(m_stmt);
}

Statement& Statement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(m_stmt, index, value);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  sqlite3_bind_double(m_stmt, index, value);  // NaN binds as NULL
  return *this;
}

Statement& Statement::bind(int index, std::string_view value) {
  sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  return *this;
}

Statement& Statement::bindBlob(int index, std::string_view bytes) {
  sqlite3_bind_blob64(m_stmt, index, bytes.data(), bytes.size(), SQLITE_TRANSIENT);
  return *this;
}

Statement& Statement::bindNull(int index) {
  sqlite3_bind_null(m_stmt, index);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(m_stmt);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  sqlite3_reset(m_stmt);
  m_db.fail(rc, m_what);
}

void Statement::run() {
  step();
  reset();
}

void Statement::reset() {
  sqlite3_reset(m_stmt);
  sqlite3_clear_bindings(m_stmt);
}

bool Statement::isNull(int column) const {
  return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

std::int64_t Statement::int64(int column) const {
  return sqlite3_column_int64(m_stmt, column);
}

double Statement::real(int column) const {
  return isNull(column) ? std::numeric_limits<double>::quiet_NaN() : sqlite3_column_double(m_stmt, column);
}

std::string Statement::text(int column) const {
  if (sqlite3_column_type(m_stmt, column) == SQLITE_BLOB) {
    const auto* b = static_cast<const char*>(sqlite3_column_blob(m_stmt, column));
    return b ? std::string(b, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))) : std::string{};
  }
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(m_stmt, column));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))) : std::string{};
}

std::optional<std::int64_t> Statement::optInt64(int column) const {
  return isNull(column) ? std::nullopt : std::optional(int64(column));
}

std::optional<double> Statement::optReal(int column) const {
  return isNull(column) ? std::nullopt : std::optional(sqlite3_column_double(m_stmt, column));
}

Transaction::Transaction(Db& db) : m_db(db) {
  db.exec("BEGIN IMMEDIATE", "starting a transaction");
}

Transaction::~Transaction() {
  if (!m_done) {
    sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
}

void Transaction::commit() {
  m_db.exec("COMMIT", "committing a transaction");
  m_done = true;
}

}  // namespace fathom::store::sql
