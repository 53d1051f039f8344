// SPDX-License-Identifier: Apache-2.0
// `fathom train --checkpointing_steps / --resume_from_checkpoint / --save_total_limit` end to end (issue 22), in
// separate processes over real Gloo groups: a resumed run ends bit-identical to a straight one, rotation keeps what
// Accelerate's own test keeps, bad input stops at the front door, and the workspace records every checkpoint.
#include "cli_runner.h"
#include "saved_params.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <string>

using namespace Qt::StringLiterals;
using fathom::test::runFathom;

namespace {

using fathom::test::maxAbsDiff;
using fathom::test::Params;
using fathom::test::readParams;

/// An MLP on 96 shuffled rows in batches of 8 with 2 batches per optimizer step: 6 steps per epoch alone, 3 per epoch
/// on 2 ranks. Step 10 is in the middle of an epoch either way (epoch 1, batch 8 of 12; epoch 3, batch 2 of 6), and 20
/// steps cross several epochs.
const QStringList kModel{u"--model"_s,
                         u"mlp"_s,
                         u"--hidden"_s,
                         u"32"_s,
                         u"--layers"_s,
                         u"2"_s,
                         u"--num_samples"_s,
                         u"96"_s,
                         u"--batch_size"_s,
                         u"8"_s,
                         u"--gradient_accumulation_steps"_s,
                         u"2"_s,
                         u"--shuffle"_s,
                         u"--cpu"_s,
                         u"--log_every"_s,
                         u"0"_s};

/// The environment of a run writing its workspace to `workspace`, without a launcher's variables.
QProcessEnvironment environmentFor(const QString& workspace) {
  QProcessEnvironment env = fathom::test::launcherFreeEnvironment();
  env.insert(u"FATHOM_WORKSPACE"_s, workspace);
  return env;
}

/// `fathom train kModel ARGS` on `processes` ranks (through `fathom launch` when > 1), its workspace in `workspace`.
fathom::test::CliRun train(int processes, const QStringList& args, const QString& workspace) {
  QStringList command = QStringList{u"train"_s} + kModel + args;
  if (processes > 1) {
    command = QStringList{u"launch"_s, u"--num_processes"_s, QString::number(processes), u"--quiet"_s,
                          fathom::test::fathomExecutable()} +
              command;
  }
  return runFathom(command, environmentFor(workspace), {}, 120'000);
}

/// Every entry of `dir` (files and folders, recursively), relative to it, sorted: what a failed run must not change.
QStringList tree(const QString& dir) {
  QStringList out;
  QDirIterator it(dir, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext())
    out << QDir(dir).relativeFilePath(it.next());
  out.sort();
  return out;
}

/// The names in `dir/checkpoints`, sorted.
QStringList checkpointFolders(const QString& projectDir) {
  return QDir(projectDir + u"/checkpoints"_s)
      .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden, QDir::Name);
}

/// Bytes of every file under `folder`.
qint64 folderBytes(const QString& folder) {
  qint64 bytes = 0;
  QDirIterator it(folder, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
  while (it.hasNext())
    bytes += QFileInfo(it.next()).size();
  return bytes;
}

/// `fathom runs show 1 --json` of the workspace `workspace` (each run here has a workspace of its own).
QJsonObject showRun(const QString& workspace) {
  const auto run =
      runFathom({u"runs"_s, u"show"_s, u"1"_s, u"--json"_s, u"--log_lines"_s, u"1000"_s, u"--workspace"_s, workspace});
  if (run.exitCode != 0) {
    qWarning().noquote() << fathom::test::describe(run);
    return {};
  }
  return fathom::test::stdoutJson(run).object();
}

/// The run's checkpoint artifacts, in the order recorded.
QList<QJsonObject> checkpointArtifacts(const QJsonObject& run) {
  QList<QJsonObject> out;
  for (const QJsonValue& a : run.value(u"artifacts"_s).toArray()) {
    if (a.toObject().value(u"kind"_s).toString() == u"checkpoint"_s)
      out << a.toObject();
  }
  return out;
}

/// manifest.json's info.optimizer_steps of the checkpoint `folder`: the step it was saved after.
qint64 savedStep(const QString& folder) {
  QFile file(folder + u"/manifest.json"_s);
  if (!file.open(QIODevice::ReadOnly))
    return -1;
  return QJsonDocument::fromJson(file.readAll())
      .object()
      .value(u"info"_s)
      .toObject()
      .value(u"optimizer_steps"_s)
      .toString()
      .toLongLong();
}

}  // namespace

class TrainCheckpointCliTest : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    QVERIFY(m_dir.isValid());
    fathom::test::useWorkspaceIn(m_dir);
  }

  // (a) 20 steps straight vs 10 steps, a checkpoint, new processes, --resume_from_checkpoint latest, 10 more: the
  // final parameters are identical (max abs difference 0), alone and on 2 ranks of DDP over Gloo. Also with
  // checkpoints at the end of each epoch, where the resumed loader starts the next epoch.
  void resumedRunEqualsStraightRun_data() {
    QTest::addColumn<int>("processes");
    QTest::addColumn<QString>("every");  // --checkpointing_steps
    QTest::addColumn<int>("firstSteps");
    QTest::addColumn<QStringList>("saved");  // the checkpoints of the first run, with the steps they were saved after
    QTest::addColumn<int>("resumeStep");
    QTest::newRow("1 process, every 10 steps") << 1 << u"10"_s << 10 << QStringList{u"checkpoint_0"_s} << 10;
    QTest::newRow("2 processes, every 10 steps") << 2 << u"10"_s << 10 << QStringList{u"checkpoint_0"_s} << 10;
    QTest::newRow("1 process, every epoch") << 1 << u"epoch"_s << 8 << QStringList{u"checkpoint_0"_s} << 6;
    QTest::newRow("2 processes, every epoch")
        << 2 << u"epoch"_s << 8 << QStringList{u"checkpoint_0"_s, u"checkpoint_1"_s} << 6;
  }
  void resumedRunEqualsStraightRun() {
    QFETCH(int, processes);
    QFETCH(QString, every);
    QFETCH(int, firstSteps);
    QFETCH(QStringList, saved);
    QFETCH(int, resumeStep);
    QTemporaryDir dir;
    const QString straight = dir.filePath(u"straight.safetensors"_s);
    const QString half = dir.filePath(u"half.safetensors"_s);
    const QString resumed = dir.filePath(u"resumed.safetensors"_s);
    const QString project = dir.filePath(u"project"_s);

    auto run = train(processes, {u"--steps"_s, u"20"_s, u"--save_final"_s, straight}, dir.filePath(u"a.sqlite"_s));
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    run = train(processes,
                {u"--steps"_s, QString::number(firstSteps), u"--checkpointing_steps"_s, every, u"--project_dir"_s,
                 project, u"--save_final"_s, half, u"--json"_s},
                dir.filePath(u"b1.sqlite"_s));
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    QCOMPARE(checkpointFolders(project), saved);
    // One line per checkpoint, printed by the main process only.
    const auto checkpoints = fathom::test::trainEvents(run.out, u"checkpoint"_s);
    QCOMPARE(checkpoints.size(), saved.size());
    QCOMPARE(checkpoints.back().value(u"step"_s).toInt(), resumeStep);

    run = train(processes,
                {u"--steps"_s, u"20"_s, u"--resume_from_checkpoint"_s, u"latest"_s, u"--project_dir"_s, project,
                 u"--save_final"_s, resumed, u"--json"_s},
                dir.filePath(u"b2.sqlite"_s));
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    const auto resumes = fathom::test::trainEvents(run.out, u"resume"_s);
    QCOMPARE(resumes.size(), 1);
    QCOMPARE(resumes.front().value(u"step"_s).toInt(), resumeStep);
    QCOMPARE(resumes.front().value(u"path"_s).toString(),
             QDir(project).absoluteFilePath(u"checkpoints/"_s + saved.back()));
    QCOMPARE(fathom::test::trainSummary(run.out).value(u"steps"_s).toInt(), 20);

    const Params a = readParams(straight);
    const Params b = readParams(resumed);
    const double diff = maxAbsDiff(a, b);
    qInfo("%d process(es): max |straight 20 - (%d, resume, %d)| = %.3g", processes, resumeStep, 20 - resumeStep, diff);
    QCOMPARE(diff, 0.0);
    // Not vacuous: the resumed run trained (the first run's final parameters differ from the straight run's).
    QVERIFY(maxAbsDiff(a, readParams(half)) > 1e-4);

    // The resumed run recorded where it came from: its event, from every rank, in the workspace.
    int resumeEvents = 0;
    for (const QJsonValue& line : showRun(dir.filePath(u"b2.sqlite"_s)).value(u"log"_s).toArray()) {
      const QJsonObject o = QJsonDocument::fromJson(line.toObject().value(u"text"_s).toString().toUtf8()).object();
      if (o.value(u"event"_s).toString() == u"resume"_s &&
          o.value(u"path"_s).toString() == resumes.front().value(u"path"_s).toString())
        ++resumeEvents;
    }
    QCOMPARE(resumeEvents, processes);
  }

  // (b) Accelerate's test_checkpoint_deletion: total_limit 2 and 11 saves leave exactly checkpoint_9 and checkpoint_10
  // (automatic naming counts saves from 0, so the save after step 11 is checkpoint_10).
  void saveTotalLimitKeepsTheNewest() {
    QTemporaryDir dir;
    const QString project = dir.filePath(u"project"_s);
    auto run = train(1,
                     {u"--steps"_s, u"11"_s, u"--checkpointing_steps"_s, u"1"_s, u"--save_total_limit"_s, u"2"_s,
                      u"--project_dir"_s, project},
                     dir.filePath(u"w.sqlite"_s));
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    QCOMPARE(checkpointFolders(project), (QStringList{u"checkpoint_10"_s, u"checkpoint_9"_s}));
    QCOMPARE(savedStep(project + u"/checkpoints/checkpoint_9"_s), 10);
    QCOMPARE(savedStep(project + u"/checkpoints/checkpoint_10"_s), 11);

    // Resumed with the same flags, the run numbers on (checkpoint_11 after step 12) and keeps rotating.
    run = train(1,
                {u"--steps"_s, u"13"_s, u"--checkpointing_steps"_s, u"1"_s, u"--save_total_limit"_s, u"2"_s,
                 u"--project_dir"_s, project, u"--resume_from_checkpoint"_s, u"latest"_s},
                dir.filePath(u"w.sqlite"_s));
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    QCOMPARE(checkpointFolders(project), (QStringList{u"checkpoint_11"_s, u"checkpoint_12"_s}));
    QCOMPARE(savedStep(project + u"/checkpoints/checkpoint_12"_s), 13);
  }

  // (c) Bad input: a usage error naming the flag and the value, exit code 2, nothing trained, no checkpoint written.
  void badCheckpointInputStopsAtTheFrontDoor_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");  // with %1 for the temporary folder
    QTest::newRow("checkpointing_steps x") << QStringList{u"--checkpointing_steps"_s, u"x"_s}
                                           << u"--checkpointing_steps: 'x' is not a whole number or 'epoch'"_s;
    QTest::newRow("checkpointing_steps 0")
        << QStringList{u"--checkpointing_steps"_s, u"0"_s} << u"--checkpointing_steps: 0 is out of range"_s;
    QTest::newRow("save_total_limit 0") << QStringList{u"--checkpointing_steps"_s, u"1"_s, u"--save_total_limit"_s,
                                                       u"0"_s}
                                        << u"--save_total_limit: 0 is out of range (allowed 1..2147483647)"_s;
    QTest::newRow("save_total_limit alone")
        << QStringList{u"--save_total_limit"_s, u"2"_s} << u"--save_total_limit: 2 needs --checkpointing_steps"_s;
    QTest::newRow("latest without checkpoints")
        << QStringList{u"--resume_from_checkpoint"_s, u"latest"_s}
        << u"--resume_from_checkpoint latest: no checkpoint in %1/project/checkpoints"_s;
    QTest::newRow("missing folder") << QStringList{u"--resume_from_checkpoint"_s, u"%1/nowhere"_s}
                                    << u"--resume_from_checkpoint '%1/nowhere': no such folder"_s;
    QTest::newRow("folder without a checkpoint")
        << QStringList{u"--resume_from_checkpoint"_s, u"%1/empty"_s}
        << u"--resume_from_checkpoint '%1/empty': holds no checkpoint (no manifest.json"_s;
  }
  void badCheckpointInputStopsAtTheFrontDoor() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(QDir(dir.path()).mkdir(u"empty"_s));
    const QString weights = dir.filePath(u"final.safetensors"_s);
    for (QString& arg : args)
      arg.replace(u"%1"_s, dir.path());
    message.replace(u"%1"_s, dir.path());
    const auto run = train(
        1,
        QStringList{u"--steps"_s, u"5"_s, u"--project_dir"_s, dir.filePath(u"project"_s), u"--save_final"_s, weights} +
            args,
        dir.filePath(u"w.sqlite"_s));
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains(message.toUtf8()), run.err.constData());
    QVERIFY2(!run.out.contains("done:"), run.out.constData());  // nothing trained
    QVERIFY(!QFileInfo::exists(weights));
    QVERIFY(!QFileInfo::exists(dir.filePath(u"project/checkpoints"_s)));
  }

  // (c) The same for what needs a checkpoint or a folder first: --steps not beyond the checkpoint's step, a fresh
  // run into a folder that holds another run's checkpoints, and a checkpoints folder that cannot be written.
  void badCheckpointStateStopsAtTheFrontDoor() {
    QTemporaryDir dir;
    const QString project = dir.filePath(u"project"_s);
    const QString weights = dir.filePath(u"final.safetensors"_s);
    auto run = train(1, {u"--steps"_s, u"4"_s, u"--checkpointing_steps"_s, u"2"_s, u"--project_dir"_s, project},
                     dir.filePath(u"w.sqlite"_s));
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    const QStringList before = tree(dir.path());
    QCOMPARE(checkpointFolders(project), (QStringList{u"checkpoint_0"_s, u"checkpoint_1"_s}));

    const auto refused = [&](const QStringList& args, const QString& message) {
      const auto r = train(1, QStringList{u"--project_dir"_s, project, u"--save_final"_s, weights} + args,
                           dir.filePath(u"w.sqlite"_s));
      QCOMPARE(r.exitCode, 2);
      QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
      QVERIFY2(!r.out.contains("done:"), r.out.constData());
      QVERIFY(!QFileInfo::exists(weights));
      QStringList after = tree(dir.path());
      after.removeAll(u"w.sqlite"_s);  // the workspace is SQLite's; its -wal and -shm come and go
      after.removeAll(u"w.sqlite-wal"_s);
      after.removeAll(u"w.sqlite-shm"_s);
      QStringList expected = before;
      expected.removeAll(u"w.sqlite"_s);
      expected.removeAll(u"w.sqlite-wal"_s);
      expected.removeAll(u"w.sqlite-shm"_s);
      QCOMPARE(after, expected);
    };
    const QString latest = QDir(project).absoluteFilePath(u"checkpoints/checkpoint_1"_s);
    refused({u"--steps"_s, u"4"_s, u"--resume_from_checkpoint"_s, u"latest"_s},
            u"--steps 4: %1 was saved after step 4, and --steps counts from the start of training"_s.arg(latest));
    if (QTest::currentTestFailed())
      return;
    refused({u"--steps"_s, u"8"_s, u"--checkpointing_steps"_s, u"2"_s},
            u"--checkpointing_steps: %1/checkpoints already holds checkpoint_0 … checkpoint_1 (2 folders) of an "
            u"earlier run"_s.arg(project));
    if (QTest::currentTestFailed())
      return;

    // A checkpoints folder that cannot be written (a file in its place: refused also when the tests run as root).
    const QString other = dir.filePath(u"other"_s);
    QVERIFY(QDir(dir.path()).mkdir(u"other"_s));
    QFile blocker(other + u"/checkpoints"_s);
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    run = train(1,
                {u"--steps"_s, u"4"_s, u"--checkpointing_steps"_s, u"2"_s, u"--project_dir"_s, other, u"--save_final"_s,
                 weights},
                dir.filePath(u"w.sqlite"_s));
    QCOMPARE(run.exitCode, 1);  // a StorageError, as for every output location
    QVERIFY2(
        run.err.contains(("cannot write checkpoints folder (--project_dir) " + other + u"/checkpoints"_s).toUtf8()),
        run.err.constData());
    QVERIFY2(!run.out.contains("done:"), run.out.constData());
    QVERIFY(!QFileInfo::exists(weights));
    QVERIFY(QFileInfo(other + u"/checkpoints"_s).isFile());
  }

  // (d) Every published checkpoint is an artifact of the run in the workspace, recorded once (by the main process),
  // with its absolute path and the bytes of its files; rotation does not rewrite the record. On 2 ranks through the
  // launcher's collector.
  void checkpointsAreArtifactsOfTheRun() {
    QTemporaryDir dir;
    const QString project = dir.filePath(u"project"_s);
    const QString workspace = dir.filePath(u"w.sqlite"_s);
    const auto run = train(2,
                           {u"--steps"_s, u"6"_s, u"--checkpointing_steps"_s, u"2"_s, u"--save_total_limit"_s, u"2"_s,
                            u"--project_dir"_s, project},
                           workspace);
    QVERIFY2(run.exitCode == 0, qPrintable(fathom::test::describe(run)));
    QCOMPARE(checkpointFolders(project), (QStringList{u"checkpoint_1"_s, u"checkpoint_2"_s}));
    const QList<QJsonObject> artifacts = checkpointArtifacts(showRun(workspace));
    QCOMPARE(artifacts.size(), 3);
    for (int n = 0; n < 3; ++n) {
      const QString folder = QDir(project).absoluteFilePath(u"checkpoints/checkpoint_%1"_s.arg(n));
      QCOMPARE(artifacts[n].value(u"path"_s).toString(), folder);
      QVERIFY2(artifacts[n].value(u"bytes"_s).toInteger() > 0, qPrintable(folder));
      if (n > 0) {  // still there: its size and its step, as recorded
        QCOMPARE(artifacts[n].value(u"bytes"_s).toInteger(), folderBytes(folder));
        QCOMPARE(savedStep(folder), 2 * (n + 1));
      }
    }
  }

private:
  QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TrainCheckpointCliTest)
#include "tst_train_checkpoint_cli.moc"
