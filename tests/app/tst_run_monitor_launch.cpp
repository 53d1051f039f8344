// SPDX-License-Identifier: Apache-2.0
// The launcher's run monitor end to end (docs/launch.md, "Hang and straggler detection"): real `fathom launch` of
// two collective_program ranks on Gloo (127.0.0.1), the real collector and workspace.
// - rank 1 skips one all_reduce: a hang alert within the timeout + 5 s names rank 1 behind and the all_reduce (its
//   sequence number) rank 0 waits in; the config file's fathom.hang_action abort (what the Studio's wizard writes;
//   its fathom.hang_timeout is overridden by --hang_timeout 3) then stops the group: the run ends failed, no worker
//   survives, and `fathom runs show` / `runs watch --once --json` list the alert;
// - rank 1 sleeps 80 ms more per step: flagged as a straggler; an even run: no alert.
#include "cli_runner.h"

#include <fathom/config/config_reader.h>
#include <fathom/config/run_spec.h>
#include <fathom/store/workspace.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

#include <sys/types.h>

using namespace Qt::StringLiterals;
using fathom::test::describe;
using fathom::test::fathomExecutable;
using fathom::test::runFathom;

namespace {

QString program() {
  return QStringLiteral(FATHOM_COLLECTIVE_PROGRAM);
}

/// The JSON lines of `fathom launch --json` whose event is `event`.
QList<QJsonObject> linesOf(const QByteArray& out, const QString& event) {
  QList<QJsonObject> found;
  for (const QByteArray& line : out.split('\n')) {
    const QJsonObject o = QJsonDocument::fromJson(line).object();
    if (o.value(u"event"_s).toString() == event) {
      found.push_back(o);
    }
  }
  return found;
}

bool processExists(qint64 pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH);
}

fathom::test::CliRun launch(const QString& workspace, const QStringList& launcherFlags, const QStringList& args) {
  QStringList all{u"launch"_s, u"--num_processes"_s, u"2"_s, u"--json"_s, u"--workspace"_s, workspace};
  all += launcherFlags;
  all += program();
  all += args;
  return runFathom(all, fathom::test::launcherFreeEnvironment(), {}, 180'000);
}

}  // namespace

