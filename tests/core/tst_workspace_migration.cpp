// SPDX-License-Identifier: Apache-2.0
// A workspace written by the release at fd8b02f (schema version 3: tests/data/workspace_v3.sqlite, made by
// tests/data/make_workspace_fixture.sh) opens with today's Workspace, is migrated in place, and reads back the same
// runs, ranks, metrics, memory samples, log lines, artifacts, heartbeats and traces that release's own
// `fathom runs list --json` / `fathom runs show ID --json` printed of it (workspace_v3.expected). The typed run
// layout of schema version 4 is derived once, by the migration, from what the old records say.
#include <fathom/common/error.h>  // first: moc (Qt 6.4) cannot parse <concepts> when workspace.h leads
#include <fathom/common/memory_metric_keys.h>
#include <fathom/store/workspace.h>
#include <store/schema.h>  // the released steps, to build a schema-6 file

#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

using namespace fathom;
using namespace fathom::store;
using nlohmann::json;

namespace {

const std::filesystem::path kData = FATHOM_TEST_DATA_DIR;

/// What the old binary printed: `runs list --json`, then `runs show ID --json` of every run, by id.
struct Expected {
  json list;
  std::map<std::int64_t, json> shows;
};

Expected readExpected() {
  std::ifstream in(kData / "workspace_v3.expected");
  Expected out;
  in >> out.list;
  while ((in >> std::ws) && in.peek() != std::char_traits<char>::eof()) {
    json show;
    in >> show;
    out.shows[show.at("id").get<std::int64_t>()] = show;
  }
  return out;
}

int userVersion(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, nullptr);
  const int version = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int(s, 0) : -1;
  sqlite3_finalize(s);
  sqlite3_close(db);
  return version;
}

template <typename T> json opt(const std::optional<T>& v) {
  return v ? json(*v) : json(nullptr);
}

/// As `fathom runs` prints a value: NaN and infinities as null.
json number(double v) {
  return std::isfinite(v) ? json(v) : json(nullptr);
}

/// The fields of `fathom runs list --json` that the old binary printed, from today's record.
json listFields(const RunInfo& r) {
  return {{"id", r.id.value},
          {"name", r.name},
          {"status", std::string(toString(r.status))},
          {"created_at", r.createdAt},
          {"started_at", opt(r.startedAt)},
          {"ended_at", opt(r.endedAt)},
          {"exit_code", opt(r.exitCode)},
          {"command_line", r.commandLine},
          {"host", r.host},
          {"launcher_pid", r.launcherPid},
          {"config_format", r.configFormat}};
}

/// The lists of `fathom runs show --json`, from today's Workspace (the `memory` list is the memory/* metrics).
json showLists(const Workspace& ws, RunId run) {
  json out;
  out["ranks"] = json::array();
  for (const auto& k : ws.ranks(run)) {
    out["ranks"].push_back(
        {{"rank", k.rank}, {"host", k.host}, {"pid", k.pid}, {"device", k.device}, {"exit_code", opt(k.exitCode)}});
  }
  out["metrics"] = json::array();
  for (const auto& m : ws.metricSummaries(run)) {
    out["metrics"].push_back({{"key", m.key},
                              {"rank", m.rank},
                              {"count", m.count},
                              {"last_step", m.lastStep},
                              {"last", number(m.last)},
                              {"min", number(m.min)},
                              {"max", number(m.max)}});
  }
  out["artifacts"] = json::array();
  for (const auto& a : ws.artifacts(run)) {
    out["artifacts"].push_back(
        {{"kind", std::string(toString(a.artifact.kind))}, {"path", a.artifact.path}, {"bytes", a.artifact.bytes}});
  }
  out["heartbeats"] = json::array();
  for (const auto& h : ws.heartbeats(run)) {
    out["heartbeats"].push_back({{"rank", h.rank}, {"time", h.time}, {"step", h.step}});
  }
  out["traces"] = json::array();
  for (const auto& t : ws.traces(run)) {
    out["traces"].push_back({{"name", t.name}, {"rank", t.rank}, {"chunks", t.chunks}, {"bytes", t.bytes}});
  }
  out["log"] = json::array();
  for (const auto& e : ws.lastEvents(run, 1000)) {
    out["log"].push_back({{"time", e.event.time},
                          {"rank", e.event.rank},
                          {"level", std::string(fathom::toString(e.event.level))},
                          {"text", e.event.text}});
  }
  return out;
}

