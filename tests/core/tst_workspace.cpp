// SPDX-License-Identifier: Apache-2.0
// core/store: the workspace's schema and migrations, refusal of foreign, corrupt and newer files, the round trip of
// runs/metrics/events/artifacts/plans, the Studio's incremental reads, reconcile() after a SIGKILLed launcher, and
// appendMetrics throughput.
#include "error_helpers.h"
#include "raw_sqlite.h"

#include <fathom/common/error.h>
#include <fathom/store/workspace.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace fathom;
using namespace fathom::store;
using fathom::test::contains;
using fathom::test::messageOf;
using fathom::test::rawExec;
using fathom::test::rawInt;

namespace {

/// Enums as text, so QCOMPARE prints them.
template <typename Enum> QString name(Enum value) {
  return QString::fromUtf8(toString(value));
}

constexpr const char* kChildEnv = "FATHOM_TST_WORKSPACE_CHILD";

std::vector<MetricPoint> points(int count, const std::string& key, int rank = 0, std::int64_t firstStep = 0) {
  std::vector<MetricPoint> out;
  for (int i = 0; i < count; ++i) {
    out.push_back({rank, firstStep + i, 1.7e9 + i, key, 1.0 / (i + 1)});
  }
  return out;
}

/// Child mode: create a run in the workspace, log a few metrics, say "ready", and wait to be killed.
int childMain(const char* path) {
  Workspace ws(path);
  const RunId run = ws.createRun({"child", "tst_workspace child", "", ""});
  ws.appendMetrics(run, points(100, "loss"));
  std::printf("%lld ready\n", static_cast<long long>(run.value));
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::minutes(5));
  return 0;
}

}  // namespace

class TestWorkspace : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  std::string file(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)).toStdString(); }