class TestRunMonitorLaunch : public QObject {
  Q_OBJECT

private slots:
  void aSkippedAllReduceIsReportedAsAHangAndStopsTheGroup() {
    QTemporaryDir dir;
    const QString ws = dir.filePath(u"runs.sqlite"_s);
    const double timeout = 3;
    // The file's keys reach the launcher (as from the Studio, which passes only --config_file), the flag beats the
    // file's timeout (flag > environment > file).
    const QString config = dir.filePath(u"monitor.yaml"_s);
    QFile file(config);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("distributed_type: MULTI_CPU\nnum_processes: 2\nfathom:\n  hang_timeout: 1000\n  hang_action: abort\n");
    file.close();
    const auto r = launch(ws, {u"--config_file"_s, config, u"--hang_timeout"_s, u"3"_s},
                          {u"--steps"_s, u"30"_s, u"--skip_rank"_s, u"1"_s, u"--skip_step"_s, u"5"_s});
    // Stopped by the launcher: SIGTERM's exit code, the run failed (not lost).
    QVERIFY2(r.exitCode == 128 + SIGTERM, qPrintable(describe(r)));
    const auto alerts = linesOf(r.out, u"alert"_s);
    QVERIFY2(alerts.size() == 1, qPrintable(describe(r)));  // one alert per episode
    const QJsonObject alert = alerts.front();
    QCOMPARE(alert.value(u"kind"_s).toString(), u"hang"_s);
    QCOMPARE(alert.value(u"behind"_s).toArray(), QJsonArray{1});
    // Rank 0 waits in the all_reduce of step 5: its 5th call (sequence 4; nothing else is collective here).
    const QJsonObject waiting = alert.value(u"waiting_in"_s).toObject();
    QCOMPARE(waiting.value(u"kind"_s).toString(), u"all_reduce"_s);
    QCOMPARE(waiting.value(u"sequence"_s).toInt(), 4);
    QCOMPARE(waiting.value(u"group"_s).toString(), u"world"_s);
    QCOMPARE(waiting.value(u"group_size"_s).toInt(), 2);
    QCOMPARE(waiting.value(u"bytes"_s).toInt(), 8);  // one double
    for (const QJsonValue& v : alert.value(u"ranks"_s).toArray()) {
      const QJsonObject rank = v.toObject();
      const QJsonObject entered = rank.value(u"entered"_s).toObject();
      QCOMPARE(entered.value(u"sequence"_s).toInt(), rank.value(u"rank"_s).toInt() == 0 ? 4 : 3);
    }
    QVERIFY(alert.value(u"stalled_seconds"_s).toDouble() >= timeout);
    QVERIFY2(r.err.contains("hang: rank 1 behind"), r.err.constData());
    QVERIFY2(r.err.contains("--hang_action abort: stopping the group"), r.err.constData());

    fathom::store::Workspace workspace(ws.toStdString(), {.create = false});
    const auto run = workspace.listRuns().back();
    QVERIFY(run.status == fathom::store::RunStatus::Failed);
    // The run specification the launcher recorded is the one it monitored with.
    const fathom::config::MonitorSpec monitored =
        fathom::config::runSpecFromConfig(fathom::config::parseConfig(run.runSpec, "run_spec").config).fathom.monitor;
    QCOMPARE(monitored.hangTimeout, std::optional<double>(timeout));
    QVERIFY(monitored.hangAction == fathom::config::HangAction::Abort);
    const auto stored = workspace.alerts(run.id);
    QCOMPARE(stored.size(), std::size_t(1));
    QCOMPARE(stored.front().alert.behind(), std::vector<int>{1});
    // The group was stopped, not unstuck: the alert ended with the run, and says so.
    QVERIFY(stored.front().alert.resolvedAt.has_value());
    QVERIFY(stored.front().alert.end == fathom::store::AlertEnd::RunEnded);
    const auto ended = linesOf(r.out, u"alert_resolved"_s);
    QVERIFY2(ended.size() == 1 && ended.front().value(u"ended"_s).toString() == u"run_ended"_s,
             qPrintable(describe(r)));
    QVERIFY2(r.err.contains("still open when the run ended"), r.err.constData());
    // Within the timeout + 5 s of the skip (rank 1 logged it with its clock, the launcher stamped the alert).
    double skippedAt = 0;
    for (const auto& e : workspace.lastEvents(run.id, 1000)) {
      if (e.event.text.rfind("skipping the all_reduce", 0) == 0) {
        skippedAt = e.event.time;
      }
    }
    QVERIFY(skippedAt > 0);
    const double latency = stored.front().alert.time - skippedAt;
    qInfo("hang reported %.2f s after the skip (timeout %.0f s)", latency, timeout);
    QVERIFY2(latency >= timeout - 0.5 && latency <= timeout + 5, qPrintable(QString::number(latency)));
    // No worker survived the stop.
    for (const auto& rank : workspace.ranks(run.id)) {
      QVERIFY2(!processExists(rank.pid), qPrintable(QString::number(rank.pid)));
    }
    // Both ranks' last heartbeats carry their wavefront.
    const auto beats = workspace.heartbeats(run.id);
    QCOMPARE(beats.size(), std::size_t(2));
    QVERIFY(beats[0].entered && beats[0].entered->sequence == 4);
    QVERIFY(beats[1].finished && beats[1].finished->sequence == 3);

    const auto show = runFathom({u"runs"_s, u"show"_s, QString::number(run.id.value), u"--workspace"_s, ws});
    QVERIFY2(show.exitCode == 0 && show.out.contains("Alerts") && show.out.contains("hang"),
             qPrintable(describe(show)));
    const auto watch = runFathom(
        {u"runs"_s, u"watch"_s, QString::number(run.id.value), u"--workspace"_s, ws, u"--once"_s, u"--json"_s});
    QVERIFY2(watch.exitCode == 0, qPrintable(describe(watch)));
    const QJsonObject frame = QJsonDocument::fromJson(watch.out).object();
    QCOMPARE(frame.value(u"status"_s).toString(), u"failed"_s);
    QCOMPARE(frame.value(u"ranks"_s).toArray().size(), 2);
    QCOMPARE(frame.value(u"alerts"_s).toArray().size(), 1);
    const QJsonObject rank0 = frame.value(u"ranks"_s).toArray().at(0).toObject();
    QCOMPARE(rank0.value(u"entered"_s).toObject().value(u"sequence"_s).toInt(), 4);
    QVERIFY(!rank0.value(u"loss"_s).isNull());
    const auto text =
        runFathom({u"runs"_s, u"watch"_s, QString::number(run.id.value), u"--workspace"_s, ws, u"--once"_s});
    QVERIFY2(text.exitCode == 0 && text.out.contains("all_reduce #4"), qPrintable(describe(text)));
  }

  void aSlowRankIsFlaggedAsAStraggler() {
    QTemporaryDir dir;
    const QString ws = dir.filePath(u"runs.sqlite"_s);
    const auto r = launch(ws, {}, {u"--steps"_s, u"60"_s, u"--slow_rank"_s, u"1"_s, u"--slow_ms"_s, u"80"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    const auto alerts = linesOf(r.out, u"alert"_s);
    QVERIFY2(alerts.size() == 1, qPrintable(describe(r)));
    QCOMPARE(alerts.front().value(u"kind"_s).toString(), u"straggler"_s);
    QCOMPARE(alerts.front().value(u"behind"_s).toArray(), QJsonArray{1});
    QVERIFY2(r.err.contains("straggler: rank 1"), r.err.constData());
    fathom::store::Workspace workspace(ws.toStdString(), {.create = false});
    const auto stored = workspace.alerts(workspace.listRuns().back().id);
    QCOMPARE(stored.size(), std::size_t(1));
    for (const auto& rank : stored.front().alert.ranks) {
      QVERIFY(rank.stepSeconds.has_value());
      qInfo("rank %d: %.4f s per step outside collectives", rank.rank, *rank.stepSeconds);
    }
  }

  void anEvenRunIsNotFlagged() {
    QTemporaryDir dir;
    const QString ws = dir.filePath(u"runs.sqlite"_s);
    const auto r = launch(ws, {u"--hang_timeout"_s, u"3"_s}, {u"--steps"_s, u"200"_s});
    QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
    QVERIFY2(linesOf(r.out, u"alert"_s).isEmpty(), qPrintable(describe(r)));
    fathom::store::Workspace workspace(ws.toStdString(), {.create = false});
    QVERIFY(workspace.alerts(workspace.listRuns().back().id).empty());
  }
};

QTEST_GUILESS_MAIN(TestRunMonitorLaunch)
#include "tst_run_monitor_launch.moc"
