// SPDX-License-Identifier: Apache-2.0
// `fathom launch` and the workspace end to end: a 4-rank `fathom train` run lands in the workspace with every
// rank's metrics and `fathom runs show` prints them; a launcher killed with SIGKILL mid-run leaves a workspace that
// opens, holds every point its collector acknowledged (the probes record the acks they received), and shows the
// run as lost; a file that is not a workspace is a clear error.
#include "cli_runner.h"

#include <fathom/store/workspace.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <map>
#include <thread>

#include <sys/types.h>

using namespace Qt::StringLiterals;
using fathom::test::fathomExecutable;
using fathom::test::runFathom;

namespace {

QJsonObject showJson(const QString& workspace, const QString& run) {
  const auto r = runFathom({u"runs"_s, u"show"_s, run, u"--workspace"_s, workspace, u"--json"_s});
  if (r.exitCode != 0) {
    qWarning().noquote() << r.err;
    return {};
  }
  return QJsonDocument::fromJson(r.out).object();
}

/// "<pid> <acked>" from a probe's ack file; {0, -1} when missing.
std::pair<qint64, qint64> readAck(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    return {0, -1};
  }
  const auto words = f.readAll().trimmed().split(' ');
  return words.size() == 2 ? std::pair{words[0].toLongLong(), words[1].toLongLong()} : std::pair<qint64, qint64>{0, -1};
}

/// Runs `fathom args...` in the directory `cwd` (where ./fathom.sqlite would go).
fathom::test::CliRun runIn(const QString& cwd, const QStringList& args, const QProcessEnvironment& env) {
  QProcess p;
  p.setWorkingDirectory(cwd);
  p.setProcessEnvironment(env);
  p.start(fathomExecutable(), args);
  p.closeWriteChannel();
  if (!p.waitForFinished(120'000)) {
    p.kill();
    p.waitForFinished();
    return {-1, p.readAllStandardOutput(), p.readAllStandardError() + "\n[timed out]"};
  }
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
          p.readAllStandardError()};
}

/// How many runs the workspace at `path` holds; -1 when there is no file.
int runCount(const QString& path) {
  if (!QFile::exists(path)) {
    return -1;
  }
  return static_cast<int>(fathom::store::Workspace(path.toStdString(), {.create = false}).listRuns().size());
}

bool writeText(const QString& path, const QByteArray& text) {
  QFile f(path);
  return f.open(QIODevice::WriteOnly | QIODevice::Truncate) && f.write(text) == text.size();
}

bool processExists(qint64 pid) {
  return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH);
}

}  // namespace