private slots:
  void createsSchema() {
    const std::string path = file("new.sqlite");
    {
      Workspace ws(path);
      QCOMPARE(ws.schemaVersion(), Workspace::kSchemaVersion);
      QCOMPARE(ws.path().string(), path);
    }
    QCOMPARE(rawInt(path, "PRAGMA application_id"), Workspace::kApplicationId);
    QCOMPARE(rawInt(path, "PRAGMA user_version"), Workspace::kSchemaVersion);
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name IN ('runs', 'ranks', "
                          "'metrics', 'metric_keys', 'events', 'artifacts', 'plans')"),
             7);
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'metrics_by_run_key'"),
             1);
    // WAL is persistent in the file.
    QCOMPARE(rawInt(path, "SELECT journal_mode = 'wal' FROM pragma_journal_mode"), 1);
    // Reopening an up-to-date file changes nothing; a missing file without `create` is an error naming it.
    { Workspace again(path); }
    const std::string missing = file("missing.sqlite");
    const auto message = messageOf([&] { Workspace ws(missing, Workspace::Options{.create = false}); });
    QVERIFY2(contains(message, missing), message.c_str());
    QVERIFY(!std::filesystem::exists(missing));
    // An empty file (touched, never written) is initialised.
    const std::string empty = file("empty.sqlite");
    std::ofstream{empty};
    QCOMPARE(Workspace(empty).schemaVersion(), Workspace::kSchemaVersion);
  }

  void migratesOlderVersion() {
    const std::string path = file("old.sqlite");
    RunId run;
    {
      Workspace ws(path);
      run = ws.createRun({"old", "", "", ""});
      ws.appendMetrics(run, points(10, "loss"));
      ws.finishRun(run, RunStatus::Succeeded, 0);
    }
    // Make it a version-1 file: what versions 2 to 12 added is not there yet (5 added no table; 7's heartbeat columns
    // go with the table).
    rawExec(path, "DROP TABLE hardware_fits; DROP TABLE run_device_maps; DROP TABLE run_plans; DROP TABLE alert_ranks; "
                  "DROP TABLE alerts; "
                  "DROP TABLE plans; DROP INDEX metrics_by_run_key; DROP TABLE heartbeats; DROP TABLE trace_chunks; "
                  "DROP TABLE run_hosts; ALTER TABLE runs DROP COLUMN world_size; ALTER TABLE runs DROP COLUMN "
                  "num_machines; ALTER TABLE runs DROP COLUMN strategy; ALTER TABLE runs DROP COLUMN fsdp_sharding; "
                  "ALTER TABLE runs DROP COLUMN mixed_precision; ALTER TABLE runs DROP COLUMN run_spec; "
                  "ALTER TABLE runs DROP COLUMN slurm_job_id; "
                  "PRAGMA user_version = 1;");
    QCOMPARE(rawInt(path, "PRAGMA user_version"), 1);

    Workspace ws(path);
    QCOMPARE(ws.schemaVersion(), Workspace::kSchemaVersion);
    QCOMPARE(rawInt(path, "PRAGMA user_version"), Workspace::kSchemaVersion);
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'metrics_by_run_key'"), 1);
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('heartbeats', 'trace_chunks')"), 2);
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM sqlite_master WHERE name IN ('alerts', 'alert_ranks')"), 2);
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'run_plans'"), 1);
    QVERIFY(!ws.runPlan(run));                         // a run older than version 8 has no plan
    QCOMPARE(ws.run(run)->slurmJobId, std::string());  // nor a SLURM job (version 10)
    QVERIFY(ws.deviceMaps(run).empty());               // nor device maps (version 11)
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'run_device_maps'"), 1);
    QVERIFY(ws.hardwareFits(run).empty());  // nor hardware fits (version 12)
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'hardware_fits'"), 1);
    QCOMPARE(ws.metricSeries(run, "loss").size(), std::size_t{10});
    // Version 4 derived the run's layout from what it had: no ranks, no configuration: DDP of unknown size.
    QCOMPARE(ws.run(run)->layout.worldSize, 0);
    QVERIFY(ws.run(run)->layout.strategy == RunStrategy{});
    QCOMPARE(name(ws.run(run)->status), name(RunStatus::Succeeded));
    const PlanId plan = ws.savePlan(R"({"model":"gpt2"})", R"({"step_ms":12})");
    QCOMPARE(ws.plans().size(), std::size_t{1});
    QCOMPARE(ws.plans()[0].id, plan);
    QCOMPARE(ws.plans()[0].predictionJson, std::string(R"({"step_ms":12})"));
  }

  void refusesNewerVersion() {
    const std::string path = file("newer.sqlite");
    { Workspace ws(path); }
    rawExec(path, "PRAGMA user_version = 99;");
    const auto message = messageOf([&] { Workspace ws(path); });
    QVERIFY2(contains(message, path), message.c_str());
    QVERIFY2(contains(message, "newer Fathom"), message.c_str());
    QVERIFY2(contains(message, "schema version 99"), message.c_str());
    QVERIFY2(contains(message, "up to " + std::to_string(Workspace::kSchemaVersion)), message.c_str());
    QVERIFY(fathom::test::throwsType<StorageError>([&] { Workspace ws(path); }));
    QCOMPARE(rawInt(path, "PRAGMA user_version"), 99);  // untouched
  }

  void refusesForeignFiles() {
    const std::string other = file("other_app.sqlite");
    rawExec(other,
            "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers VALUES (1, 'x');");
    auto message = messageOf([&] { Workspace ws(other); });
    QVERIFY2(contains(message, other), message.c_str());
    QVERIFY2(contains(message, "not a Fathom workspace"), message.c_str());
    QVERIFY2(contains(message, "customers"), message.c_str());
    QCOMPARE(rawInt(other, "SELECT COUNT(*) FROM customers"), 1);  // left as it was
    QCOMPARE(rawInt(other, "PRAGMA user_version"), 0);

    const std::string tagged = file("tagged.sqlite");
    rawExec(tagged, "PRAGMA application_id = 1234567;");
    message = messageOf([&] { Workspace ws(tagged); });
    QVERIFY2(contains(message, "another application"), message.c_str());
    QVERIFY(fathom::test::throwsType<StorageError>([&] { Workspace ws(tagged); }));
  }

  void refusesCorruptFiles() {
    // Random bytes.
    const std::string noise = file("noise.sqlite");
    {
      std::ofstream out(noise, std::ios::binary);
      for (int i = 0; i < 8192; ++i) {
        out.put(static_cast<char>(QRandomGenerator::global()->bounded(256)));
      }
    }
    auto message = messageOf([&] { Workspace ws(noise); });
    QVERIFY2(contains(message, noise), message.c_str());
    QVERIFY2(contains(message, "not an SQLite database"), message.c_str());

    // A real workspace cut in half.
    const std::string truncated = file("truncated.sqlite");
    {
      Workspace ws(truncated);
      const RunId run = ws.createRun({"big", "", "", ""});
      ws.appendMetrics(run, points(20'000, "loss"));
    }
    QVERIFY(!std::filesystem::exists(truncated + "-wal") || std::filesystem::file_size(truncated + "-wal") == 0);
    const auto size = std::filesystem::file_size(truncated);
    std::filesystem::resize_file(truncated, size / 2);
    message = messageOf([&] { Workspace ws(truncated); });
    QVERIFY2(contains(message, truncated), message.c_str());
    QVERIFY2(contains(message, "truncated"), message.c_str());

    // Pages overwritten with garbage behind an intact header: open or the first read fails with a StorageError.
    const std::string damaged = file("damaged.sqlite");
    RunId run;
    {
      Workspace ws(damaged);
      run = ws.createRun({"big", "", "", ""});
      ws.appendMetrics(run, points(20'000, "loss"));
    }
    {
      std::fstream io(damaged, std::ios::binary | std::ios::in | std::ios::out);
      io.seekp(4096);
      for (std::uintmax_t i = 4096; i < std::filesystem::file_size(damaged); ++i) {
        io.put(static_cast<char>(0xA5));
      }
    }
    message = messageOf([&] {
      Workspace ws(damaged);
      (void)ws.listRuns();
      (void)ws.metricSeries(run, "loss");
    });
    QVERIFY2(contains(message, damaged), message.c_str());
    QVERIFY2(contains(message, "damaged") || contains(message, "malformed"), message.c_str());
  }

  void roundTrip() {
    Workspace ws(file("roundtrip.sqlite"));
    const RunId a = ws.createRun({"alpha", "fathom train --lr 0.1", "yaml", "lr: 0.1\n"});
    const RunId b = ws.createRun({"beta", "", "", ""});
    QVERIFY(b > a);
    QCOMPARE(ws.run(a)->slurmJobId, std::string());
    {
      const RunId job = ws.createRun({.name = "in-a-job", .slurmJobId = "4711"});  // `fathom launch --slurm`
      QCOMPARE(ws.run(job)->slurmJobId, std::string("4711"));
      ws.finishRun(job, RunStatus::Succeeded, 0);
      ws.deleteRun(job);
    }
    ws.upsertRank(a, {0, "hostA", 101, "cuda:0", std::nullopt});
    ws.upsertRank(a, {1, "hostA", 102, "cuda:1", std::nullopt});
    ws.upsertRank(a, {1, "hostA", 102, "cuda:1", 0});  // replaced with its exit code

    std::vector<MetricPoint> batch;
    for (int step = 0; step < 5; ++step) {
      for (int rank = 0; rank < 2; ++rank) {
        batch.push_back({rank, step, 1000.0 + step, "loss", 10.0 - step - rank});
        batch.push_back({rank, step, 1000.0 + step, "lr", 0.1});
      }
    }
    batch.push_back({0, 5, 1005, "grad_norm", std::nan("")});
    ws.appendMetrics(a, batch);
    ws.appendMetrics(b, points(3, "loss"));
    ws.appendEvents(
        a, std::vector<EventRecord>{{0, 1000, LogLevel::Info, "started"}, {1, 1001, LogLevel::Warning, "slow rank"}});
    const ArtifactId art = ws.addArtifact(a, {ArtifactKind::Checkpoint, "/ckpt/step5", 4096});
    ws.finishRun(a, RunStatus::Succeeded, 0);

    const auto runs = ws.listRuns();
    QCOMPARE(runs.size(), std::size_t{2});
    const RunInfo& ra = runs[0];
    QCOMPARE(ra.id, a);
    QCOMPARE(ra.name, std::string("alpha"));
    QCOMPARE(name(ra.status), name(RunStatus::Succeeded));
    QCOMPARE(ra.exitCode, std::optional<int>(0));
    QVERIFY(ra.endedAt && *ra.endedAt >= ra.createdAt);
    QCOMPARE(ra.commandLine, std::string("fathom train --lr 0.1"));
    QCOMPARE(ra.configFormat, std::string("yaml"));
    QCOMPARE(ra.configText, std::string("lr: 0.1\n"));
    QCOMPARE(ra.host, currentHostName());
    QCOMPARE(ra.launcherPid, static_cast<std::int64_t>(getpid()));
    QCOMPARE(name(runs[1].status), name(RunStatus::Running));
    QVERIFY(!runs[1].exitCode);

    const auto ranks = ws.ranks(a);
    QCOMPARE(ranks.size(), std::size_t{2});
    QCOMPARE(ranks[1].device, std::string("cuda:1"));
    QCOMPARE(ranks[1].exitCode, std::optional<int>(0));
    QVERIFY(!ranks[0].exitCode);

    QCOMPARE(ws.metricKeys(a), (std::vector<std::string>{"grad_norm", "loss", "lr"}));
    QCOMPARE(ws.metricKeys(b), (std::vector<std::string>{"loss"}));
    const auto loss = ws.metricSeries(a, "loss");
    QCOMPARE(loss.size(), std::size_t{10});
    QCOMPARE(loss.front().point.rank, 0);
    QCOMPARE(loss.back().point.rank, 1);
    const auto loss1 = ws.metricSeries(a, "loss", 1);
    QCOMPARE(loss1.size(), std::size_t{5});
    QCOMPARE(loss1[2].point.step, std::int64_t{2});
    QCOMPARE(loss1[2].point.value, 7.0);
    QCOMPARE(loss1[2].point.wallTime, 1002.0);
    QCOMPARE(loss1[2].run, a);
    QVERIFY(std::isnan(ws.metricSeries(a, "grad_norm")[0].point.value));
    QVERIFY(ws.metricSeries(a, "missing").empty());

    const auto sums = ws.metricSummaries(a);
    QCOMPARE(sums.size(), std::size_t{5});  // grad_norm r0, loss r0, loss r1, lr r0, lr r1
    QCOMPARE(sums[1].key, std::string("loss"));
    QCOMPARE(sums[1].rank, 0);
    QCOMPARE(sums[1].count, std::int64_t{5});
    QCOMPARE(sums[1].last, 6.0);
    QCOMPARE(sums[1].lastStep, std::int64_t{4});
    QCOMPARE(sums[1].min, 6.0);
    QCOMPARE(sums[1].max, 10.0);
    QCOMPARE(sums[2].last, 5.0);

    const auto events = ws.eventsSince(EventId{0});
    QCOMPARE(events.size(), std::size_t{2});
    QCOMPARE(name(events[1].event.level), name(LogLevel::Warning));
    QCOMPARE(events[1].event.text, std::string("slow rank"));
    QCOMPARE(events[1].event.rank, 1);
    const auto artifacts = ws.artifacts(a);
    QCOMPARE(artifacts.size(), std::size_t{1});
    QCOMPARE(artifacts[0].id, art);
    QCOMPARE(artifacts[0].artifact.path, std::string("/ckpt/step5"));
    QCOMPARE(artifacts[0].artifact.bytes, std::int64_t{4096});

    QCOMPARE(ws.resolveRun("alpha").id, a);
    QCOMPARE(ws.resolveRun(std::to_string(b.value)).id, b);
    QVERIFY(fathom::test::throwsType<ConfigError>([&] { (void)ws.resolveRun("nope"); }));
    QVERIFY(fathom::test::throwsType<ConfigError>([&] { ws.finishRun(RunId{999}, RunStatus::Failed, 1); }));

    // Delete: a running run needs force; everything the run owned goes with it.
    auto message = messageOf([&] { ws.deleteRun(b); });
    QVERIFY2(contains(message, "still running"), message.c_str());
    ws.deleteRun(a);
    QVERIFY(!ws.run(a));
    QVERIFY(ws.metricKeys(a).empty());
    QVERIFY(ws.ranks(a).empty());
    QVERIFY(ws.artifacts(a).empty());
    QVERIFY(ws.eventsSince(EventId{0}).empty());
    QCOMPARE(ws.metricsSince(MetricId{0}).size(), std::size_t{3});  // b's
    ws.deleteRun(b, true);
    QVERIFY(ws.listRuns().empty());
    QVERIFY(fathom::test::throwsType<ConfigError>([&] { ws.deleteRun(b); }));
  }

  // A run's layout is typed columns plus one row per known host: written by createRun, read back by every reader,
  // corrected by a setup report, deleted with the run.
  void runLayoutRoundTrip() {
    const std::string path = file("layout.sqlite");
    Workspace ws(path);
    NewRun spec{"hsdp", "fathom launch ...", "", ""};
    spec.layout.worldSize = 8;
    spec.layout.numMachines = 2;
    spec.layout.strategy = RunStrategy{fathom::plan::Strategy::Fsdp, fathom::plan::FsdpSharding::HybridShard};
    spec.layout.mixedPrecision = "bf16";
    spec.layout.hosts = {"", "node1"};  // machine 1's launcher knows only itself
    const RunId run = ws.createRun(spec);
    QVERIFY(ws.run(run)->layout == spec.layout);
    QVERIFY(ws.listRuns().back().layout == spec.layout);
    QVERIFY(ws.resolveRun("hsdp").layout == spec.layout);
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM run_hosts"), 1);

    // Rank 0's report replaces strategy and precision, nothing else.
    IngestBatch batch;
    batch.setup = RunSetup{RunStrategy{fathom::plan::Strategy::Zero3, {}}, "fp16"};
    ws.append(run, batch);
    RunLayout expected = spec.layout;
    expected.strategy = RunStrategy{fathom::plan::Strategy::Zero3, {}};
    expected.mixedPrecision = "fp16";
    QVERIFY(ws.run(run)->layout == expected);
    QCOMPARE(fathom::store::strategyLabel(*expected.strategy), std::string("zero3"));

    // A default name is numbered with the run's id; a layout left empty reads as unknown.
    NewRun numbered{"train", "", "", ""};
    numbered.numberName = true;
    const RunId second = ws.createRun(numbered);
    QCOMPARE(ws.run(second)->name, "train-" + std::to_string(second.value));
    QVERIFY(ws.run(second)->layout == RunLayout{});
    // A strategy this build does not know (a newer writer's) reads as unknown rather than failing.
    rawExec(path, "UPDATE runs SET strategy = 'pipeline9' WHERE id = " + std::to_string(second.value));
    QVERIFY(!ws.run(second)->layout.strategy);

    ws.finishRun(run, RunStatus::Succeeded, 0);
    ws.deleteRun(run);
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM run_hosts"), 0);
  }

  // Hardware profiles fitted to runs (schema 12): the fits of a host's device and calibration, newest first, are the
  // ones plans choose from; another calibration's, host's or device's fits are not; a run's fits go with it.
  void hardwareFits() {
    const std::string path = file("fits.sqlite");
    Workspace ws(path);
    const RunId first = ws.createRun({"profiled", "", "", ""});
    const RunId second = ws.createRun({"profiled-again", "", "", ""});
    const std::string base = "2026-11-28T10:00:00Z";
    QVERIFY(ws.hardwareFitsOf("h", "cpu", base).empty());
    const HardwareFitId a = ws.addHardwareFit({first, 1.0e9, "h", "cpu", base, "name: a\n"});
    const HardwareFitId b = ws.addHardwareFit({second, 2.0e9, "h", "cpu", base, "name: b\n"});
    ws.addHardwareFit({second, 3.0e9, "h", "cpu", "2026-11-27T10:00:00Z", "name: older calibration\n"});
    ws.addHardwareFit({second, 4.0e9, "other", "cpu", base, "name: other host\n"});
    ws.addHardwareFit({second, 5.0e9, "h", "cuda", base, "name: the GPU\n"});
    QVERIFY(a < b);
    const std::vector<HardwareFitRow> fits = ws.hardwareFitsOf("h", "cpu", base);
    QCOMPARE(fits.size(), std::size_t{2});
    QCOMPARE(fits[0].id, b);
    QCOMPARE(fits[0].fit.run, second);
    QCOMPARE(fits[0].fit.createdAt, 2.0e9);
    QCOMPARE(fits[0].fit.profileYaml, std::string("name: b\n"));
    QCOMPARE(fits[1].id, a);
    QCOMPARE(ws.hardwareFitsOf("h", "cuda", base).at(0).fit.profileYaml, std::string("name: the GPU\n"));
    QCOMPARE(ws.hardwareFits(first).size(), std::size_t{1});
    QCOMPARE(ws.hardwareFits(second).size(), std::size_t{4});
    QVERIFY(fathom::test::throwsType<ConfigError>([&] { ws.addHardwareFit({RunId{999}, 1.0, "h", "cpu", base, ""}); }));

    ws.finishRun(second, RunStatus::Succeeded, 0);
    ws.deleteRun(second);
    QCOMPARE(ws.hardwareFitsOf("h", "cpu", base).size(), std::size_t{1});
    QCOMPARE(ws.hardwareFitsOf("h", "cpu", base).at(0).id, a);
    QCOMPARE(rawInt(path, "SELECT COUNT(*) FROM hardware_fits"), 1);
  }

  void incrementalReads() {
    Workspace ws(file("incremental.sqlite"));
    const RunId run = ws.createRun({"inc", "", "", ""});
    ws.appendMetrics(run, points(100, "loss"));
    auto rows = ws.metricsSince(MetricId{0});
    QCOMPARE(rows.size(), std::size_t{100});
    for (std::size_t i = 1; i < rows.size(); ++i) {
      QVERIFY(rows[i].id > rows[i - 1].id);
    }
    const MetricId cursor = rows.back().id;
    QVERIFY(ws.metricsSince(cursor).empty());
    QCOMPARE(ws.metricsSince(MetricId{0}, 10).size(), std::size_t{10});

    ws.appendMetrics(run, points(5, "acc", 0, 100));
    rows = ws.metricsSince(cursor);
    QCOMPARE(rows.size(), std::size_t{5});
    QCOMPARE(rows[0].point.key, std::string("acc"));
    QCOMPARE(rows[0].point.step, std::int64_t{100});

    // A second connection (the Studio) sees every committed batch, and ids are never reused after a delete.
    Workspace reader(ws.path());
    QCOMPARE(reader.metricsSince(cursor).size(), std::size_t{5});
    const MetricId last = rows.back().id;
    const RunId other = ws.createRun({"other", "", "", ""});
    ws.appendMetrics(other, points(3, "loss"));
    const MetricId otherLast = ws.metricsSince(last).back().id;
    ws.deleteRun(other, true);
    ws.appendMetrics(run, points(1, "loss", 0, 1000));
    rows = reader.metricsSince(last);
    QCOMPARE(rows.size(), std::size_t{1});
    QVERIFY(rows[0].id > otherLast);

    ws.appendEvents(run, std::vector<EventRecord>{{0, 1, LogLevel::Info, "a"}, {0, 2, LogLevel::Error, "b"}});
    const auto events = reader.eventsSince(EventId{0});
    QCOMPARE(events.size(), std::size_t{2});
    ws.appendEvents(run, std::vector<EventRecord>{{0, 3, LogLevel::Debug, "c"}});
    const auto more = reader.eventsSince(events.back().id);
    QCOMPARE(more.size(), std::size_t{1});
    QCOMPARE(more[0].event.text, std::string("c"));
    QCOMPARE(name(more[0].event.level), name(LogLevel::Debug));

    // A batch that fails part way (a NULL wall time violates NOT NULL) leaves nothing behind.
    const MetricId before = ws.metricsSince(MetricId{0}, 1'000'000).back().id;
    auto batch = points(100, "loss", 0, 2000);
    batch.push_back({0, 3000, std::nan(""), "new_key", 1});
    batch.push_back({0, 3001, 1, "loss", 1});
    QVERIFY(fathom::test::throwsType<StorageError>([&] { ws.appendMetrics(run, batch); }));
    QVERIFY(reader.metricsSince(before).empty());
    QCOMPARE(ws.metricKeys(run), (std::vector<std::string>{"acc", "loss"}));
    ws.appendMetrics(run, points(2, "new_key"));  // the interned-key cache did not keep the rolled-back key
    QCOMPARE(ws.metricSeries(run, "new_key").size(), std::size_t{2});
  }

  // The live run page's reads: one run's rows above a cursor, another run's interleaved rows left out.
  void incrementalReadsOfOneRun() {
    Workspace ws(file("incremental_run.sqlite"));
    const RunId a = ws.createRun({"a", "", "", ""});
    const RunId b = ws.createRun({"b", "", "", ""});
    ws.appendMetrics(a, points(3, "loss"));
    ws.appendMetrics(b, points(4, "loss"));
    ws.appendMetrics(a, points(2, "acc"));
    auto rows = ws.metricsSince(a, MetricId{0});
    QCOMPARE(rows.size(), std::size_t{5});
    for (const auto& r : rows) {
      QCOMPARE(r.run, a);
    }
    QCOMPARE(rows[3].point.key, std::string("acc"));
    QCOMPARE(ws.metricsSince(a, rows[2].id).size(), std::size_t{2});
    QCOMPARE(ws.metricsSince(a, MetricId{0}, 2).size(), std::size_t{2});
    QVERIFY(ws.metricsSince(a, rows.back().id).empty());
    QCOMPARE(ws.metricsSince(b, MetricId{0}).size(), std::size_t{4});

    ws.appendEvents(a, std::vector<EventRecord>{{0, 1, LogLevel::Info, "a1"}});
    ws.appendEvents(b, std::vector<EventRecord>{{0, 1, LogLevel::Info, "b1"}});
    ws.appendEvents(a, std::vector<EventRecord>{{1, 2, LogLevel::Warning, "a2"}});
    const auto events = ws.eventsSince(a, EventId{0});
    QCOMPARE(events.size(), std::size_t{2});
    QCOMPARE(events[1].event.text, std::string("a2"));
    QCOMPARE(ws.eventsSince(a, events[0].id).size(), std::size_t{1});
    QCOMPARE(ws.eventsSince(b, EventId{0}).size(), std::size_t{1});
  }

  void reconcileMarksKilledLauncherLost() {
    const std::string path = file("reconcile.sqlite");
    { Workspace init(path); }
    QProcess child;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QString::fromUtf8(kChildEnv), QString::fromStdString(path));
    child.setProcessEnvironment(env);
    child.start(QCoreApplication::applicationFilePath(), {});
    QVERIFY(child.waitForStarted());
    QByteArray line;
    QElapsedTimer timer;
    timer.start();
    while (!line.contains("ready") && timer.elapsed() < 30'000) {
      child.waitForReadyRead(1000);
      line += child.readAllStandardOutput();
    }
    QVERIFY2(line.contains("ready"), child.readAllStandardError().constData());
    const RunId run{line.split(' ').first().toLongLong()};

    {
      Workspace ws(path);  // reconciles: the child is alive, so its run stays running
      QCOMPARE(name(ws.run(run)->status), name(RunStatus::Running));
      QCOMPARE(ws.run(run)->launcherPid, static_cast<std::int64_t>(child.processId()));
    }
    ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
    QVERIFY(child.waitForFinished(10'000));

    Workspace ws(path);
    const auto info = ws.run(run);
    QCOMPARE(name(info->status), name(RunStatus::Lost));
    QVERIFY(info->endedAt.has_value());
    QVERIFY(!info->exitCode);
    QCOMPARE(ws.metricSeries(run, "loss").size(), std::size_t{100});  // what it committed is kept
    QVERIFY(ws.reconcile().empty());                                  // idempotent

    // A recycled pid (same pid, another start time) is not the launcher; another host cannot be checked.
    ProcessIdentity recycled = ProcessIdentity::current();
    recycled.startTime += 1;
    const RunId impostor = ws.createRun({"recycled", "", "", ""}, recycled);
    ProcessIdentity remote = ProcessIdentity::current();
    remote.host = "some-other-host.invalid";
    remote.pid = 1;
    const RunId elsewhere = ws.createRun({"remote", "", "", ""}, remote);
    const RunId mine = ws.createRun({"mine", "", "", ""});
    QCOMPARE(ws.reconcile(), std::vector<RunId>{impostor});
    QCOMPARE(name(ws.run(impostor)->status), name(RunStatus::Lost));
    QCOMPARE(name(ws.run(elsewhere)->status), name(RunStatus::Running));
    QCOMPARE(name(ws.run(mine)->status), name(RunStatus::Running));
  }

  void appendThroughput() {
    // Target: >= 200,000 points/s into a WAL file in batches. Best of a few rounds, bounded to a few seconds; the
    // assertion is a loose floor so a loaded CI machine does not fail it, the number is printed.
    Workspace ws(file("throughput.sqlite"));
    const RunId run = ws.createRun({"throughput", "", "", ""});
    const std::vector<std::string> keys{"loss", "lr", "grad_norm", "tokens_per_s", "gpu_mem"};
    constexpr int kBatch = 10'000;
    std::vector<MetricPoint> batch(kBatch);
    double best = 0;
    std::int64_t step = 0;
    QElapsedTimer total;
    total.start();
    for (int round = 0; round < 5 && total.elapsed() < 8'000; ++round) {
      QElapsedTimer timer;
      timer.start();
      constexpr int kBatches = 20;
      for (int b = 0; b < kBatches; ++b) {
        for (int i = 0; i < kBatch; ++i) {
          auto& p = batch[static_cast<std::size_t>(i)];
          p.rank = i % 8;
          p.step = step + i / 40;
          p.wallTime = 1.7e9 + static_cast<double>(step);
          p.key = keys[static_cast<std::size_t>(i / 8) % keys.size()];
          p.value = 0.001 * i;
        }
        step += kBatch / 40;
        ws.appendMetrics(run, batch);
      }
      const double seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
      best = std::max(best, kBatches * kBatch / seconds);
    }
    qInfo("appendMetrics: %.0f points/s (best round of %d-point batches; target 200000)", best, kBatch);
    QCOMPARE(ws.metricsSince(MetricId{0}, 10).size(), std::size_t{10});
#if !defined(__OPTIMIZE__) || defined(__SANITIZE_ADDRESS__)
    QSKIP("the throughput target applies to optimized builds without sanitizers (the number is reported above)");
#endif
    QVERIFY2(best >= 50'000, "appendMetrics is far below its 200,000 points/s target");
  }
};

int main(int argc, char** argv) {
  if (const char* path = std::getenv(kChildEnv)) {
    return childMain(path);
  }
  QCoreApplication app(argc, argv);
  TestWorkspace test;
  return QTest::qExec(&test, argc, argv);
}

#include "tst_workspace.moc"
