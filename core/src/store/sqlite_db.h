// SPDX-License-Identifier: Apache-2.0
// Thin RAII over the sqlite3 C API for core/store: a connection that knows its file's path (every error names it)
// and prepared statements with typed binds and columns.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace fathom::store::sql {

class Db {
public:
  Db() = default;
  Db(const std::filesystem::path& path, int flags);
  /// Opens `uri` (`flags` include SQLITE_OPEN_URI); messages name `path`.
  Db(const std::filesystem::path& path, int flags, const std::string& uri);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* handle() const { return m_db; }
  const std::string& path() const { return m_path; }

  /// Runs one or more statements that return no rows.
  void exec(std::string_view sql, std::string_view what);
  /// The first column of the first row of `sql` as an integer.
  std::int64_t queryInt(std::string_view sql, std::string_view what);

  /// Throws StorageError "<path>: <what>: <sqlite message>" with a hint for corrupt or non-database files, a full
  /// disk or the file size limit, and a workspace opened read-only (with setReadOnlyReason()'s reason).
  [[noreturn]] void fail(int rc, std::string_view what) const;
  /// Why the connection is read-only ("opened read-only"), for SQLITE_READONLY messages.
  void setReadOnlyReason(std::string reason) { m_readOnlyReason = std::move(reason); }

private:
  /// " (why the write failed)" for SQLITE_FULL and SQLITE_IOERR: the file size limit, a full disk, errno's reason.
  std::string writeHint(int rc) const;

  sqlite3* m_db = nullptr;
  std::string m_path;
  std::string m_readOnlyReason;
};

class Statement {
public:
  Statement(Db& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view value);
  Statement& bindNull(int index);
  /// Binds bytes as a BLOB (text() reads them back).
  Statement& bindBlob(int index, std::string_view bytes);
  template <typename T> Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bindNull(index);
  }

  /// Steps once: true when a row is available, false when done.
  bool step();
  /// Steps a statement that returns no rows, then resets it for reuse.
  void run();
  void reset();

  bool isNull(int column) const;
  std::int64_t int64(int column) const;
  double real(int column) const;  ///< NULL reads as NaN
  std::string text(int column) const;
  std::optional<std::int64_t> optInt64(int column) const;
  std::optional<double> optReal(int column) const;

private:
  Db& m_db;
  sqlite3_stmt* m_stmt = nullptr;
  std::string m_what;
};

/// BEGIN IMMEDIATE ... COMMIT, rolled back when destroyed without commit().
class Transaction {
public:
  explicit Transaction(Db& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

private:
  Db& m_db;
  bool m_done = false;
};

}  // namespace fathom::store::sql