/// `metrics` sorted by key, then rank: the order of today's summaries, whatever the keys were renamed to.
json byKeyAndRank(json metrics) {
  std::sort(metrics.begin(), metrics.end(), [](const json& a, const json& b) {
    return std::pair(a.at("key").get<std::string>(), a.at("rank").get<int>()) <
           std::pair(b.at("key").get<std::string>(), b.at("rank").get<int>());
  });
  return metrics;
}

/// What the old release printed, its memory metric keys renamed as schema 5 renames them (docs/workspace.md,
/// "Memory metric keys"): the same points under today's names.
json withCurrentKeys(json metrics) {
  for (json& m : metrics) {
    if (const auto now = fathom::currentMetricKey(m.at("key").get<std::string>())) {
      m["key"] = *now;
    }
  }
  return byKeyAndRank(std::move(metrics));
}

RunLayout layout(int worldSize, RunStrategy strategy, const std::string& host) {
  RunLayout l;
  l.worldSize = worldSize;
  l.numMachines = 1;
  l.strategy = strategy;
  l.mixedPrecision = "no";
  l.hosts = {host};
  return l;
}

}  // namespace

class TestWorkspaceMigration : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;

  /// A fresh copy of the fixture (the repository's file is never opened for writing).
  std::filesystem::path copyFixture(const char* name) {
    const std::filesystem::path copy = m_dir.filePath(QString::fromUtf8(name)).toStdString();
    std::filesystem::copy_file(kData / "workspace_v3.sqlite", copy, std::filesystem::copy_options::overwrite_existing);
    return copy;
  }

