// SPDX-License-Identifier: Apache-2.0
// `fathom launch --json` as a program reads it, and what a launch records of itself: JSON lines on stdout (checked
// here with Qt's own JSON parser against docs/launch.md, not with the core's writer), the workers' output on
// stderr; the run's name (default, --run_name, FATHOM_RUN_NAME, fathom.run_name), the launcher's whole command line
// and the run's typed layout, read back from the workspace.
#include "cli_runner.h"

#include <fathom/store/workspace.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace fathom;
using fathom::test::CliRun;
using fathom::test::describe;

namespace {

/// Every line of standard output as a JSON object; an empty list (and a failed QVERIFY in the caller) when one is
/// not.
QList<QJsonObject> jsonLines(const CliRun& r) {
  QList<QJsonObject> out;
  for (const QByteArray& line : r.out.split('\n')) {
    if (line.isEmpty()) {
      continue;
    }
    const QJsonDocument doc = QJsonDocument::fromJson(line);
    if (!doc.isObject()) {
      qWarning("not a JSON object: %s", line.constData());
      return {};
    }
    out.append(doc.object());
  }
  return out;
}

QStringList events(const QList<QJsonObject>& lines) {
  QStringList out;
  for (const QJsonObject& line : lines) {
    out << line.value(u"event"_s).toString();
  }
  return out;
}

}  // namespace

class TestLaunchJson : public QObject {
  Q_OBJECT

  QTemporaryDir m_dir;
  QString m_workspace;

  CliRun launch(const QStringList& args, const QMap<QString, QString>& env = {}) {
    QProcessEnvironment e = fathom::test::launcherFreeEnvironment();
    e.insert(u"OMP_NUM_THREADS"_s, u"1"_s);
    e.insert(u"XDG_CACHE_HOME"_s, m_dir.filePath(u"no-config"_s));  // no default config file
    e.insert(u"HF_HOME"_s, m_dir.filePath(u"no-config/hf"_s));
    e.remove(u"FATHOM_RUN_NAME"_s);
    for (auto it = env.begin(); it != env.end(); ++it) {
      e.insert(it.key(), it.value());
    }
    return fathom::test::runFathom(QStringList{u"launch"_s, u"--workspace"_s, m_workspace} + args, e, {}, 120'000);
  }

  store::RunInfo lastRun() const {
    const store::Workspace ws(m_workspace.toStdString(), {.create = false, .reconcile = false});
    return ws.listRuns().back();
  }

private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    m_workspace = m_dir.filePath(u"ws.sqlite"_s);
    fathom::test::useWorkspaceIn(m_dir);
  }

