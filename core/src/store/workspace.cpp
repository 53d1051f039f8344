// SPDX-License-Identifier: Apache-2.0
#include <fathom/common/clock.h>
#include <fathom/store/workspace.h>

#include "alert_rows.h"
#include "device_map_rows.h"
#include "hardware_fit_rows.h"
#include "run_layout_rows.h"
#include "schema.h"
#include "sqlite_db.h"
#include "workspace_access.h"

#include <fathom/common/error.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

namespace fathom::store {
namespace {

/// One row of `artifacts`, stamped now (inside the caller's transaction, if any).
void insertArtifact(sql::Db& db, RunId run, const Artifact& artifact) {
  sql::Statement s(db, "INSERT INTO artifacts (run_id, kind, path, bytes, created_at) VALUES (?, ?, ?, ?, ?)");
  s.bind(1, run.value)
      .bind(2, toString(artifact.kind))
      .bind(3, std::string_view(artifact.path))
      .bind(4, artifact.bytes)
      .bind(5, unixNowSeconds());
  s.run();
}

std::string hex(std::int64_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << static_cast<std::uint32_t>(v);
  return out.str();
}

std::uint32_t bigEndian32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

/// Looks at the file before SQLite does, for errors SQLite reports vaguely or late: a file that is not an SQLite
/// database at all, and one cut short (its header counts more pages than the file holds). The size check only
/// applies when there is no write-ahead log to replay, since a checkpoint in progress may legitimately leave it so.
void checkFileHeader(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size == 0) {
    return;  // missing or empty: SQLite creates or initialises it
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw StorageError(path.string() + ": cannot read the workspace file");
  }
  std::array<unsigned char, 100> header{};
  in.read(reinterpret_cast<char*>(header.data()), header.size());
  const auto got = static_cast<std::size_t>(in.gcount());
  static constexpr char kMagic[] = "SQLite format 3";  // 16 bytes with the terminating NUL
  if (got < 16 || std::memcmp(header.data(), kMagic, 16) != 0) {
    throw StorageError(path.string() + ": not a Fathom workspace: the file is not an SQLite database (its first "
                                       "bytes are not the SQLite header); it is damaged or another kind of file");
  }
  if (got < header.size()) {
    throw StorageError(path.string() + ": the workspace is truncated (" + std::to_string(size) +
                       " bytes, shorter than the SQLite header)");
  }
  std::uint32_t pageSize = (std::uint32_t{header[16]} << 8) | header[17];
  if (pageSize == 1) {
    pageSize = 65536;
  }
  const std::uint32_t pages = bigEndian32(&header[28]);
  const bool sizeValid = bigEndian32(&header[24]) == bigEndian32(&header[92]) && pages != 0;
  auto wal = path;
  wal += "-wal";
  const bool walHasFrames = std::filesystem::file_size(wal, ec) > 0 && !ec;
  if (sizeValid && !walHasFrames && static_cast<std::uintmax_t>(pages) * pageSize > size) {
    throw StorageError(path.string() + ": the workspace is truncated: its header records " + std::to_string(pages) +
                       " pages of " + std::to_string(pageSize) + " bytes (" +
                       std::to_string(static_cast<std::uintmax_t>(pages) * pageSize) + " bytes) but the file has " +
                       std::to_string(size) + " bytes; restore it from a copy");
  }
}

std::string_view levelName(LogLevel level) {
  return toString(level);
}

LogLevel parseLevel(std::string_view text) {
  if (text == "debug") {
    return LogLevel::Debug;
  }
  if (text == "warning") {
    return LogLevel::Warning;
  }
  if (text == "error") {
    return LogLevel::Error;
  }
  return LogLevel::Info;
}

constexpr std::string_view kRunColumns =
    "id, name, status, created_at, started_at, ended_at, exit_code, command_line, host, launcher_pid, "
    "launcher_start_time, config_format, config_text, run_spec, slurm_job_id";

/// "SELECT <every column readRun() reads> FROM runs <tail>".
std::string selectRuns(std::string_view tail) {
  return "SELECT " + std::string(kRunColumns) + ", " + std::string(kLayoutColumns) + " FROM runs " + std::string(tail);
}

RunInfo readRun(const sql::Statement& s) {
  RunInfo r;
  r.id = RunId{s.int64(0)};
  r.name = s.text(1);
  r.status = parseRunStatus(s.text(2)).value_or(RunStatus::Lost);
  r.createdAt = s.real(3);
  r.startedAt = s.optReal(4);
  r.endedAt = s.optReal(5);
  if (auto code = s.optInt64(6)) {
    r.exitCode = static_cast<int>(*code);
  }
  r.commandLine = s.text(7);
  r.host = s.text(8);
  r.launcherPid = s.int64(9);
  r.launcherStartTime = static_cast<std::uint64_t>(s.int64(10));
  r.configFormat = s.text(11);
  r.configText = s.text(12);
  r.runSpec = s.text(13);
  r.slurmJobId = s.text(14);
  r.layout = readLayoutColumns(s, 15);  // selectRuns() puts kLayoutColumns last; the hosts are read separately
  return r;
}

constexpr std::string_view kMetricSelect =
    "SELECT m.id, m.run_id, m.rank, m.step, m.wall_time, k.key, m.value FROM metrics m "
    "JOIN metric_keys k ON k.id = m.key_id ";

MetricRow readMetric(const sql::Statement& s) {
  return {MetricId{s.int64(0)}, RunId{s.int64(1)},
          MetricPoint{static_cast<int>(s.int64(2)), s.int64(3), s.real(4), s.text(5), s.real(6)}};
}

}  // namespace