private slots:
  void showsTheSameRunsAndMetrics() {
    const Expected expected = readExpected();
    QCOMPARE(expected.list.size(), std::size_t{6});
    QCOMPARE(expected.shows.size(), std::size_t{6});
    const auto path = copyFixture("v3.sqlite");
    QCOMPARE(userVersion(path), 3);

    const Workspace ws(path, Workspace::Options{.create = false, .reconcile = false});
    QCOMPARE(ws.schemaVersion(), Workspace::kSchemaVersion);
    QCOMPARE(userVersion(path), Workspace::kSchemaVersion);
    const auto runs = ws.listRuns();
    QCOMPARE(runs.size(), expected.list.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const RunInfo& run = runs[i];
      const json& old = expected.list[i];
      QCOMPARE(listFields(run).dump(), old.dump());  // same keys, same values, nothing rounded
      const json& shown = expected.shows.at(run.id.value);
      QCOMPARE(run.configText, shown.at("config_text").get<std::string>());
      const json lists = showLists(ws, run.id);
      for (const char* key : {"ranks", "artifacts", "heartbeats", "traces", "log"}) {
        QVERIFY2(lists.at(key) == shown.at(key), (std::to_string(run.id.value) + ": " + key).c_str());
      }
      QVERIFY2(byKeyAndRank(lists.at("metrics")) == withCurrentKeys(shown.at("metrics")),
               (std::to_string(run.id.value) + ": metrics\n" + byKeyAndRank(lists.at("metrics")).dump() + "\n" +
                withCurrentKeys(shown.at("metrics")).dump())
                   .c_str());
      QVERIFY(!shown.at("metrics").empty() || run.status == RunStatus::Failed);
    }
    // The traces' bytes, not only their sizes: the worker-selected ZeRO-2 run recorded one gzipped trace per rank.
    const std::string trace = ws.traceData(RunId{4}, "profile_0.json.gz", 0);
    QCOMPARE(static_cast<std::int64_t>(trace.size()),
             expected.shows.at(4).at("traces").at(0).at("bytes").get<std::int64_t>());
    QCOMPARE(trace.substr(0, 2), std::string("\x1f\x8b"));
  }

  // The layout make_workspace_fixture.sh's six runs had, derived once from their old records: the launcher's JSON
  // (world size, machines, precision, use_fsdp + fsdp_sharding_strategy, use_deepspeed + zero_stage, a `--strategy`
  // word of its command), else the ranks recorded.
  void derivesTheTypedLayout() {
    const auto path = copyFixture("layout.sqlite");
    const Workspace ws(path, Workspace::Options{.create = false, .reconcile = false});
    const auto runs = ws.listRuns();
    QCOMPARE(runs.size(), std::size_t{6});
    const std::string host = runs[0].host;
    using plan::FsdpSharding;
    using plan::Strategy;
    const std::vector<RunLayout> expected{
        layout(2, {Strategy::Ddp, {}}, host),                          // 1: DDP chosen by nobody
        layout(2, {Strategy::Fsdp, FsdpSharding::ShardGradOp}, host),  // 2: the launcher's --use_fsdp
        layout(2, {Strategy::Zero3, {}}, host),                        // 3: the launcher's --use_deepspeed
        layout(2, {Strategy::Zero2, {}}, host),                        // 4: `fathom train --strategy zero2`
        layout(2, {Strategy::Ddp, {}}, host),                          // 5: `sh -c 'exit 3'`
        layout(1, {Strategy::Ddp, {}}, host),                          // 6: `fathom train` alone: its hparams
    };
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const RunLayout& got = runs[i].layout;
      QVERIFY2(got == expected[i], (std::to_string(runs[i].id.value) + ": " + std::to_string(got.worldSize) + " " +
                                    (got.strategy ? strategyLabel(*got.strategy) : "?") + " " + got.mixedPrecision)
                                       .c_str());
    }
  }

  // A schema-6 file (built from the released steps 1-6, as that build wrote it): its heartbeats read back without a
  // wavefront, and the migration adds the run monitor's columns and tables, which then take wavefronts and alerts
  // (and lose them with their run).
  void aSchema6WorkspaceGainsTheRunMonitorTables() {
    const std::filesystem::path path = m_dir.filePath(QStringLiteral("v6.sqlite")).toStdString();
    {
      sqlite3* db = nullptr;
      QCOMPARE(sqlite3_open(path.c_str(), &db), SQLITE_OK);
      std::string script = "BEGIN;\n";
      for (const auto& step : schema::migrations()) {
        if (step.toVersion <= 6) {
          script += std::string(step.sql) + "\n";  // steps 4 and 5 also derive from old rows: there are none
        }
      }
      script += "PRAGMA user_version = 6; PRAGMA application_id = " + std::to_string(Workspace::kApplicationId) +
                ";\nINSERT INTO runs (id, name, status, created_at) VALUES (1, 'old', 'succeeded', 1700000000);\n"
                "INSERT INTO heartbeats (run_id, rank, time, step) VALUES (1, 0, 1700000001.5, 12);\nCOMMIT;";
      char* error = nullptr;
      const int rc = sqlite3_exec(db, script.c_str(), nullptr, nullptr, &error);
      QVERIFY2(rc == SQLITE_OK, error);
      sqlite3_close(db);
    }
    QCOMPARE(userVersion(path), 6);
    Workspace ws(path, Workspace::Options{.create = false, .reconcile = false});
    QCOMPARE(ws.schemaVersion(), Workspace::kSchemaVersion);
    const auto old = ws.heartbeats(RunId{1});
    QCOMPARE(old.size(), std::size_t{1});
    QCOMPARE(old[0].step, std::int64_t{12});
    QVERIFY(!old[0].entered && !old[0].finished);
    QVERIFY(ws.alerts(RunId{1}).empty());

    const parallel::CollectivePosition waiting{7, parallel::CommKind::AllReduce, "world", 2, 4096};
    const parallel::CollectivePosition done{6, parallel::CommKind::Broadcast, "hybrid.shard.0", 2, 16};
    IngestBatch batch;
    batch.heartbeats.push_back({0, 1700000002.0, 13, waiting, done});
    batch.heartbeats.push_back({1, 1700000002.5, 13, done, done});
    ws.append(RunId{1}, batch);
    QVERIFY(ws.heartbeats(RunId{1}) == batch.heartbeats);

    RunAlert alert;
    alert.kind = AlertKind::Hang;
    alert.time = 1700000010.0;
    alert.stalledSeconds = 61.5;
    alert.waitingIn = waiting;
    alert.ranks = {{0, false, 13, waiting, done, std::nullopt}, {1, true, 13, done, done, 0.25}};
    const AlertId id = ws.addAlert(RunId{1}, alert);
    RunAlert straggler;
    straggler.kind = AlertKind::Straggler;
    straggler.time = 1700000011.0;
    straggler.medianStepSeconds = 0.1;
    straggler.ranks = {{0, false, 20, std::nullopt, std::nullopt, 0.1}, {1, true, 20, std::nullopt, std::nullopt, 0.3}};
    const AlertId second = ws.addAlert(RunId{1}, straggler);
    ws.resolveAlert(id, 1700000020.0);
    ws.resolveAlert(id, 1700000030.0, AlertEnd::RunEnded);  // the first resolution stays, and how it ended
    ws.resolveAlert(second, 1700000040.0, AlertEnd::RunEnded);
    auto rows = ws.alerts(RunId{1});
    QCOMPARE(rows.size(), std::size_t{2});
    alert.resolvedAt = 1700000020.0;
    QVERIFY(rows[0].id == id && rows[0].alert == alert);
    QVERIFY(rows[0].alert.end == AlertEnd::Resolved);
    straggler.resolvedAt = 1700000040.0;
    straggler.end = AlertEnd::RunEnded;
    QVERIFY(rows[1].id == second && rows[1].alert == straggler);
    QVERIFY(store::describeAlert(rows[1].alert).find("still open when the run ended, after 29.0 s") !=
            std::string::npos);
    QCOMPARE(rows[0].alert.behind(), std::vector<int>{1});
    // Incremental: only the alerts after an id.
    rows = ws.alerts(RunId{1}, id);
    QCOMPARE(rows.size(), std::size_t{1});
    QVERIFY(rows[0].id == second);

    ws.deleteRun(RunId{1});
    sqlite3* db = nullptr;
    sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* s = nullptr;
    sqlite3_prepare_v2(db, "SELECT (SELECT COUNT(*) FROM alerts) + (SELECT COUNT(*) FROM alert_ranks)", -1, &s,
                       nullptr);
    QCOMPARE(sqlite3_step(s), SQLITE_ROW);
    QCOMPARE(sqlite3_column_int(s, 0), 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
  }

  // Migrated once: a second open changes nothing, and the file takes new runs with their layout.
  void migratedFileStaysWritable() {
    const auto path = copyFixture("again.sqlite");
    { Workspace first(path); }
    Workspace ws(path);
    QCOMPARE(ws.listRuns().size(), std::size_t{6});
    NewRun next{"next", "", "", ""};
    next.layout.worldSize = 4;
    next.layout.strategy = RunStrategy{plan::Strategy::Zero1, {}};
    const RunId id = ws.createRun(next);
    QCOMPARE(id.value, std::int64_t{7});  // ids keep growing after the old ones
    QVERIFY(ws.run(id)->layout == next.layout);
  }
};

QTEST_GUILESS_MAIN(TestWorkspaceMigration)
#include "tst_workspace_migration.moc"