class TestLaunchTelemetry : public QObject {
  Q_OBJECT

private slots:
  void fourRankTrainRunLandsInTheWorkspace() {
    QTemporaryDir dir;
    const QString ws = dir.filePath(u"runs.sqlite"_s);
    const QString stats = dir.filePath(u"stats.json"_s);
    const auto r = runFathom({u"launch"_s,
                              u"--num_processes"_s,
                              u"4"_s,
                              u"--quiet"_s,
                              u"--workspace"_s,
                              ws,
                              fathomExecutable(),
                              u"train"_s,
                              u"--model"_s,
                              u"mlp"_s,
                              u"--hidden"_s,
                              u"16"_s,
                              u"--layers"_s,
                              u"1"_s,
                              u"--batch_size"_s,
                              u"4"_s,
                              u"--steps"_s,
                              u"12"_s,
                              u"--log_every"_s,
                              u"4"_s,
                              u"--stats_json"_s,
                              stats},
                             QProcessEnvironment::systemEnvironment(), {}, 240'000);
    QVERIFY2(r.exitCode == 0, (r.out + r.err).constData());

    const QJsonObject run = showJson(ws, u"1"_s);
    QCOMPARE(run[u"status"_s].toString(), u"succeeded"_s);
    QCOMPARE(run[u"exit_code"_s].toInt(-1), 0);
    QCOMPARE(run[u"name"_s].toString(), u"train-1"_s);  // the default name: the program and the run id
    QCOMPARE(run[u"world_size"_s].toInt(), 4);
    QCOMPARE(run[u"strategy"_s].toString(), u"ddp"_s);
    QVERIFY(run[u"command_line"_s].toString().contains(u"train --model mlp"_s));
    QCOMPARE(QJsonDocument::fromJson(run[u"config_text"_s].toString().toUtf8())[u"world_size"_s].toInt(), 4);
    const QJsonArray ranks = run[u"ranks"_s].toArray();
    QCOMPARE(ranks.size(), 4);
    for (int i = 0; i < 4; ++i) {
      const auto rank = ranks[i].toObject();
      QCOMPARE(rank[u"rank"_s].toInt(), i);
      QVERIFY(rank[u"pid"_s].toInteger() > 0);
      QCOMPARE(rank[u"exit_code"_s].toInt(-1), 0);
    }
    // Every rank's metrics: loss and steps_per_second at steps 4, 8, 12, and final_loss.
    std::map<std::pair<QString, int>, int> counts;
    std::map<int, double> finalLoss;
    for (const auto& m : run[u"metrics"_s].toArray()) {
      const auto o = m.toObject();
      counts[{o[u"key"_s].toString(), o[u"rank"_s].toInt()}] = o[u"count"_s].toInt();
      if (o[u"key"_s].toString() == u"loss"_s) {
        QCOMPARE(o[u"last_step"_s].toInt(), 12);
      }
      if (o[u"key"_s].toString() == u"final_loss"_s) {
        finalLoss[o[u"rank"_s].toInt()] = o[u"last"_s].toDouble();
      }
    }
    for (int rank = 0; rank < 4; ++rank) {
      const auto count = [&](const QString& key) { return counts[std::pair{key, rank}]; };
      QCOMPARE(count(u"loss"_s), 3);
      QCOMPARE(count(u"steps_per_second"_s), 3);
      QCOMPARE(count(u"final_loss"_s), 1);
      QCOMPARE(finalLoss[rank], finalLoss[0]);  // the loss is averaged over the ranks before logging
    }
    // The hyper-parameters reached the workspace as rank 0's event.
    fathom::store::Workspace workspace(ws.toStdString(), {.create = false});
    const auto events = workspace.eventsSince(fathom::store::EventId{0});
    QVERIFY(std::any_of(events.begin(), events.end(), [](const fathom::store::EventRow& e) {
      return e.event.rank == 0 && e.event.text.rfind("hparams {", 0) == 0;
    }));

    // Every rank's memory samples (steps 4, 8, 12): its parameter bytes are what --stats_json (modelStateBytes)
    // reports for that rank; the resident set size is real (peak >= latest > 0).
    QFile statsFile(stats);
    QVERIFY(statsFile.open(QIODevice::ReadOnly));
    const QJsonArray statRanks = QJsonDocument::fromJson(statsFile.readAll())[u"ranks"_s].toArray();
    const QString idProblem = fathom::test::statsRanksProblem(statRanks, 4);  // one entry per rank, ids distinct
    QVERIFY2(idProblem.isEmpty(), qPrintable(idProblem));
    std::map<std::pair<QString, int>, QJsonObject> memory;
    for (const auto& m : run[u"memory"_s].toArray()) {
      const QJsonObject o = m.toObject();
      memory[{o[u"key"_s].toString(), o[u"rank"_s].toInt()}] = o;
    }
    // (A function, not memory[{key, rank}]: a braced pair's comma would split QCOMPARE's arguments.)
    const auto sample = [&](const QString& key, int rank) { return memory[std::pair{key, rank}]; };
    for (int rank = 0; rank < 4; ++rank) {
      const QJsonObject entry = statRanks[rank].toObject();
      const QJsonObject bytes = entry[u"bytes"_s].toObject();
      QCOMPARE(entry[u"rank"_s].toInt(), rank);
      const QJsonObject params = sample(u"device/parameters_bytes"_s, rank);
      QCOMPARE(params[u"samples"_s].toInt(), 3);
      QCOMPARE(params[u"latest_step"_s].toInt(), 12);
      QVERIFY(bytes[u"parameters"_s].toInteger() > 0);
      QCOMPARE(params[u"latest"_s].toInteger(), bytes[u"parameters"_s].toInteger());
      QCOMPARE(sample(u"device/gradients_bytes"_s, rank)[u"latest"_s].toInteger(), bytes[u"gradients"_s].toInteger());
      QCOMPARE(sample(u"device/optimizer_states_bytes"_s, rank)[u"latest"_s].toInteger(),
               bytes[u"optimizer_states"_s].toInteger());
      QCOMPARE(sample(u"host/parameters_bytes"_s, rank)[u"latest"_s].toInteger(),
               bytes[u"offloaded"_s].toObject()[u"parameters"_s].toInteger());
      const QJsonObject rss = sample(u"rss_bytes"_s, rank);
      QCOMPARE(rss[u"samples"_s].toInt(), 3);
      QVERIFY(rss[u"latest"_s].toDouble() > 1e6);  // a process with LibTorch loaded holds more than 1 MB
      QVERIFY(sample(u"peak_rss_bytes"_s, rank)[u"peak"_s].toDouble() >= rss[u"peak"_s].toDouble());
    }
    // Every rank's log lines: its progress lines, at info level, with its rank.
    std::map<int, QStringList> lines;
    for (const auto& e : events) {
      if (e.run.value == 1 && e.event.level == fathom::LogLevel::Info) {
        lines[e.event.rank].push_back(QString::fromStdString(e.event.text));
      }
    }
    for (int rank = 0; rank < 4; ++rank) {
      const QStringList& mine = lines[rank];
      QVERIFY2(!mine.filter(u"fathom train: mlp"_s).isEmpty(), qPrintable(mine.join(u'\n')));
      for (const QString& step : {u"step 4/12 "_s, u"step 8/12 "_s, u"step 12/12 "_s, u"done: 12 steps"_s}) {
        QVERIFY2(mine.filter(step).size() == 1, qPrintable(step + u" missing from rank "_s + QString::number(rank)));
      }
    }
    // `runs show --json` returns the last log lines too, oldest first.
    const QJsonArray log = run[u"log"_s].toArray();
    QCOMPARE(log.size(), 20);  // 21 events: rank 0's hparams and 5 lines per rank
    int doneLines = 0;
    for (const auto& e : log) {
      const QJsonObject o = e.toObject();
      QCOMPARE(o[u"level"_s].toString(), u"info"_s);
      doneLines += o[u"text"_s].toString().startsWith(u"done: 12 steps"_s) ? 1 : 0;
    }
    QCOMPARE(doneLines, 4);

    // And the text form prints them.
    const auto text = runFathom({u"runs"_s, u"show"_s, u"1"_s, u"--workspace"_s, ws});
    QVERIFY2(text.exitCode == 0, text.err.constData());
    QVERIFY2(text.out.contains("Run 1 \"train-1\": succeeded"), text.out.constData());
    for (const char* key : {"loss", "final_loss", "steps_per_second", "Memory (latest sample and peak per rank)",
                            "device/parameters_bytes", "peak_rss_bytes", "Log (last 20 lines)", "done: 12 steps"}) {
      QVERIFY2(text.out.contains(key), text.out.constData());
    }
    // `runs export --key_prefix memory/` exports the memory samples only: 4 ranks x 3 samples x 11 keys.
    const auto exported =
        runFathom({u"runs"_s, u"export"_s, u"1"_s, u"--workspace"_s, ws, u"--key_prefix"_s, u"memory/"_s});
    QVERIFY2(exported.exitCode == 0, exported.err.constData());
    const QList<QByteArray> rows = exported.out.trimmed().split('\n');
    QCOMPARE(rows.size(), 1 + 4 * 3 * 11);
    for (qsizetype i = 1; i < rows.size(); ++i) {
      QVERIFY2(rows[i].contains(",memory/"), rows[i].constData());
    }
  }

  void sigkilledLauncherKeepsEveryAcknowledgedPoint() {
    QTemporaryDir dir;
    const QString ws = dir.filePath(u"killed.sqlite"_s);
    const QString ack = dir.filePath(u"ack"_s);
    QProcess launcher;
    launcher.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    launcher.start(fathomExecutable(), {u"launch"_s, u"--num_processes"_s, u"4"_s, u"--quiet"_s, u"--workspace"_s, ws,
                                        QStringLiteral(FATHOM_TELEMETRY_PROBE), u"--rate"_s, u"5000"_s, u"--seconds"_s,
                                        u"600"_s, u"--ack_file"_s, ack});
    QVERIFY(launcher.waitForStarted());
    // Mid-run: every rank has had thousands of points acknowledged.
    QElapsedTimer timer;
    timer.start();
    const auto allAcked = [&](qint64 atLeast) {
      for (int rank = 0; rank < 4; ++rank) {
        if (readAck(ack + u"."_s + QString::number(rank)).second < atLeast) {
          return false;
        }
      }
      return true;
    };
    while (!allAcked(5'000) && timer.elapsed() < 90'000 && launcher.state() == QProcess::Running) {
      QTest::qWait(100);
    }
    QVERIFY2(allAcked(5'000), "the probes did not get 5,000 points acknowledged each");
    {
      fathom::store::Workspace live(ws.toStdString(), {.create = false, .reconcile = false});
      QCOMPARE(std::string(fathom::store::toString(live.listRuns().at(0).status)), std::string("running"));
    }

    ::kill(static_cast<pid_t>(launcher.processId()), SIGKILL);
    QVERIFY(launcher.waitForFinished(10'000));
    // The probes die with the launcher (PR_SET_PDEATHSIG); their ack files then hold the last acks they got.
    std::map<int, qint64> acked;
    for (int rank = 0; rank < 4; ++rank) {
      const QString file = ack + u"."_s + QString::number(rank);
      timer.restart();
      while (processExists(readAck(file).first) && timer.elapsed() < 10'000) {
        QTest::qWait(50);
      }
      QVERIFY2(!processExists(readAck(file).first), "a probe outlived its launcher");
      acked[rank] = readAck(file).second;
    }

    // The workspace opens (reconciling), marks the run lost, and holds at least every acknowledged point, in order.
    fathom::store::Workspace workspace(ws.toStdString(), {.create = false});
    const auto runs = workspace.listRuns();
    QCOMPARE(runs.size(), std::size_t{1});
    QCOMPARE(std::string(fathom::store::toString(runs[0].status)), std::string("lost"));
    for (int rank = 0; rank < 4; ++rank) {
      const auto series = workspace.metricSeries(runs[0].id, "probe/value", rank);
      qInfo("rank %d: %lld points acknowledged, %zu stored", rank, acked[rank], series.size());
      QVERIFY2(static_cast<qint64>(series.size()) >= acked[rank], "an acknowledged point is missing");
      for (std::size_t i = 0; i < series.size(); ++i) {
        if (series[i].point.value != static_cast<double>(i)) {
          QFAIL("a stored series has a gap or is out of order");
        }
      }
    }
    const QJsonObject shown = showJson(ws, u"1"_s);
    QCOMPARE(shown[u"status"_s].toString(), u"lost"_s);
  }

  // docs/workspace.md: --workspace > FATHOM_WORKSPACE > the config's fathom.workspace > ./fathom.sqlite, for
  // `fathom train` (without the launcher), `fathom launch` and `fathom runs`.
  void workspaceComesFromFlagEnvironmentConfigOrDefault() {
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkpath(u"cache/fathom"_s));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(u"FATHOM_WORKSPACE"_s);
    env.insert(u"XDG_CACHE_HOME"_s, dir.filePath(u"cache"_s));  // Fathom's default config file: cache/fathom/...
    env.insert(u"HF_HOME"_s, dir.filePath(u"hf"_s));            // and no Accelerate fallback
    const QString cwd = dir.path();
    const QStringList train{u"train"_s, u"--model"_s, u"mlp"_s, u"--hidden"_s,    u"8"_s, u"--layers"_s,
                            u"1"_s,     u"--steps"_s, u"1"_s,   u"--log_every"_s, u"1"_s};
    const QStringList launch{u"launch"_s, u"--quiet"_s, u"true"_s};
    const auto ok = [](const fathom::test::CliRun& r) { return r.exitCode == 0; };
    const auto why = [](const fathom::test::CliRun& r) { return QByteArray(r.out + r.err); };

    // Nothing set: ./fathom.sqlite in the working directory.
    auto r = runIn(cwd, train, env);
    QVERIFY2(ok(r), why(r).constData());
    r = runIn(cwd, launch, env);
    QVERIFY2(ok(r), why(r).constData());
    QCOMPARE(runCount(dir.filePath(u"fathom.sqlite"_s)), 2);
    r = runIn(cwd, {u"runs"_s, u"list"_s, u"--json"_s}, env);
    QVERIFY2(ok(r), why(r).constData());
    QCOMPARE(QJsonDocument::fromJson(r.out).array().size(), 2);
    // Without the launcher, `fathom train` writes its memory sample and log lines itself.
    r = runIn(cwd, {u"runs"_s, u"show"_s, u"1"_s, u"--json"_s}, env);
    QVERIFY2(ok(r), why(r).constData());
    const QJsonObject direct = QJsonDocument::fromJson(r.out).object();
    QCOMPARE(direct[u"memory"_s].toArray().size(), 11);  // one sample (step 1) of 11 keys
    const QJsonArray directLog = direct[u"log"_s].toArray();
    QCOMPARE(directLog.size(), 3);  // the start line, step 1/1, done
    QVERIFY(directLog[1].toObject()[u"text"_s].toString().startsWith(u"step 1/1 "_s));
    QVERIFY(directLog[2].toObject()[u"text"_s].toString().startsWith(u"done: 1 steps"_s));

    // The default config file's fathom.workspace (relative to the working directory).
    QVERIFY(writeText(dir.filePath(u"cache/fathom/default_config.yaml"_s),
                      "distributed_type: MULTI_CPU\nnum_processes: 1\nfathom:\n  workspace: from-config.sqlite\n"));
    r = runIn(cwd, train, env);
    QVERIFY2(ok(r), why(r).constData());
    r = runIn(cwd, launch, env);
    QVERIFY2(ok(r), why(r).constData());
    QCOMPARE(runCount(dir.filePath(u"from-config.sqlite"_s)), 2);
    r = runIn(cwd, {u"runs"_s, u"list"_s, u"--json"_s}, env);
    QVERIFY2(ok(r), why(r).constData());
    QCOMPARE(QJsonDocument::fromJson(r.out).array().size(), 2);
    // `fathom launch --config_file` reads its workspace from that file instead of the default one.
    QVERIFY(writeText(dir.filePath(u"launch.yaml"_s),
                      "distributed_type: MULTI_CPU\nnum_processes: 1\nfathom:\n  workspace: launch-file.sqlite\n"));
    r = runIn(cwd, {u"launch"_s, u"--quiet"_s, u"--config_file"_s, dir.filePath(u"launch.yaml"_s), u"true"_s}, env);
    QVERIFY2(ok(r), why(r).constData());
    QCOMPARE(runCount(dir.filePath(u"launch-file.sqlite"_s)), 1);

    // FATHOM_WORKSPACE beats the config file.
    env.insert(u"FATHOM_WORKSPACE"_s, dir.filePath(u"from-env.sqlite"_s));
    r = runIn(cwd, train, env);
    QVERIFY2(ok(r), why(r).constData());
    r = runIn(cwd, launch, env);
    QVERIFY2(ok(r), why(r).constData());
    QCOMPARE(runCount(dir.filePath(u"from-env.sqlite"_s)), 2);
    r = runIn(cwd, {u"runs"_s, u"list"_s, u"--json"_s}, env);
    QVERIFY2(ok(r), why(r).constData());
    QCOMPARE(QJsonDocument::fromJson(r.out).array().size(), 2);

    // --workspace beats the environment.
    const QString flag = dir.filePath(u"from-flag.sqlite"_s);
    r = runIn(cwd, QStringList(train) << u"--workspace"_s << flag, env);
    QVERIFY2(ok(r), why(r).constData());
    r = runIn(cwd, {u"launch"_s, u"--quiet"_s, u"--workspace"_s, flag, u"true"_s}, env);
    QVERIFY2(ok(r), why(r).constData());
    QCOMPARE(runCount(flag), 2);
    r = runIn(cwd, {u"runs"_s, u"show"_s, u"2"_s, u"--json"_s, u"--workspace"_s, flag}, env);
    QVERIFY2(ok(r), why(r).constData());

    // Nothing was written anywhere else; the earlier files did not grow.
    QCOMPARE(runCount(dir.filePath(u"fathom.sqlite"_s)), 2);
    QCOMPARE(runCount(dir.filePath(u"from-config.sqlite"_s)), 2);
    QCOMPARE(runCount(dir.filePath(u"from-env.sqlite"_s)), 2);
    // A missing workspace named by the environment is an error that says where the name came from.
    env.insert(u"FATHOM_WORKSPACE"_s, dir.filePath(u"missing.sqlite"_s));
    r = runIn(cwd, {u"runs"_s, u"list"_s}, env);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("missing.sqlite (from FATHOM_WORKSPACE)"), r.err.constData());
  }

  void aFileThatIsNotAWorkspaceIsAClearError() {
    QTemporaryDir dir;
    const QString path = dir.filePath(u"notes.sqlite"_s);
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("these are my notes, not a database\n");
    f.close();
    const auto r = runFathom({u"launch"_s, u"--quiet"_s, u"--workspace"_s, path, u"true"_s});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(path.toUtf8() + ": not a Fathom workspace"), r.err.constData());
    const auto train = runFathom({u"train"_s, u"--model"_s, u"mlp"_s, u"--steps"_s, u"1"_s, u"--workspace"_s, path});
    QCOMPARE(train.exitCode, 1);
    QVERIFY2(train.err.contains("not a Fathom workspace"), train.err.constData());
  }
};

QTEST_GUILESS_MAIN(TestLaunchTelemetry)
#include "tst_launch_telemetry.moc"