struct Workspace::Impl {
  std::filesystem::path path;
  sql::Db db;
  int version = 0;
  /// Interned metric keys: (run, key) -> metric_keys.id. Cleared when a run is deleted.
  std::map<std::int64_t, std::map<std::string, std::int64_t, std::less<>>> keyIds;
  std::unique_ptr<sql::Statement> insertMetric;
  std::unique_ptr<sql::Statement> insertKey;
  std::unique_ptr<sql::Statement> selectKey;
  std::unique_ptr<sql::Statement> insertEvent;
  std::unique_ptr<sql::Statement> insertTrace;

  Impl(std::filesystem::path p, int flags) : path(std::move(p)), db(path, flags) {}
  /// Opens `uri` (SQLITE_OPEN_URI in `flags`); messages name `p`.
  Impl(std::filesystem::path p, int flags, const std::string& uri) : path(std::move(p)), db(path, flags, uri) {}

  sql::Statement& cached(std::unique_ptr<sql::Statement>& slot, std::string_view text) {
    if (!slot) {
      slot = std::make_unique<sql::Statement>(db, text);
    }
    return *slot;
  }

  void checkIdentityAndVersion();
  /// The first five table names ("a, b, c"), "" when there are none.
  std::string tableNames() {
    sql::Statement tables(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name LIMIT 5");
    std::string names;
    while (tables.step()) {
      names += (names.empty() ? "" : ", ") + tables.text(0);
    }
    return names;
  }
  void migrate();

  std::int64_t keyId(std::int64_t run, const std::string& key) {
    auto& ofRun = keyIds[run];
    const auto found = ofRun.find(key);
    if (found != ofRun.end()) {
      return found->second;
    }
    auto& insert = cached(insertKey, "INSERT OR IGNORE INTO metric_keys (run_id, key) VALUES (?, ?)");
    insert.bind(1, run).bind(2, std::string_view(key)).run();
    auto& select = cached(selectKey, "SELECT id FROM metric_keys WHERE run_id = ? AND key = ?");
    select.bind(1, run).bind(2, std::string_view(key));
    if (!select.step()) {
      select.reset();
      db.fail(SQLITE_ERROR, "interning metric key \"" + key + "\"");
    }
    const std::int64_t id = select.int64(0);
    select.reset();
    ofRun.emplace(key, id);
    return id;
  }

  /// Inserts inside the caller's transaction. On failure the keys interned so far are forgotten, since the
  /// caller's rollback removes them.
  void insertMetrics(RunId run, std::span<const MetricPoint> points) {
    auto& insert = cached(insertMetric, "INSERT INTO metrics (run_id, rank, step, wall_time, key_id, value) "
                                        "VALUES (?, ?, ?, ?, ?, ?)");
    try {
      const std::string* lastKey = nullptr;
      std::int64_t lastKeyId = 0;
      for (const auto& p : points) {
        if (!lastKey || *lastKey != p.key) {
          lastKeyId = keyId(run.value, p.key);
          lastKey = &p.key;
        }
        insert.bind(1, run.value).bind(2, p.rank).bind(3, p.step).bind(4, p.wallTime).bind(5, lastKeyId);
        insert.bind(6, p.value);
        insert.run();
      }
    } catch (...) {
      keyIds.clear();  // keys interned in this transaction are rolled back with it
      throw;
    }
  }

  void insertEvents(RunId run, std::span<const EventRecord> events) {
    auto& insert = cached(insertEvent, "INSERT INTO events (run_id, rank, time, level, text) VALUES (?, ?, ?, ?, ?)");
    for (const auto& e : events) {
      insert.bind(1, run.value)
          .bind(2, e.rank)
          .bind(3, e.time)
          .bind(4, levelName(e.level))
          .bind(5, std::string_view(e.text));
      insert.run();
    }
  }

  void requireRun(RunId run) {
    sql::Statement s(db, "SELECT 1 FROM runs WHERE id = ?");
    s.bind(1, run.value);
    FATHOM_CHECK(s.step(), ConfigError, path.string(), ": no run with id ", run.value);
  }
};

void Workspace::Impl::checkIdentityAndVersion() {
  const auto appId = db.queryInt("PRAGMA application_id", "reading the application id");
  version = static_cast<int>(db.queryInt("PRAGMA user_version", "reading the schema version"));
  if (appId == kApplicationId) {
    if (version == 0) {
      // Fathom sets the application id and the schema version in the transaction that creates the tables, so a file
      // with the id, version 0 and tables was not made by Fathom's initialisation: migrating would fail half-way
      // ("table runs already exists"). Without tables it is empty, and initialising it is safe.
      if (const std::string names = tableNames(); !names.empty()) {
        throw StorageError(path.string() +
                           ": a damaged or half-initialised workspace: it carries Fathom's application id but "
                           "schema version 0 (user_version), and already holds tables (" +
                           names +
                           "). Fathom never leaves a workspace so; another program or a manual edit did. Move it "
                           "aside (Fathom then creates a new workspace there) or restore it from a copy");
      }
      return;
    }
    if (version > kSchemaVersion) {
      throw StorageError(path.string() + ": the workspace was written by a newer Fathom (schema version " +
                         std::to_string(version) + "; this Fathom reads schema versions up to " +
                         std::to_string(kSchemaVersion) + "). Upgrade Fathom to open it.");
    }
    return;
  }
  if (appId != 0) {
    throw StorageError(path.string() +
                       ": not a Fathom workspace: the SQLite file belongs to another application "
                       "(application_id " +
                       hex(appId) + ", Fathom's is " + hex(kApplicationId) + ")");
  }
  // application_id 0: a brand-new (empty) database is ours to initialise; anything with tables is someone else's.
  if (const std::string names = tableNames(); !names.empty()) {
    throw StorageError(path.string() +
                       ": not a Fathom workspace: an SQLite database without Fathom's application "
                       "id, holding other tables (" +
                       names + ")");
  }
}

void Workspace::Impl::migrate() {
  if (version == kSchemaVersion) {
    return;
  }
  sql::Transaction tx(db);
  // Another process may have migrated between our check and the lock.
  version = static_cast<int>(db.queryInt("PRAGMA user_version", "reading the schema version"));
  for (const auto& step : schema::migrations()) {
    if (step.toVersion <= version) {
      continue;
    }
    db.exec(step.sql, "migrating the schema to version " + std::to_string(step.toVersion) + " (" +
                          std::string(step.description) + ")");
    if (step.upgrade != nullptr) {
      step.upgrade(db);
    }
    version = step.toVersion;
  }
  db.exec("PRAGMA user_version = " + std::to_string(version), "setting the schema version");
  db.exec("PRAGMA application_id = " + std::to_string(kApplicationId), "setting the application id");
  tx.commit();
}

Workspace::Workspace(std::filesystem::path path) : Workspace(std::move(path), Options{}) {}

Workspace::Workspace(std::filesystem::path path, Options options) {
  if ((!options.create || options.readOnly) && !std::filesystem::exists(path)) {
    throw StorageError(path.string() + ": no workspace at this path");
  }
  checkFileHeader(path);
  if (options.readOnly) {
    const access::ReadOnlyOpen open = access::readOnlyOpen(path);
    m_impl = std::make_unique<Impl>(std::move(path), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, open.uri);
    m_impl->db.setReadOnlyReason(open.immutable ? "opened read-only (immutable): its folder is not writable"
                                                : "opened read-only");
    openForReading();
    return;
  }
  // SQLite's own message for these is "unable to open database file"; say which file or folder and why.
  if (auto reason = whyNotWritable(path)) {
    throw StorageError(path.string() + ": cannot open the workspace for writing: " + *reason +
                       ". Make it writable, or use a workspace elsewhere (--workspace PATH or FATHOM_WORKSPACE); "
                       "`fathom runs` commands that only read open it read-only");
  }
  const int flags = SQLITE_OPEN_READWRITE | (options.create ? SQLITE_OPEN_CREATE : 0);
  m_impl = std::make_unique<Impl>(std::move(path), flags);
  auto& db = m_impl->db;
  if (sqlite3_busy_timeout(db.handle(), 10'000) != SQLITE_OK) {
    db.fail(SQLITE_ERROR, "setting the busy timeout");
  }
  db.exec("PRAGMA foreign_keys = ON", "enabling foreign keys");
  m_impl->checkIdentityAndVersion();
  const auto mode = [&] {
    sql::Statement s(db, "PRAGMA journal_mode = WAL");
    return s.step() ? s.text(0) : std::string{};
  }();
  if (mode != "wal") {
    throw StorageError(m_impl->path.string() + ": cannot switch the workspace to WAL mode (journal mode is \"" + mode +
                       "\"); is it on a network file system?");
  }
  db.exec("PRAGMA synchronous = NORMAL", "setting synchronous = NORMAL");
  m_impl->migrate();
  if (options.reconcile) {
    reconcile();
  }
}

void Workspace::openForReading() {
  auto& impl = *m_impl;
  if (sqlite3_busy_timeout(impl.db.handle(), 10'000) != SQLITE_OK) {
    impl.db.fail(SQLITE_ERROR, "setting the busy timeout");
  }
  impl.checkIdentityAndVersion();
  if (impl.version != kSchemaVersion) {
    // Readers expect the current schema, and upgrading it writes.
    throw StorageError(impl.path.string() + ": the workspace has schema version " + std::to_string(impl.version) +
                       " and must be upgraded to version " + std::to_string(kSchemaVersion) +
                       " before this Fathom reads it, which needs write access (" +
                       whyNotWritable(impl.path).value_or("it was opened read-only") +
                       "). Open it once with write access, or read it with the Fathom that wrote it");
  }
}

std::optional<std::string> Workspace::whyNotWritable(const std::filesystem::path& path) {
  return access::whyNotWritable(path);
}

Workspace::Options Workspace::readerOptions(const std::filesystem::path& path) {
  return Options{.create = false, .reconcile = false, .readOnly = whyNotWritable(path).has_value()};
}

Workspace::~Workspace() = default;
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

std::filesystem::path Workspace::defaultPath() {
  return "fathom.sqlite";
}

const std::filesystem::path& Workspace::path() const {
  return m_impl->path;
}

int Workspace::schemaVersion() const {
  return m_impl->version;
}

RunId Workspace::createRun(const NewRun& run, const ProcessIdentity& launcher) {
  const double now = unixNowSeconds();
  sql::Transaction tx(m_impl->db);
  sql::Statement s(m_impl->db, "INSERT INTO runs (name, status, created_at, started_at, command_line, host, "
                               "launcher_pid, launcher_start_time, config_format, config_text, run_spec, "
                               "slurm_job_id) VALUES (?, 'running', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  s.bind(1, std::string_view(run.name))
      .bind(2, now)
      .bind(3, now)
      .bind(4, std::string_view(run.commandLine))
      .bind(5, std::string_view(launcher.host))
      .bind(6, launcher.pid)
      .bind(7, static_cast<std::int64_t>(launcher.startTime))
      .bind(8, std::string_view(run.configFormat))
      .bind(9, std::string_view(run.configText))
      .bind(10, std::string_view(run.runSpec))
      .bind(11, std::string_view(run.slurmJobId));
  s.run();
  const RunId id{sqlite3_last_insert_rowid(m_impl->db.handle())};
  if (run.numberName) {
    sql::Statement rename(m_impl->db, "UPDATE runs SET name = ? WHERE id = ?");
    rename.bind(1, run.name + "-" + std::to_string(id.value)).bind(2, id.value).run();
  }
  writeRunLayout(m_impl->db, id.value, run.layout);
  if (!run.planJson.empty()) {
    setRunPlan(id, "launch", run.planJson);
  }
  tx.commit();
  return id;
}

void Workspace::finishRun(RunId run, RunStatus status, std::optional<int> exitCode) {
  FATHOM_CHECK(status != RunStatus::Running, ConfigError, "finishRun needs a final status, not \"running\"");
  sql::Statement s(m_impl->db, "UPDATE runs SET status = ?, exit_code = ?, ended_at = ? WHERE id = ?");
  s.bind(1, toString(status)).bind(2, exitCode).bind(3, unixNowSeconds()).bind(4, run.value);
  s.run();
  FATHOM_CHECK(sqlite3_changes(m_impl->db.handle()) == 1, ConfigError, m_impl->path.string(), ": no run with id ",
               run.value);
}

void Workspace::upsertRank(RunId run, const RankInfo& rank) {
  sql::Statement s(m_impl->db, "INSERT OR REPLACE INTO ranks (run_id, rank, host, pid, device, exit_code) "
                               "VALUES (?, ?, ?, ?, ?, ?)");
  s.bind(1, run.value)
      .bind(2, rank.rank)
      .bind(3, std::string_view(rank.host))
      .bind(4, rank.pid)
      .bind(5, std::string_view(rank.device))
      .bind(6, rank.exitCode);
  s.run();
}

void Workspace::appendMetrics(RunId run, std::span<const MetricPoint> points) {
  if (points.empty()) {
    return;
  }
  sql::Transaction tx(m_impl->db);
  m_impl->insertMetrics(run, points);
  tx.commit();
}

void Workspace::appendEvents(RunId run, std::span<const EventRecord> events) {
  if (events.empty()) {
    return;
  }
  sql::Transaction tx(m_impl->db);
  m_impl->insertEvents(run, events);
  tx.commit();
}

void Workspace::append(RunId run, const IngestBatch& batch) {
  if (batch.empty()) {
    return;
  }
  auto& impl = *m_impl;
  sql::Transaction tx(impl.db);
  try {
    for (const RankInfo& rank : batch.ranks) {
      upsertRank(run, rank);
    }
    impl.insertMetrics(run, batch.metrics);
    impl.insertEvents(run, batch.events);
    upsertHeartbeats(impl.db, run.value, batch.heartbeats);
    if (!batch.traces.empty()) {
      auto& chunk = impl.cached(impl.insertTrace,
                                "INSERT INTO trace_chunks (run_id, rank, name, time, data) VALUES (?, ?, ?, ?, ?)");
      for (const TraceChunk& t : batch.traces) {
        chunk.bind(1, run.value).bind(2, t.rank).bind(3, std::string_view(t.name)).bind(4, t.time);
        chunk.bindBlob(5, t.data);
        chunk.run();
      }
    }
    for (const Artifact& a : batch.artifacts)
      insertArtifact(impl.db, run, a);
    if (batch.setup) {
      writeRunSetup(impl.db, run.value, *batch.setup);
    }
    insertDeviceMaps(impl.db, run.value, batch.deviceMaps);
    tx.commit();
  } catch (...) {
    impl.keyIds.clear();  // keys interned in this transaction were rolled back with it
    throw;
  }
}

ArtifactId Workspace::addArtifact(RunId run, const Artifact& artifact) {
  insertArtifact(m_impl->db, run, artifact);
  return ArtifactId{sqlite3_last_insert_rowid(m_impl->db.handle())};
}

DeviceMapId Workspace::addDeviceMap(RunId run, const RunDeviceMap& map) {
  FATHOM_CHECK(this->run(run).has_value(), ConfigError, m_impl->path.string(), ": no run with id ", run.value);
  return insertDeviceMaps(m_impl->db, run.value, std::span<const RunDeviceMap>(&map, 1));
}

HardwareFitId Workspace::addHardwareFit(const HardwareFit& fit) {
  FATHOM_CHECK(run(fit.run).has_value(), ConfigError, m_impl->path.string(), ": no run with id ", fit.run.value);
  return insertHardwareFit(m_impl->db, fit);
}

PlanId Workspace::savePlan(std::string_view inputJson, std::string_view predictionJson) {
  sql::Statement s(m_impl->db, "INSERT INTO plans (created_at, input_json, prediction_json) VALUES (?, ?, ?)");
  s.bind(1, unixNowSeconds()).bind(2, inputJson).bind(3, predictionJson);
  s.run();
  return PlanId{sqlite3_last_insert_rowid(m_impl->db.handle())};
}

AlertId Workspace::addAlert(RunId run, const RunAlert& alert) {
  sql::Transaction tx(m_impl->db);
  const AlertId id = insertAlert(m_impl->db, run.value, alert);
  tx.commit();
  return id;
}

void Workspace::resolveAlert(AlertId alert, double time, AlertEnd how) {
  store::resolveAlert(m_impl->db, alert, time, how);
}

void Workspace::setRunPlan(RunId run, std::string_view source, std::string_view predictionJson) {
  FATHOM_CHECK(this->run(run).has_value(), ConfigError, m_impl->path.string(), ": no run with id ", run.value);
  sql::Statement s(m_impl->db, "INSERT OR REPLACE INTO run_plans (run_id, created_at, source, prediction_json) "
                               "VALUES (?, ?, ?, ?)");
  s.bind(1, run.value).bind(2, unixNowSeconds()).bind(3, source).bind(4, predictionJson);
  s.run();
}

void Workspace::deleteRun(RunId run, bool force) {
  auto& impl = *m_impl;
  sql::Transaction tx(impl.db);
  const auto info = this->run(run);
  FATHOM_CHECK(info.has_value(), ConfigError, impl.path.string(), ": no run with id ", run.value);
  FATHOM_CHECK(force || info->status != RunStatus::Running, ConfigError, "run ", run.value, " (", info->name,
               ") is still running; stop it first or pass --force");
  sql::Statement s(impl.db, "DELETE FROM runs WHERE id = ?");
  s.bind(1, run.value);
  s.run();
  tx.commit();
  impl.keyIds.clear();
}

std::vector<RunId> Workspace::reconcile() {
  auto& impl = *m_impl;
  std::vector<RunId> lost;
  {
    sql::Statement s(impl.db, "SELECT id, host, launcher_pid, launcher_start_time FROM runs WHERE status = 'running'");
    while (s.step()) {
      const ProcessIdentity launcher{s.text(1), s.int64(2), static_cast<std::uint64_t>(s.int64(3))};
      if (liveness(launcher) == Liveness::Gone) {
        lost.push_back(RunId{s.int64(0)});
      }
    }
  }
  if (lost.empty()) {
    return lost;
  }
  sql::Transaction tx(impl.db);
  sql::Statement mark(impl.db, "UPDATE runs SET status = 'lost', ended_at = ? WHERE id = ? AND status = 'running'");
  const double now = unixNowSeconds();
  for (const RunId id : lost) {
    mark.bind(1, now).bind(2, id.value);
    mark.run();
  }
  tx.commit();
  return lost;
}

std::vector<RunInfo> Workspace::listRuns() const {
  sql::Statement s(m_impl->db, selectRuns("ORDER BY id"));
  std::vector<RunInfo> out;
  while (s.step()) {
    out.push_back(readRun(s));
  }
  auto hosts = readRunHosts(m_impl->db);
  for (RunInfo& r : out) {
    if (auto found = hosts.find(r.id.value); found != hosts.end()) {
      r.layout.hosts = std::move(found->second);
    }
  }
  return out;
}

std::optional<RunInfo> Workspace::run(RunId id) const {
  sql::Statement s(m_impl->db, selectRuns("WHERE id = ?"));
  s.bind(1, id.value);
  if (!s.step()) {
    return std::nullopt;
  }
  RunInfo r = readRun(s);
  r.layout.hosts = readRunHosts(m_impl->db, r.id.value);
  return r;
}

RunInfo Workspace::resolveRun(std::string_view idOrName) const {
  std::int64_t id = 0;
  const auto* end = idOrName.data() + idOrName.size();
  const auto [ptr, ec] = std::from_chars(idOrName.data(), end, id);
  if (ec == std::errc{} && ptr == end) {
    if (auto found = run(RunId{id})) {
      return *found;
    }
  }
  sql::Statement s(m_impl->db, selectRuns("WHERE name = ? ORDER BY id DESC LIMIT 1"));
  s.bind(1, idOrName);
  FATHOM_CHECK(s.step(), ConfigError, "no run \"", idOrName, "\" in ", m_impl->path.string(),
               " (give a run id or name; `fathom runs list` shows them)");
  RunInfo r = readRun(s);
  r.layout.hosts = readRunHosts(m_impl->db, r.id.value);
  return r;
}

std::vector<RankInfo> Workspace::ranks(RunId run) const {
  sql::Statement s(m_impl->db, "SELECT rank, host, pid, device, exit_code FROM ranks WHERE run_id = ? ORDER BY rank");
  s.bind(1, run.value);
  std::vector<RankInfo> out;
  while (s.step()) {
    RankInfo r{static_cast<int>(s.int64(0)), s.text(1), s.int64(2), s.text(3), std::nullopt};
    if (auto code = s.optInt64(4)) {
      r.exitCode = static_cast<int>(*code);
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<std::string> Workspace::metricKeys(RunId run) const {
  sql::Statement s(m_impl->db, "SELECT key FROM metric_keys WHERE run_id = ? ORDER BY key");
  s.bind(1, run.value);
  std::vector<std::string> out;
  while (s.step()) {
    out.push_back(s.text(0));
  }
  return out;
}

std::vector<MetricRow> Workspace::metricSeries(RunId run, std::string_view key, std::optional<int> rank) const {
  sql::Statement s(m_impl->db, std::string(kMetricSelect) +
                                   "WHERE m.run_id = ?1 AND k.run_id = ?1 AND k.key = ?2 AND (?3 IS NULL OR m.rank = "
                                   "?3) ORDER BY m.rank, m.step, m.id");
  s.bind(1, run.value).bind(2, key).bind(3, rank);
  std::vector<MetricRow> out;
  while (s.step()) {
    out.push_back(readMetric(s));
  }
  return out;
}

std::vector<MetricSummary> Workspace::metricSummaries(RunId run) const {
  // The last value is the one at the highest step (latest id among equal steps).
  sql::Statement s(m_impl->db, R"sql(
    SELECT k.key, m.rank, COUNT(*), MIN(m.value), MAX(m.value),
           (SELECT l.step FROM metrics l WHERE l.run_id = m.run_id AND l.key_id = m.key_id AND l.rank = m.rank
            ORDER BY l.step DESC, l.id DESC LIMIT 1),
           (SELECT l.value FROM metrics l WHERE l.run_id = m.run_id AND l.key_id = m.key_id AND l.rank = m.rank
            ORDER BY l.step DESC, l.id DESC LIMIT 1)
    FROM metrics m JOIN metric_keys k ON k.id = m.key_id
    WHERE m.run_id = ? GROUP BY m.key_id, m.rank ORDER BY k.key, m.rank)sql");
  s.bind(1, run.value);
  std::vector<MetricSummary> out;
  while (s.step()) {
    out.push_back({s.text(0), static_cast<int>(s.int64(1)), s.int64(2), s.int64(5), s.real(6), s.real(3), s.real(4)});
  }
  return out;
}

void Workspace::forEachMetric(RunId run, const std::function<void(const MetricRow&)>& visit) const {
  sql::Statement s(m_impl->db, std::string(kMetricSelect) + "WHERE m.run_id = ? ORDER BY m.id");
  s.bind(1, run.value);
  while (s.step()) {
    visit(readMetric(s));
  }
}

std::vector<MetricRow> Workspace::metricsSince(MetricId after, std::size_t limit) const {
  sql::Statement s(m_impl->db, std::string(kMetricSelect) + "WHERE m.id > ? ORDER BY m.id LIMIT ?");
  s.bind(1, after.value).bind(2, static_cast<std::int64_t>(limit));
  std::vector<MetricRow> out;
  while (s.step()) {
    out.push_back(readMetric(s));
  }
  return out;
}

std::vector<EventRow> Workspace::eventsSince(EventId after, std::size_t limit) const {
  sql::Statement s(m_impl->db,
                   "SELECT id, run_id, rank, time, level, text FROM events WHERE id > ? ORDER BY id LIMIT ?");
  s.bind(1, after.value).bind(2, static_cast<std::int64_t>(limit));
  std::vector<EventRow> out;
  while (s.step()) {
    out.push_back({EventId{s.int64(0)}, RunId{s.int64(1)},
                   EventRecord{static_cast<int>(s.int64(2)), s.real(3), parseLevel(s.text(4)), s.text(5)}});
  }
  return out;
}

std::vector<MetricRow> Workspace::metricsSince(RunId run, MetricId after, std::size_t limit) const {
  // `+m.run_id` keeps SQLite off the (run_id, key_id, ...) index: the id range (the rowid) is the narrow side of a
  // live read, a few new rows, where the index would walk the run's whole history.
  sql::Statement s(m_impl->db,
                   std::string(kMetricSelect) + "WHERE m.id > ?1 AND +m.run_id = ?2 ORDER BY m.id LIMIT ?3");
  s.bind(1, after.value).bind(2, run.value).bind(3, static_cast<std::int64_t>(limit));
  std::vector<MetricRow> out;
  while (s.step()) {
    out.push_back(readMetric(s));
  }
  return out;
}

std::vector<EventRow> Workspace::eventsSince(RunId run, EventId after, std::size_t limit) const {
  sql::Statement s(m_impl->db, "SELECT id, run_id, rank, time, level, text FROM events WHERE run_id = ? AND id > ? "
                               "ORDER BY id LIMIT ?");  // the index (run_id, id) serves it
  s.bind(1, run.value).bind(2, after.value).bind(3, static_cast<std::int64_t>(limit));
  std::vector<EventRow> out;
  while (s.step()) {
    out.push_back({EventId{s.int64(0)}, RunId{s.int64(1)},
                   EventRecord{static_cast<int>(s.int64(2)), s.real(3), parseLevel(s.text(4)), s.text(5)}});
  }
  return out;
}

std::vector<EventRow> Workspace::lastEvents(RunId run, std::size_t limit) const {
  sql::Statement s(m_impl->db, "SELECT id, run_id, rank, time, level, text FROM events WHERE run_id = ? ORDER BY id "
                               "DESC LIMIT ?");
  s.bind(1, run.value).bind(2, static_cast<std::int64_t>(limit));
  std::vector<EventRow> out;
  while (s.step()) {
    out.push_back({EventId{s.int64(0)}, RunId{s.int64(1)},
                   EventRecord{static_cast<int>(s.int64(2)), s.real(3), parseLevel(s.text(4)), s.text(5)}});
  }
  std::reverse(out.begin(), out.end());
  return out;
}

std::vector<RunDeviceMapRow> Workspace::deviceMaps(RunId run, DeviceMapId after) const {
  return readDeviceMaps(m_impl->db, run.value, after);
}

namespace {
// The schema version that added hardware_fits: an older file opened read-only (never migrated) has none.
constexpr int kHardwareFitsVersion = 12;
}  // namespace

std::vector<HardwareFitRow> Workspace::hardwareFitsOf(std::string_view host, std::string_view device,
                                                      std::string_view baseMeasuredAt) const {
  if (m_impl->version < kHardwareFitsVersion) {
    return {};
  }
  return readHardwareFitsOf(m_impl->db, host, device, baseMeasuredAt);
}

std::vector<HardwareFitRow> Workspace::hardwareFits(RunId run) const {
  if (m_impl->version < kHardwareFitsVersion) {
    return {};
  }
  return readHardwareFits(m_impl->db, run.value);
}

std::vector<ArtifactRow> Workspace::artifacts(RunId run) const {
  sql::Statement s(m_impl->db,
                   "SELECT id, run_id, kind, path, bytes, created_at FROM artifacts WHERE run_id = ? ORDER BY id");
  s.bind(1, run.value);
  std::vector<ArtifactRow> out;
  while (s.step()) {
    out.push_back({ArtifactId{s.int64(0)}, RunId{s.int64(1)},
                   Artifact{parseArtifactKind(s.text(2)).value_or(ArtifactKind::Export), s.text(3), s.int64(4)},
                   s.real(5)});
  }
  return out;
}

std::vector<Heartbeat> Workspace::heartbeats(RunId run) const {
  return readHeartbeats(m_impl->db, run.value);
}

std::vector<AlertRow> Workspace::alerts(RunId run, AlertId after) const {
  return readAlerts(m_impl->db, run.value, after);
}

std::vector<TraceSummary> Workspace::traces(RunId run) const {
  sql::Statement s(m_impl->db, "SELECT name, rank, COUNT(*), SUM(LENGTH(data)) FROM trace_chunks WHERE run_id = ? "
                               "GROUP BY name, rank ORDER BY name, rank");
  s.bind(1, run.value);
  std::vector<TraceSummary> out;
  while (s.step()) {
    out.push_back({s.text(0), static_cast<int>(s.int64(1)), s.int64(2), s.int64(3)});
  }
  return out;
}

std::string Workspace::traceData(RunId run, std::string_view name, int rank) const {
  sql::Statement s(m_impl->db, "SELECT data FROM trace_chunks WHERE run_id = ? AND name = ? AND rank = ? ORDER BY id");
  s.bind(1, run.value).bind(2, name).bind(3, rank);
  std::string out;
  while (s.step()) {
    out += s.text(0);
  }
  return out;
}

std::vector<PlanRecord> Workspace::plans() const {
  sql::Statement s(m_impl->db, "SELECT id, created_at, input_json, prediction_json FROM plans ORDER BY id");
  std::vector<PlanRecord> out;
  while (s.step()) {
    out.push_back({PlanId{s.int64(0)}, s.real(1), s.text(2), s.text(3)});
  }
  return out;
}

std::optional<RunPlan> Workspace::runPlan(RunId run) const {
  sql::Statement s(m_impl->db, "SELECT created_at, source, prediction_json FROM run_plans WHERE run_id = ?");
  s.bind(1, run.value);
  if (!s.step()) {
    return std::nullopt;
  }
  return RunPlan{s.real(0), s.text(1), s.text(2)};
}

}  // namespace fathom::store