  // Standard output holds only the JSON lines, in order: run, each rank's start and end, finished. The workers'
  // stdout and stderr lines go to the launcher's stderr, with or without --quiet.
  void linesOnStdoutWorkersOnStderr_data() {
    QTest::addColumn<bool>("quiet");
    QTest::newRow("notes") << false;
    QTest::newRow("quiet") << true;
  }
  void linesOnStdoutWorkersOnStderr() {
    QFETCH(bool, quiet);
    QStringList args{u"--json"_s, u"--num_processes"_s, u"2"_s};
    if (quiet) {
      args << u"--quiet"_s;
    }
    const CliRun r = launch(args + QStringList{u"sh"_s, u"-c"_s, u"echo out $RANK; echo err $RANK >&2"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const QList<QJsonObject> lines = jsonLines(r);
    QCOMPARE(lines.size(), 6);
    QCOMPARE(events(lines).first(), u"run"_s);
    QCOMPARE(events(lines).last(), u"finished"_s);
    QCOMPARE(events(lines).count(u"rank_started"_s), 2);
    QCOMPARE(events(lines).count(u"rank_ended"_s), 2);

    const store::RunInfo recorded = lastRun();
    const QJsonObject run = lines.first();
    QCOMPARE(run.value(u"version"_s).toInt(), 1);
    QCOMPARE(run.value(u"run_id"_s).toInteger(), recorded.id.value);
    QCOMPARE(run.value(u"name"_s).toString(), QString::fromStdString(recorded.name));
    QCOMPARE(run.value(u"workspace"_s).toString(), m_workspace);
    QCOMPARE(run.value(u"world_size"_s).toInt(), 2);
    QCOMPARE(run.value(u"ranks"_s).toArray(), (QJsonArray{0, 1}));
    for (const QJsonObject& line : lines) {
      if (line.value(u"event"_s) == u"rank_ended"_s) {
        QCOMPARE(line.value(u"exit_code"_s).toInt(-1), 0);
        QVERIFY(line.value(u"signal"_s).isNull());
        QVERIFY(line.value(u"pid"_s).toInteger() > 0);
      }
    }
    const QJsonObject finished = lines.last();
    QCOMPARE(finished.value(u"run_id"_s).toInteger(), recorded.id.value);
    QCOMPARE(finished.value(u"status"_s).toString(), u"succeeded"_s);
    QCOMPARE(finished.value(u"exit_code"_s).toInt(-1), 0);
    QCOMPARE(finished.value(u"attempts"_s).toInt(), 1);
    QVERIFY(store::toString(recorded.status) == "succeeded");

    QVERIFY2(!r.out.contains("[rank"), r.out.constData());
    QVERIFY2(r.err.contains("[rank0]: out 0\n") && r.err.contains("[rank1]: err 1\n"), r.err.constData());
    QCOMPARE(r.err.contains("fathom launch: run "), !quiet);  // the line for people, which --quiet hides
  }

  // A failing rank, a killed rank and an error before the run exists are data too.
  void failuresAreEvents() {
    CliRun r = launch({u"--json"_s, u"--num_processes"_s, u"2"_s, u"sh"_s, u"-c"_s,
                       u"if [ $RANK = 1 ]; then exit 3; fi; sleep 30"_s});
    QCOMPARE(r.exitCode, 3);
    QList<QJsonObject> lines = jsonLines(r);
    QVERIFY2(!lines.isEmpty(), qPrintable(describe(r)));
    QCOMPARE(lines.last().value(u"event"_s).toString(), u"finished"_s);
    QCOMPARE(lines.last().value(u"status"_s).toString(), u"failed"_s);
    QCOMPARE(lines.last().value(u"exit_code"_s).toInt(), 3);
    QCOMPARE(lines.last().value(u"failed_rank"_s).toInt(-1), 1);

    r = launch({u"--json"_s, u"sh"_s, u"-c"_s, u"kill -9 $$"_s});
    QCOMPARE(r.exitCode, 137);
    lines = jsonLines(r);
    QVERIFY2(lines.size() == 4, qPrintable(describe(r)));
    QCOMPARE(lines[2].value(u"event"_s).toString(), u"rank_ended"_s);
    QCOMPARE(lines[2].value(u"signal"_s).toInt(), 9);
    QCOMPARE(lines[2].value(u"exit_code"_s).toInt(), 137);

    const QString notAWorkspace = m_dir.filePath(u"not-a-workspace.txt"_s);
    QFile f(notAWorkspace);
    QVERIFY(f.open(QIODevice::WriteOnly) && f.write("plain text, not SQLite\n") > 0);
    f.close();
    r = fathom::test::runFathom({u"launch"_s, u"--json"_s, u"--workspace"_s, notAWorkspace, u"true"_s});
    QCOMPARE(r.exitCode, 1);
    lines = jsonLines(r);
    QCOMPARE(lines.size(), 1);
    QCOMPARE(lines[0].value(u"event"_s).toString(), u"error"_s);
    QVERIFY(lines[0].value(u"message"_s).toString().contains(u"not a Fathom workspace"_s));
  }

  // Every run was "fathom train" and its record dropped the launcher's flags.
  void runsAreNamedAndKeepTheLaunchersFlags() {
    CliRun r = launch({u"--num_processes"_s, u"2"_s, u"--max_restarts"_s, u"0"_s, u"sh"_s, u"-c"_s, u"exit 0"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    store::RunInfo run = lastRun();
    QCOMPARE(run.name, "sh-" + std::to_string(run.id.value));
    QCOMPARE(QString::fromStdString(run.commandLine), fathom::test::fathomExecutable() + u" launch --workspace "_s +
                                                          m_workspace +
                                                          u" --num_processes 2 --max_restarts 0 sh -c 'exit 0'"_s);

    r = launch({u"--run_name"_s, u"lr 0.1, fsdp"_s, u"true"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QCOMPARE(lastRun().name, std::string("lr 0.1, fsdp"));
    QVERIFY2(r.err.contains("(lr 0.1, fsdp)"), r.err.constData());
    launch({u"true"_s}, {{u"FATHOM_RUN_NAME"_s, u"from-environment"_s}});
    QCOMPARE(lastRun().name, std::string("from-environment"));
    const QString config = m_dir.filePath(u"named.yaml"_s);
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly) &&
            file.write("distributed_type: NO\nfathom:\n  run_name: from-config\n") > 0);
    file.close();
    launch({u"--config_file"_s, config, u"true"_s});
    QCOMPARE(lastRun().name, std::string("from-config"));
    launch({u"--config_file"_s, config, u"--run_name"_s, u"flag-wins"_s, u"true"_s},
           {{u"FATHOM_RUN_NAME"_s, u"from-environment"_s}});
    QCOMPARE(lastRun().name, std::string("flag-wins"));
    r = launch({u"--run_name"_s, u" "_s, u"true"_s});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("run name"), r.err.constData());

    // `fathom runs` shows and finds runs by these names.
    r = fathom::test::runFathom({u"runs"_s, u"list"_s, u"--workspace"_s, m_workspace});
    QVERIFY2(r.out.contains("lr 0.1, fsdp") && r.out.contains("from-config"), r.out.constData());
    r = fathom::test::runFathom({u"runs"_s, u"show"_s, u"from-environment"_s, u"--workspace"_s, m_workspace});
    QVERIFY2(r.exitCode == 0 && r.out.contains("\"from-environment\""), qPrintable(describe(r)));
  }

  // The strategy is a typed column: the launcher records what it selected, and rank 0 corrects it with what it
  // trains with (here `fathom train --strategy zero2` under a launcher that selected nothing).
  void layoutIsRecordedTyped() {
    const CliRun r = launch({u"--num_processes"_s,
                             u"2"_s,
                             u"--cpu"_s,
                             u"--mixed_precision"_s,
                             u"no"_s,
                             fathom::test::fathomExecutable(),
                             u"train"_s,
                             u"--model"_s,
                             u"mlp"_s,
                             u"--hidden"_s,
                             u"16"_s,
                             u"--layers"_s,
                             u"2"_s,
                             u"--num_samples"_s,
                             u"64"_s,
                             u"--strategy"_s,
                             u"zero2"_s,
                             u"--steps"_s,
                             u"2"_s,
                             u"--log_every"_s,
                             u"1"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const store::RunInfo run = lastRun();
    QCOMPARE(run.name, "train-" + std::to_string(run.id.value));
    QCOMPARE(run.layout.worldSize, 2);
    QCOMPARE(run.layout.numMachines, 1);
    QVERIFY(run.layout.strategy == (store::RunStrategy{plan::Strategy::Zero2, {}}));
    QCOMPARE(run.layout.mixedPrecision, std::string("no"));
    QCOMPARE(run.layout.hosts, std::vector<std::string>{run.host});
  }
};

QTEST_GUILESS_MAIN(TestLaunchJson)
#include "tst_launch_json.moc"
