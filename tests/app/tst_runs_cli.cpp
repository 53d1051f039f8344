// SPDX-License-Identifier: Apache-2.0
// `fathom runs list|show|compare|export|delete` on a workspace the test writes through core/store: JSON shapes,
// text tables, CSV and JSON-lines exports, deletion rules, and errors (missing run, missing or foreign workspace).
#include "cli_runner.h"

#include <fathom/store/workspace.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdlib>

using namespace Qt::StringLiterals;
using namespace fathom::store;

namespace {
using Run = fathom::test::CliRun;
using fathom::test::runFathom;

using fathom::test::describe;

QJsonDocument parse(const Run& r) {
  return fathom::test::stdoutJson(r);
}
}  // namespace

class TestRunsCli : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_ws;
  RunId m_first;
  RunId m_second;
  RunId m_running;

  Run runs(QStringList args) {
    args.prepend(u"runs"_s);
    args << u"--workspace"_s << m_ws;
    return runFathom(args);
  }

private slots:
  void initTestCase() {
    m_ws = m_dir.filePath(u"fathom.sqlite"_s);
    Workspace ws(m_ws.toStdString());
    m_first = ws.createRun({"baseline", "fathom train --lr 0.1", "yaml", "lr: 0.1\n"});
    m_second = ws.createRun({"tuned", "fathom train --lr 0.05", "yaml", "lr: 0.05\n"});
    std::vector<MetricPoint> a;
    std::vector<MetricPoint> b;
    for (int step = 0; step < 10; ++step) {
      for (int rank = 0; rank < 2; ++rank) {
        a.push_back({rank, step, 1000.0 + step, "loss", 5.0 - 0.25 * step + rank});
        b.push_back({rank, step, 2000.0 + step, "loss", 4.0 - 0.25 * step + rank});
      }
      a.push_back({0, step, 1000.0 + step, "lr", 0.1});
    }
    b.push_back({0, 9, 2009, "acc,top1", 0.5});  // a key that needs CSV quoting, only in the second run
    ws.appendMetrics(m_first, a);
    ws.appendMetrics(m_second, b);
    ws.upsertRank(m_first, {0, "hostA", 11, "cuda:0", 0});
    ws.upsertRank(m_first, {1, "hostA", 12, "cuda:1", 0});
    ws.addArtifact(m_first, {ArtifactKind::Checkpoint, "/ckpt/final", 123});
    IngestBatch telemetry;  // what the collector writes: heartbeats and trace chunks
    telemetry.heartbeats = {{0, 1009.5, 9}, {1, 1009.25, 9}};
    telemetry.traces = {{0, "trace.json", 1001, "{\"traceEvents\":["}, {0, "trace.json", 1002, "]}"}};
    ws.append(m_first, telemetry);
    ws.finishRun(m_first, RunStatus::Succeeded, 0);
    ws.finishRun(m_second, RunStatus::Failed, 3);
    m_running = ws.createRun({"live", "", "", ""});  // launched by this (living) test process
  }

  void list() {
    Run r = runs({u"list"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonArray all = parse(r).array();
    QCOMPARE(all.size(), 3);
    QCOMPARE(all[0].toObject().value(u"name"_s).toString(), u"baseline"_s);
    QCOMPARE(all[0].toObject().value(u"status"_s).toString(), u"succeeded"_s);
    QCOMPARE(all[1].toObject().value(u"status"_s).toString(), u"failed"_s);
    QCOMPARE(all[1].toObject().value(u"exit_code"_s).toInt(), 3);
    QCOMPARE(all[2].toObject().value(u"status"_s).toString(), u"running"_s);  // its launcher (us) is alive
    QVERIFY(all[2].toObject().value(u"exit_code"_s).isNull());

    r = runs({u"list"_s});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("STATUS"));
    QVERIFY(r.out.contains("baseline"));
    QVERIFY(r.out.contains("succeeded"));
    QVERIFY(r.out.contains("tuned"));
  }

  void show() {
    Run r = runs({u"show"_s, QString::number(m_first.value), u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject o = parse(r).object();
    QCOMPARE(o.value(u"name"_s).toString(), u"baseline"_s);
    QCOMPARE(o.value(u"config_text"_s).toString(), u"lr: 0.1\n"_s);
    QCOMPARE(o.value(u"ranks"_s).toArray().size(), 2);
    QCOMPARE(o.value(u"artifacts"_s).toArray()[0].toObject().value(u"path"_s).toString(), u"/ckpt/final"_s);
    const QJsonArray metrics = o.value(u"metrics"_s).toArray();
    QCOMPARE(metrics.size(), 3);  // loss r0, loss r1, lr r0
    const QJsonObject loss1 = metrics[1].toObject();
    QCOMPARE(loss1.value(u"key"_s).toString(), u"loss"_s);
    QCOMPARE(loss1.value(u"rank"_s).toInt(), 1);
    QCOMPARE(loss1.value(u"count"_s).toInt(), 10);
    QCOMPARE(loss1.value(u"last"_s).toDouble(), 6.0 - 0.25 * 9);
    QCOMPARE(loss1.value(u"min"_s).toDouble(), 6.0 - 0.25 * 9);
    QCOMPARE(loss1.value(u"max"_s).toDouble(), 6.0);
    QCOMPARE(loss1.value(u"last_step"_s).toInt(), 9);
    const QJsonArray heartbeats = o.value(u"heartbeats"_s).toArray();
    QCOMPARE(heartbeats.size(), 2);
    QCOMPARE(heartbeats[1].toObject().value(u"rank"_s).toInt(), 1);
    QCOMPARE(heartbeats[1].toObject().value(u"step"_s).toInt(), 9);
    const QJsonObject trace = o.value(u"traces"_s).toArray()[0].toObject();
    QCOMPARE(trace.value(u"name"_s).toString(), u"trace.json"_s);
    QCOMPARE(trace.value(u"chunks"_s).toInt(), 2);
    QCOMPARE(trace.value(u"bytes"_s).toInt(), 18);
    r = runs({u"show"_s, u"baseline"_s});
    QVERIFY(r.out.contains("Heartbeats"));
    QVERIFY(r.out.contains("Traces"));
    QVERIFY(r.out.contains("trace.json"));

    // By name, as text.
    r = runs({u"show"_s, u"tuned"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(r.out.contains("\"tuned\": failed"));
    QVERIFY(r.out.contains("exit code"));
    QVERIFY(r.out.contains("loss"));
    QVERIFY(r.out.contains("acc,top1"));
  }

  void compare() {
    Run r = runs({u"compare"_s, u"baseline"_s, u"tuned"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject o = parse(r).object();
    QCOMPARE(o.value(u"a"_s).toObject().value(u"name"_s).toString(), u"baseline"_s);
    const QJsonArray rows = o.value(u"metrics"_s).toArray();
    QCOMPARE(rows.size(), 4);  // acc,top1 r0; loss r0; loss r1; lr r0
    QCOMPARE(rows[0].toObject().value(u"key"_s).toString(), u"acc,top1"_s);
    QVERIFY(rows[0].toObject().value(u"a"_s).isNull());
    QCOMPARE(rows[0].toObject().value(u"b"_s).toDouble(), 0.5);
    QCOMPARE(rows[1].toObject().value(u"a"_s).toDouble(), 5.0 - 0.25 * 9);
    QCOMPARE(rows[1].toObject().value(u"b"_s).toDouble(), 4.0 - 0.25 * 9);
    QVERIFY(rows[3].toObject().value(u"b"_s).isNull());

    r = runs({u"compare"_s, QString::number(m_first.value), QString::number(m_second.value)});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(r.out.contains("B - A"));
    QVERIFY(r.out.contains("-1"));  // loss dropped by 1 between the runs
  }

  // Three runs recorded with specifications: only the keys that differ, a summary per run, in JSON and text.
  void compareShowsConfigurationDiff() {
    const QString path = m_dir.filePath(u"specs.sqlite"_s);
    {
      Workspace ws(path.toStdString());
      for (const char* processes : {"2", "2", "4"}) {
        NewRun run{std::string("spec-") + processes, "fathom launch", "", ""};
        run.runSpec = std::string("distributed_type: MULTI_CPU\nnum_processes: ") + processes + "\n";
        run.layout.worldSize = std::atoi(processes);
        const RunId id = ws.createRun(run);
        ws.appendMetrics(id, std::vector<MetricPoint>{{0, 1, 1.0, "steps_per_second", 3.0},
                                                      {0, 1, 1.0, "memory/peak_allocated_bytes", 4096.0},
                                                      {0, 2, 2.0, "loss", 0.5}});
        ws.finishRun(id, RunStatus::Succeeded, 0);
      }
    }
    Run r = runFathom({u"runs"_s, u"compare"_s, u"1"_s, u"2"_s, u"3"_s, u"--json"_s, u"--workspace"_s, path});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QJsonObject o = parse(r).object();
    QCOMPARE(o.value(u"runs"_s).toArray().size(), 3);
    const QJsonArray diff = o.value(u"config_diff"_s).toArray();
    QCOMPARE(diff.size(), 1);
    QCOMPARE(diff[0].toObject().value(u"key"_s).toString(), u"num_processes"_s);
    QCOMPARE(diff[0].toObject().value(u"values"_s).toArray(), (QJsonArray{u"2"_s, u"2"_s, u"4"_s}));
    const QJsonObject summary = o.value(u"summary"_s).toArray().at(2).toObject();
    QCOMPARE(summary.value(u"world_size"_s).toInt(), 4);
    QCOMPARE(summary.value(u"steps_per_second"_s).toDouble(), 3.0);
    QCOMPARE(summary.value(u"final_loss"_s).toDouble(), 0.5);
    QCOMPARE(summary.value(u"peak_memory"_s).toArray().at(0).toObject().value(u"device_bytes"_s).toDouble(), 4096.0);
    QCOMPARE(o.value(u"metrics"_s).toArray().at(0).toObject().value(u"values"_s).toArray().size(), 3);

    r = runFathom({u"runs"_s, u"compare"_s, u"1"_s, u"2"_s, u"--workspace"_s, path});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(r.out.contains("Configuration differences: none"));
    r = runFathom({u"runs"_s, u"compare"_s, u"1"_s, u"3"_s, u"--workspace"_s, path});
    QVERIFY(r.out.contains("num_processes"));
    QVERIFY(r.out.contains("4.0 KiB"));
    r = runFathom({u"runs"_s, u"compare"_s, u"1"_s, u"--workspace"_s, path});
    QCOMPARE(r.exitCode, 114);  // CLI11's ArgumentMismatch: a usage error, not a crash (any non-zero code passed)
    QVERIFY2(r.err.contains("At least 2 required but received 1"), r.err.constData());
  }

  void exportCsv() {
    const QString out = m_dir.filePath(u"tuned.csv"_s);
    const Run r = runs({u"export"_s, u"tuned"_s, u"--format"_s, u"csv"_s, u"--output"_s, out});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QFile f(out);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    QCOMPARE(lines.size(), 1 + 21);
    QCOMPARE(lines[0], QByteArray("run_id,rank,step,wall_time,key,value"));
    QCOMPARE(lines[1], QByteArray::number(m_second.value) + ",0,0,2000,loss,4");
    QCOMPARE(lines[21], QByteArray::number(m_second.value) + ",0,9,2009,\"acc,top1\",0.5");
    QVERIFY(!QFile::exists(out + u".partial"_s));
  }

  void exportJsonl() {
    const Run r = runs({u"export"_s, QString::number(m_first.value), u"--format"_s, u"jsonl"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QList<QByteArray> lines = r.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 30);
    double sum = 0;
    for (const auto& line : lines) {
      const QJsonObject o = QJsonDocument::fromJson(line).object();
      QCOMPARE(o.value(u"run_id"_s).toInteger(), m_first.value);
      QVERIFY(o.contains(u"rank"_s) && o.contains(u"step"_s) && o.contains(u"wall_time"_s) && o.contains(u"key"_s));
      sum += o.value(u"value"_s).toDouble();
    }
    double expected = 0;
    for (int step = 0; step < 10; ++step) {
      expected += (5.0 - 0.25 * step) + (6.0 - 0.25 * step) + 0.1;
    }
    QCOMPARE(sum, expected);

    const Run bad = runs({u"export"_s, u"baseline"_s, u"--format"_s, u"xml"_s});
    QCOMPARE(bad.exitCode, 105);  // CLI11's ValidationError
    QVERIFY2(bad.err.contains("--format: xml not in {csv,jsonl}"), bad.err.constData());
    QVERIFY(bad.out.isEmpty());
  }

  void deleteRuns() {
    // Running: refused without --force.
    Run r = runs({u"delete"_s, QString::number(m_running.value)});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("still running"), r.err.constData());
    r = runs({u"delete"_s, u"tuned"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY(r.out.contains("Deleted run"));
    r = runs({u"delete"_s, QString::number(m_running.value), u"--force"_s, u"--json"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(parse(r).object().value(u"deleted"_s).toInteger(), m_running.value);

    r = runs({u"list"_s, u"--json"_s});
    const QJsonArray all = parse(r).array();
    QCOMPARE(all.size(), 1);
    QCOMPARE(all[0].toObject().value(u"name"_s).toString(), u"baseline"_s);
  }

  void errors() {
    Run r = runs({u"show"_s, u"no-such-run"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no run \"no-such-run\""), r.err.constData());
    r = runs({u"delete"_s, u"4242"_s});
    QCOMPARE(r.exitCode, 2);

    const QString missing = m_dir.filePath(u"missing.sqlite"_s);
    r = runFathom({u"runs"_s, u"list"_s, u"--workspace"_s, missing});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no workspace at"), r.err.constData());
    QVERIFY(!QFile::exists(missing));

    const QString foreign = m_dir.filePath(u"notes.txt"_s);
    QFile f(foreign);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4096, 'x'));
    f.close();
    r = runFathom({u"runs"_s, u"list"_s, u"--workspace"_s, foreign});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("not a Fathom workspace"), r.err.constData());
    QVERIFY2(r.err.contains(foreign.toUtf8()), r.err.constData());

    r = runFathom({u"runs"_s});
    QCOMPARE(r.exitCode, 106);  // CLI11's RequiredError
    QVERIFY2(r.err.contains("A subcommand is required"), r.err.constData());

    // Issue 20: names from outside are quoted escaped, in errors and in tables: no escape sequence reaches the
    // terminal (the ESC of a run name cleared the screen).
    r = runs({u"show"_s, u"\x1b[2Jnope"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("no run \"\\x1b[2Jnope\""), r.err.constData());
    QVERIFY2(!r.err.contains('\x1b'), r.err.constData());
    {
      Workspace ws(m_ws.toStdString());
      const RunId hostile = ws.createRun({"\x1b[2J\x1b[Hclear", "", "", ""});  // a name that would clear the screen
      ws.finishRun(hostile, RunStatus::Failed, 1);
    }
    r = runs({u"list"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(r.out.contains("\\x1b[2J\\x1b[Hclear"), r.out.constData());
    QVERIFY2(!r.out.contains('\x1b'), r.out.constData());
  }
};

QTEST_GUILESS_MAIN(TestRunsCli)
#include "tst_runs_cli.moc"
